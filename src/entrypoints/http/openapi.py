"""What ``/schema/openapi.json`` says beyond the handlers' signatures: who may call, which headers act
for a user, every error an operation can answer, and examples.

Declarations only; the route modules pick them by name (``responses=BOOKING_ANSWERS``,
``security=CLIENT_ONLY``, ``parameters=USER_HEADERS``). The error bodies below are the ones
``errors.handle_exception`` writes: ``{"error": ...}``, ``{"detail": ...}``, or messages keyed by field
(``non_field_errors`` for rules that concern the request as a whole).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, time
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Union

import msgspec
from litestar import Litestar, Router
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import (
    Components,
    Example,
    OpenAPIHeader,
    OpenAPIResponse,
    Reference,
    Schema,
    SecurityRequirement,
    SecurityScheme,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.params import HeaderParameter
from litestar.plugins import OpenAPISchemaPlugin
from litestar.static_files import create_static_files_router
from litestar.types import Method
from litestar.typing import FieldDefinition

from booking_core.limits import MAX_EXTERNAL_ID, ONE_LINE_PATTERN
from entrypoints.http.examples import EXAMPLES

USER_TOKEN = "UserToken"  # noqa: S105 - the name of a security scheme, not a credential
CLIENT_TOKEN = "ClientToken"  # noqa: S105
STAFF_TOKEN = "StaffToken"  # noqa: S105

SECURITY_SCHEMES: dict[str, SecurityScheme] = {
    USER_TOKEN: SecurityScheme(
        type="apiKey",
        name="Authorization",
        security_scheme_in="header",
        description=(
            "`Authorization: Token <USER_TOKEN>`: a direct user's token (from `POST /api/v1/auth/token/`). "
            "The user owns the bookings made with it."
        ),
    ),
    CLIENT_TOKEN: SecurityScheme(
        type="apiKey",
        name="Authorization",
        security_scheme_in="header",
        description=(
            "`Authorization: Token <CLIENT_API_TOKEN>`: a partner client's service-account token, issued by "
            "the operator. Acting for a user, send exactly one of `X-User-External-ID` and `X-User-ID`."
        ),
    ),
    STAFF_TOKEN: SecurityScheme(
        type="apiKey",
        name="Authorization",
        security_scheme_in="header",
        description=(
            "`Authorization: Token <STAFF_USER_TOKEN>`: the token of a user holding a staff role (admin, "
            "or manager or desk at a venue), from `POST /api/v1/auth/token/`. Other tokens get 403."
        ),
    ),
}

#: Browsing: anonymous, or with a token (which must then be valid).
ANONYMOUS_OR_TOKEN: list[SecurityRequirement] = [{}, {USER_TOKEN: []}, {CLIENT_TOKEN: []}]
#: Bookings: a user token, or a client token acting for one of its users.
ANY_TOKEN: list[SecurityRequirement] = [{USER_TOKEN: []}, {CLIENT_TOKEN: []}]
CLIENT_ONLY: list[SecurityRequirement] = [{CLIENT_TOKEN: []}]
USER_ONLY: list[SecurityRequirement] = [{USER_TOKEN: []}]
#: The operator API: a staff member's user token.
STAFF_ONLY: list[SecurityRequirement] = [{STAFF_TOKEN: []}]

#: The client-mode user headers, read by ``auth.user_headers`` (which checks their length and
#: characters itself).
USER_HEADERS = {
    "x_user_external_id": HeaderParameter(
        annotation=str,
        name="X-User-External-ID",
        required=False,
        min_length=1,
        max_length=MAX_EXTERNAL_ID,
        pattern=ONE_LINE_PATTERN,
        description=(
            "Client token only: the client's own id of the user to act for (registered with "
            "`POST /api/v1/client/users/register/`). Send this or `X-User-ID`, not both. Required to create, "
            "pay or cancel; without it a client lists all bookings made through it."
        ),
        examples=[Example(summary="a partner's user id", value="partner-user-42")],
    ),
    "x_user_id": HeaderParameter(
        annotation=str,
        name="X-User-ID",
        required=False,
        min_length=1,
        max_length=MAX_EXTERNAL_ID,
        pattern=ONE_LINE_PATTERN,
        description="Client token only: the service's user id (UUID) to act for; not with the other header.",
        examples=[Example(summary="a user id", value="0b6f3c0e-7d8a-4c8e-9a55-2f1d1c9e4b7a")],
    ),
}


# --------------------------------------------------------------------------- error bodies
class ErrorBody(msgspec.Struct):
    """``{"error": message}``: a refusal of the request as a whole."""

    error: str


class DetailBody(msgspec.Struct):
    """``{"detail": message}``: authentication, permission, unknown objects, throttling, malformed input."""

    detail: str


class BookingConflict(msgspec.Struct, kw_only=True):
    """A live booking in the way of an operator's change, in the venue's local offset."""

    booking_id: str
    reference_code: str
    resource_id: int
    start_datetime: datetime
    end_datetime: datetime
    status: str


class ConflictBody(msgspec.Struct, kw_only=True):
    """``{"error": message, "conflicts": [...]}``: the change would overlap these live bookings."""

    error: str
    conflicts: list[BookingConflict]


#: ``{"field": ["message", ...]}``; ``non_field_errors`` for a rule about the request as a whole.
FieldErrors = dict[str, list[str]]
#: Its name in the document (``finish`` puts it there: Litestar names only classes).
FIELD_ERRORS = "FieldErrors"

_BAD_REQUEST_BODY = Union[FieldErrors, ErrorBody, DetailBody]  # noqa: UP007 - a runtime type for Litestar
_REFUSAL_BODY = Union[DetailBody, ErrorBody]  # noqa: UP007


def _answer(body: Any, description: str, **examples: Mapping[str, Any]) -> ResponseSpec:
    """An error answer with ``body`` (a class or a union, which Litestar writes as oneOf) and the named
    examples, in place of the ones Litestar would make up."""
    return ResponseSpec(
        body,
        generate_examples=False,
        description=description,
        examples=[
            Example(id=name, summary=name.replace("_", " "), value=dict(value))
            for name, value in examples.items()
        ],
    )


_ANSWERS: dict[int, ResponseSpec] = {
    400: _answer(
        _BAD_REQUEST_BODY,
        (
            "Bad request. Invalid body fields or headers: messages keyed by field name; an invalid query "
            "parameter: `error`, naming it. A booking rule "
            "(alignment, gaps, a taken slot): `non_field_errors`, or `error` in client-mode flows. A refusal "
            "such as a missing user header or an unpayable booking: `error`. Malformed JSON, text that is "
            "not UTF-8 or a NUL character: `detail`."
        ),
        invalid_field={"notes": ["Ensure this field has no more than 1000 characters."]},
        invalid_parameter={"error": "limit: Ensure this value is less than or equal to 1000."},
        booking_rule={"non_field_errors": ["Start time must align to the booking interval of 30 minutes."]},
        refusal={"error": "user identification required"},
        malformed={"detail": "Input data was truncated"},
    ),
    401: _answer(
        DetailBody,
        "The token is missing (where one is required), unknown or revoked.",
        missing={"detail": "Authentication credentials were not provided."},
    ),
    403: _answer(
        _REFUSAL_BODY,
        (
            "The caller may not do this: a user token on a client endpoint, a booking the caller does not "
            "own, a client's token on logout, the token of a user who has not confirmed their email "
            "address yet (`detail`); a venue mapping not approved yet (`error`)."
        ),
        forbidden={"detail": "You do not have permission to perform this action."},
        unconfirmed={"detail": "Confirm your email address first."},
        not_approved={"error": "venue mapping is not approved"},
    ),
    404: _answer(
        _REFUSAL_BODY,
        (
            "No such object for this caller (`detail`), or an external id or user header that names no "
            "mapping of the client (`error`)."
        ),
        not_found={"detail": "Not found."},
        unmapped={"error": "no user found for that external_id"},
    ),
    409: _answer(
        ConflictBody,
        "The change would overlap live bookings, listed in `conflicts`; nothing was changed.",
        overlapping_bookings={
            "error": "the block overlaps bookings",
            "conflicts": [
                {
                    "booking_id": "1cf0a098-1595-40de-9d4e-0afa984a7b9d",
                    "reference_code": "BK-7Q2M4K",
                    "resource_id": 1,
                    "start_datetime": "2026-06-03T10:00:00+02:00",
                    "end_datetime": "2026-06-03T11:00:00+02:00",
                    "status": "paid",
                }
            ],
        },
    ),
    413: _answer(
        DetailBody,
        "The request body is larger than 1 MiB.",
        too_large={"detail": "Request body too large (at most 1 MiB)."},
    ),
    422: _answer(
        ErrorBody,
        "This `Idempotency-Key` was used before with a different request.",
        key_reused={"error": "This Idempotency-Key was already used with a different request."},
    ),
    429: _answer(
        DetailBody,
        "Too many requests; `Retry-After` says how many seconds to wait.",
        throttled={"detail": "Request was throttled. Expected available in 42 seconds."},
    ),
    500: _answer(
        ErrorBody,
        "The payment provider failed; nothing was charged. Retrying later is safe.",
        provider_failed={"error": "The payment provider is unavailable."},
    ),
    503: _answer(
        ErrorBody,
        "The database does not answer right now; nothing was changed. Retry later.",
        unavailable={"error": "service temporarily unavailable, please retry"},
    ),
}


def answers(*statuses: int) -> dict[int, ResponseSpec]:
    """The error answers of ``statuses``, in order."""
    return {status: _ANSWERS[status] for status in sorted(statuses)}


#: Every ``/api/v1`` request may be refused as malformed (400), throttled (429) or meet a database
#: that does not answer (503).
_API = (400, 429, 503)
#: Every POST under ``/api/v1`` reads its body first (413 past 1 MiB).
_POST = (*_API, 413)

API_INDEX_ANSWERS = answers(400, 429)
BROWSE_ANSWERS = answers(*_API, 401, 404)
BOOKING_READ_ANSWERS = answers(*_API, 401, 403, 404)
BOOKING_WRITE_ANSWERS = answers(*_POST, 401, 403, 404)
IDEMPOTENT_WRITE_ANSWERS = answers(*_POST, 401, 403, 404, 422)
PAYMENT_ANSWERS = answers(*_POST, 401, 403, 404, 422, 500)
CLIENT_READ_ANSWERS = answers(*_API, 401, 403, 404)
CLIENT_WRITE_ANSWERS = answers(*_POST, 401, 403, 404)
SIGN_UP_ANSWERS = answers(*_POST)
LOGOUT_ANSWERS = answers(*_POST, 401, 403)
#: Requests for a mailed code: a malformed email is the only refusal besides throttling.
CODE_REQUEST_ANSWERS = answers(*_POST)
#: Redeeming a mailed code: a wrong code, or none to try, is a 400 ``error``.
CODE_ANSWERS = answers(*_POST) | {
    400: _answer(
        _BAD_REQUEST_BODY,
        (
            "Bad request. Invalid fields: messages keyed by field name. A code that is not the one mailed "
            '(each try counts, five per code): `error` "The code is not correct.". No code to try (none '
            "was sent, or it expired after 24 hours, was used, replaced by a newer one or tried five times; "
            'or no such account): `error` "The code has expired or is used up; ask for a new one.".'
        ),
        wrong_code={"error": "The code is not correct."},
        no_code={"error": "The code has expired or is used up; ask for a new one."},
        invalid_field={"email": ["Enter a valid email address."]},
    )
}
WEBHOOK_ANSWERS = answers(400, 413, 503)
#: The operator API (CONTRACT 7): reads, and changes (which may also conflict: 409).
OPERATOR_READ_ANSWERS = answers(*_API, 401, 403, 404)
OPERATOR_WRITE_ANSWERS = answers(*_POST, 401, 403, 404)
OPERATOR_CONFLICT_ANSWERS = answers(*_POST, 401, 403, 404, 409)

#: Response headers some error answers always carry.
_ERROR_HEADERS = {
    "401": {
        "WWW-Authenticate": OpenAPIHeader(
            schema=Schema(type=OpenAPIType.STRING, examples=["Token"]),
            description="`Token`: the scheme this API accepts",
            required=True,
        )
    },
    "429": {
        "Retry-After": OpenAPIHeader(
            schema=Schema(type=OpenAPIType.STRING, pattern="^[0-9]+$", examples=["42"]),
            description="seconds to wait before the next attempt",
            required=True,
        )
    },
}


# --------------------------------------------------------------------------- times of day
class TimeOfDaySchemaPlugin(OpenAPISchemaPlugin):
    """``datetime.time`` as the API writes it, ``"08:00:00"``.

    Litestar would say ``format: duration`` (ISO 8601 durations look like ``PT8H``), and JSON Schema's
    ``format: time`` demands an offset that these local times of day do not have.
    """

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        """Only ``datetime.time``."""
        return value is time

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        """A string pattern ``HH:MM:SS``, in the venue's local time."""
        return Schema(
            type=OpenAPIType.STRING,
            pattern="^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$",
            description="time of day HH:MM:SS, in the venue's local time",
            examples=["08:00:00"],
        )


