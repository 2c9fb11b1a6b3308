"""Types of body fields and parameters, carrying the bounds of :mod:`booking_core.limits`.

msgspec checks bodies against the ``Meta`` constraints and Litestar checks parameters against
``Parameter``'s, before any handler runs; both show in the OpenAPI document, and a value outside
them is a 400 keyed by the field (``validation.py`` rewords the libraries' messages, ``MESSAGES``
below says what a pattern means).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar.params import HeaderParameter, Parameter
from msgspec import Meta

from booking_core.limits import (
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
)

# --------------------------------------------------------------------------- body fields
Notes = Annotated[str, Meta(max_length=MAX_NOTES)]
PersonName = Annotated[str, Meta(max_length=MAX_NAME)]
Email = Annotated[str, Meta(max_length=MAX_EMAIL)]
ExternalId = Annotated[str, Meta(min_length=1, max_length=MAX_EXTERNAL_ID)]
NewPassword = Annotated[str, Meta(min_length=MIN_PASSWORD, max_length=MAX_PASSWORD)]
#: At login any length up to the maximum: a short guess is simply wrong.
Password = Annotated[str, Meta(max_length=MAX_PASSWORD)]
Int64 = Annotated[int, Meta(ge=INT64_MIN, le=INT64_MAX)]
Datetime = Annotated[
    str,
    Meta(
        pattern=DATETIME_PATTERN,
        description=f"ISO 8601: {DATETIME_FORMAT}",
        examples=["2026-06-03T10:00:00+02:00"],
    ),
]
#: Checked by the use case, which names the choices in its message.
Language = Annotated[str, Meta(max_length=2, extra_json_schema={"enum": ["de", "en"]})]
CancelReason = Annotated[
    str, Meta(max_length=20, extra_json_schema={"enum": ["user_request", "weather", "other"]})
]

# --------------------------------------------------------------------------- parameters
_INT64_SCHEMA: dict[str, Any] = {"minimum": INT64_MIN, "maximum": INT64_MAX}  # exact, not as floats
_INT64 = Parameter(ge=INT64_MIN, le=INT64_MAX, schema_extra=_INT64_SCHEMA)

QueryInt64 = Annotated[int | None, _INT64]
#: An id in a path: one beyond the range names nothing, so it is a 404 (``errors.py``).
PathId = Annotated[int, _INT64]
QueryExternalId = Annotated[str | None, Parameter(min_length=1, max_length=MAX_EXTERNAL_ID)]
RequiredExternalId = Annotated[str, Parameter(min_length=1, max_length=MAX_EXTERNAL_ID)]
QueryText = Annotated[str | None, Parameter(max_length=MAX_NAME)]
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
        description=f"1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters; a retry with it replays",
    ),
]

#: What a value failing a pattern should have looked like.
MESSAGES = {
    DATETIME_PATTERN: f"Enter {DATETIME_FORMAT}.",
    IDEMPOTENCY_KEY_PATTERN: f"Must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters.",
}
