"""Types of body fields and parameters, carrying the bounds of :mod:`booking_core.limits`.

msgspec checks bodies against the ``Meta`` constraints and Litestar checks parameters against
``Parameter``'s, before any handler runs; both show in the OpenAPI document, and a value outside
them is a 400 keyed by the field (``validation.py`` rewords the libraries' messages, ``MESSAGES``
below says what a pattern means).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar.openapi.spec import Example
from litestar.openapi.spec.enums import OpenAPIType
from litestar.params import HeaderParameter, Parameter
from msgspec import Meta

from booking_core.limits import (
    CONTROL_CHARACTERS,
    DATE_FORMAT,
    DATETIME_FORMAT,
    DATETIME_PATTERN,
    DEFAULT_PAGE_SIZE,
    IDEMPOTENCY_KEY_PATTERN,
    INT64_MAX,
    INT64_MIN,
    MAX_EMAIL,
    MAX_EXTERNAL_ID,
    MAX_IDEMPOTENCY_KEY,
    MAX_NAME,
    MAX_NOTES,
    MAX_PAGE_SIZE,
    MAX_PASSWORD,
    MIN_PASSWORD,
    MULTI_LINE_PATTERN,
    ONE_LINE_PATTERN,
)

# Litestar writes numeric bounds as floats (2**63 - 1 would read 9.223372036854776e18) and reads
# only title, description, examples and "extra" from a ``Meta``'s ``extra_json_schema``: "extra" is
# copied onto the OpenAPI schema as it stands.
_INT64_SCHEMA: dict[str, Any] = {"minimum": INT64_MIN, "maximum": INT64_MAX}
#: Integers of paths and queries are written in digits alone (``strict_input``): never negative.
_DIGITS_SCHEMA: dict[str, Any] = {"minimum": 0, "maximum": INT64_MAX}


def _one_of(*choices: str | None) -> dict[str, Any]:
    """The choices of a string, for the document (the use case checks them and names them)."""
    return {"enum": list(choices), "extra": {"enum": list(choices)}}


# --------------------------------------------------------------------------- body fields
# Names and ids are one line; notes may break lines. Neither holds other control characters.
Notes = Annotated[str, Meta(max_length=MAX_NOTES, pattern=MULTI_LINE_PATTERN)]
PersonName = Annotated[str, Meta(max_length=MAX_NAME, pattern=ONE_LINE_PATTERN)]
Email = Annotated[str, Meta(max_length=MAX_EMAIL)]
ExternalId = Annotated[str, Meta(min_length=1, max_length=MAX_EXTERNAL_ID, pattern=ONE_LINE_PATTERN)]
NewPassword = Annotated[str, Meta(min_length=MIN_PASSWORD, max_length=MAX_PASSWORD)]
#: At login any length up to the maximum: a short guess is simply wrong.
Password = Annotated[str, Meta(max_length=MAX_PASSWORD)]
Int64 = Annotated[int, Meta(ge=INT64_MIN, le=INT64_MAX, extra_json_schema={"extra": _INT64_SCHEMA})]
Datetime = Annotated[
    str,
    Meta(
        pattern=DATETIME_PATTERN,
        description=f"ISO 8601: {DATETIME_FORMAT}",
        examples=["2026-06-03T10:00:00+02:00"],
    ),
]
#: Checked by the use case, which names the choices in its message; null means the default.
Language = Annotated[str, Meta(max_length=2, extra_json_schema=_one_of("de", "en", None))]
CancelReason = Annotated[
    str, Meta(max_length=20, extra_json_schema=_one_of("user_request", "weather", "other", None))
]

# --------------------------------------------------------------------------- parameters
# An optional parameter is left out, never sent as null: the document says so with a plain type.
_STRING: dict[str, Any] = {"one_of": None, "type": OpenAPIType.STRING}
_INTEGER: dict[str, Any] = {"one_of": None, "type": OpenAPIType.INTEGER}

QueryInt64 = Annotated[int | None, Parameter(ge=0, le=INT64_MAX, schema_extra=_DIGITS_SCHEMA | _INTEGER)]
#: An id in a path: one beyond the range names nothing, so it is a 404 (``errors.py``). The route
#: declares it ``{name:str}``: ``strict_input`` reads its digits, Python's ``int()`` would take ``+1``.
PathId = Annotated[int, Parameter(ge=0, le=INT64_MAX, schema_extra=_DIGITS_SCHEMA)]
QueryExternalId = Annotated[
    str | None,
    Parameter(min_length=1, max_length=MAX_EXTERNAL_ID, pattern=ONE_LINE_PATTERN, schema_extra=_STRING),
]
RequiredExternalId = Annotated[
    str, Parameter(min_length=1, max_length=MAX_EXTERNAL_ID, pattern=ONE_LINE_PATTERN)
]
QueryText = Annotated[
    str | None, Parameter(max_length=MAX_NAME, pattern=ONE_LINE_PATTERN, schema_extra=_STRING)
]
QueryBool = Annotated[bool | None, Parameter(schema_extra={"one_of": None, "type": OpenAPIType.BOOLEAN})]
#: Optional to Litestar so that the use case answers a missing date with its own message; the
#: document says what a caller must send.
QueryDate = Annotated[
    str | None,
    Parameter(
        required=True,
        description=f"{DATE_FORMAT}; end_date at most 31 days after start_date",
        examples=[Example(summary="a date", value="2026-06-03")],
        schema_extra=_STRING,
    ),
]
Limit = Annotated[
    int,
    Parameter(
        ge=1, le=MAX_PAGE_SIZE, description=f"page size, default {DEFAULT_PAGE_SIZE}, at most {MAX_PAGE_SIZE}"
    ),
]
Offset = Annotated[
    int,
    Parameter(ge=0, le=INT64_MAX, schema_extra={"maximum": INT64_MAX}, description="items to skip"),
]
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        max_length=MAX_IDEMPOTENCY_KEY,
        pattern=IDEMPOTENCY_KEY_PATTERN,
        description=(
            f"1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters, unique per request; a retry with the "
            "same key and body replays the first answer (with `Idempotent-Replayed: true`)"
        ),
        schema_extra=_STRING,
    ),
]

#: What a value failing a pattern should have looked like.
MESSAGES = {
    DATETIME_PATTERN: f"Enter {DATETIME_FORMAT}.",
    IDEMPOTENCY_KEY_PATTERN: f"Must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters.",
    ONE_LINE_PATTERN: CONTROL_CHARACTERS,
    MULTI_LINE_PATTERN: CONTROL_CHARACTERS,
}