# --------------------------------------------------------------------------- the document
def _operation_id(handler: HTTPRouteHandler, method: Method, path: list[Any]) -> str:
    """The handler's own name (``create_booking``), so generated clients read like the interface."""
    return handler.handler_name


def openapi_config() -> OpenAPIConfig:
    """OpenAPI 3.1 at ``/schema/openapi.json`` with an interactive page at ``/schema``.

    No document-wide ``security``: each router states who may call it.
    """
    return OpenAPIConfig(
        title="Booking service",
        version="1.0.0",
        description=(
            "Bookable resources of sports venues: browse, check availability, book, pay and cancel, "
            "directly or through a partner client.\n\n"
            "Authenticate with `Authorization: Token <token>`: a user token, or a client token plus "
            "`X-User-External-ID` (or `X-User-ID`) naming the user the request acts for. Browsing needs "
            'no token. Errors are JSON: `{"error": ...}`, `{"detail": ...}`, or messages keyed by field '
            "(`non_field_errors` for rules about the whole request). Lists are plain arrays with a "
            '`Link: <url>; rel="next"` header while more follow.'
        ),
        path="/schema",
        components=Components(security_schemes=dict(SECURITY_SCHEMES)),
        operation_id_creator=_operation_id,
        render_plugins=[_swagger_ui()],
    )


#: Where the service serves Swagger UI's own files (from the ``swagger-ui-py`` package).
SWAGGER_ASSETS = "/schema/assets"


def _swagger_ui() -> SwaggerRenderPlugin:
    """The interactive page at ``/schema``, loading its script, styles and icon from the service itself:
    it works without internet, and nobody else learns who reads the documentation."""
    return SwaggerRenderPlugin(
        path="/",
        js_url=f"{SWAGGER_ASSETS}/swagger-ui-bundle.js",
        css_url=f"{SWAGGER_ASSETS}/swagger-ui.css",
        standalone_preset_js_url=f"{SWAGGER_ASSETS}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{SWAGGER_ASSETS}/favicon-32x32.png'>",
    )


def swagger_assets() -> Router:
    """The static route of Swagger UI's distribution files, as the ``swagger-ui-py`` package ships them."""
    # found without importing the package: its __init__ loads adapters for other web frameworks
    spec = find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed")
    directory = Path(next(iter(spec.submodule_search_locations))) / "static"
    return create_static_files_router(
        path=SWAGGER_ASSETS, directories=[directory], include_in_schema=False, name="swagger_assets"
    )


def _ref(name: str) -> Reference:
    return Reference(ref=f"#/components/schemas/{name}")


def _complete(status: str, response: OpenAPIResponse) -> None:
    """Add the headers an error always carries, give documented headers their (string) schema, and
    drop the ids Litestar leaves inside named examples."""
    if status in _ERROR_HEADERS:
        response.headers = {**(response.headers or {}), **_ERROR_HEADERS[status]}
    if status == "400" and response.content:
        # one named schema for the field-keyed messages, not an inline copy per operation
        response.content["application/json"].schema = Schema(
            one_of=[_ref(FIELD_ERRORS), _ref(ErrorBody.__name__), _ref(DetailBody.__name__)]
        )
    for header in (response.headers or {}).values():
        if isinstance(header, OpenAPIHeader) and header.schema is None:  # e.g. Link, declared without a value
            header.schema = Schema(type=OpenAPIType.STRING)
    for media in (response.content or {}).values():
        for example in (media.examples or {}).values():
            if isinstance(example, Example):
                example.id = None  # already the example's key; not a field of an Example Object


def finish(app: Litestar, api_prefix: str) -> None:
    """Complete the generated document: the interface's trailing slashes, error headers and examples."""
    schema = app.openapi_schema
    if schema.paths:
        # Litestar matches a path with or without its trailing slash but documents it without one.
        schema.paths = {
            path if path.endswith("/") or not path.startswith((api_prefix, "/webhooks")) else f"{path}/": item
            for path, item in schema.paths.items()
        }
        for item in schema.paths.values():
            for operation in (item.get, item.post, item.put, item.patch, item.delete):
                for status, response in (operation.responses or {}).items() if operation else ():
                    if isinstance(response, OpenAPIResponse):
                        _complete(status, response)
    components = schema.components.schemas if schema.components else {}
    components[FIELD_ERRORS] = Schema(
        type=OpenAPIType.OBJECT,
        additional_properties=Schema(type=OpenAPIType.ARRAY, items=Schema(type=OpenAPIType.STRING)),
        description=(
            "Messages keyed by the body field (or header) they concern; `non_field_errors` for a rule "
            "about the request as a whole."
        ),
        examples=[{"start_datetime": ["This field is required."]}],
    )
    for closed in (ErrorBody.__name__, DetailBody.__name__):
        if closed in components:  # exactly one key: tells them apart from field-keyed messages
            components[closed].additional_properties = False
    for struct, example in EXAMPLES.items():
        component = components.get(struct.__name__)
        if component is not None:
            # as the struct itself: checked now, and its nulls survive (Litestar drops None from dicts)
            component.examples = [msgspec.convert(example, struct)]
