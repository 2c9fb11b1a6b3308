"""The one place where errors become HTTP responses.

Domain errors map to the statuses and bodies of the interface (section 7) and the contract (section 4);
Litestar's own errors (bad JSON, wrong types, unknown routes, oversized bodies, rate limit) become 4xx
JSON bodies in the same shapes. Anything else is a 500 with a generic body; the traceback goes to the
log only. Mapping an error does no I/O: the guards have checked the token before anything else could
fail (``auth``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import msgspec
from litestar import MediaType, Request, Response
from litestar.exceptions import (
    HTTPException,
    MethodNotAllowedException,
    NotFoundException,
    TooManyRequestsException,
    ValidationException,
)
from litestar.exceptions.http_exceptions import RequestEntityTooLarge

from booking_core.errors import (
    AmbiguousUser,
    BadRequest,
    DomainError,
    EmailNotConfirmed,
    Forbidden,
    IdempotencyConflict,
    MappingNotFound,
    NotAuthenticated,
    NotFound,
    PaymentProviderError,
    PermissionDenied,
    SlotUnavailable,
    StorageUnavailable,
    TooManyUnpaid,
    ValidationFailed,
)
from booking_core.usecases.operator_blocks import BlockOverlapsBookings
from entrypoints.http.auth import EXTERNAL_USER_ID_HEADER, USER_ID_HEADER, is_client_request
from entrypoints.http.structs.operator_blocks import conflict_body
from entrypoints.http.validation import field_errors, names_nothing, query_error

log = logging.getLogger(__name__)

PERMISSION_DENIED = "You do not have permission to perform this action."
NOT_FOUND = "Not found."
AMBIGUOUS_USER = f"send exactly one of {USER_ID_HEADER} or {EXTERNAL_USER_ID_HEADER}"

Body = Mapping[str, Any]


def _domain(request: Request[Any, Any, Any], exc: DomainError) -> tuple[int, Body]:
    """Status and body of a domain error; subclasses are tested before their bases."""
    match exc:
        case NotAuthenticated():
            return 401, {"detail": exc.message}
        case Forbidden():
            return 403, {"error": exc.message}
        case EmailNotConfirmed():
            return 403, {"detail": exc.message}
        case PermissionDenied():
            return 403, {"detail": PERMISSION_DENIED}
        case MappingNotFound():
            return 404, {"error": exc.message}
        case NotFound():
            return 404, {"detail": NOT_FOUND}
        case SlotUnavailable() | TooManyUnpaid() if is_client_request(request):
            return 400, {"error": exc.message}
        case ValidationFailed():
            return 400, {k: list(v) for k, v in exc.errors.items()}
        case AmbiguousUser():
            return 400, {"error": AMBIGUOUS_USER}
        case BadRequest():
            return 400, {"error": exc.message}
        case BlockOverlapsBookings():
            return 409, msgspec.to_builtins(conflict_body(exc))
        case IdempotencyConflict():
            return 422, {"error": exc.message}
        case PaymentProviderError():
            log.error("payment provider failed: %s", exc.message)
            return 500, {"error": exc.message}
        case StorageUnavailable():
            log.error("storage unavailable: %s", exc.message)
            return 503, {"error": "service temporarily unavailable, please retry"}
    log.error("unmapped domain error %s: %s", type(exc).__name__, exc.message)
    return 400, {"error": exc.message}


def _http(exc: HTTPException) -> tuple[int, Body, dict[str, str]]:
    """Status, body and headers of Litestar's own errors."""
    headers = dict(exc.headers or {})
    match exc:
        case ValidationException() if names_nothing(exc):
            return 404, {"detail": NOT_FOUND}, headers
        case ValidationException() if refused := query_error(exc):
            return 400, {"error": refused}, headers
        case ValidationException():
            return 400, field_errors(exc), headers
        case NotFoundException():
            return 404, {"detail": NOT_FOUND}, headers
        case MethodNotAllowedException():
            return 405, {"detail": "Method not allowed."}, headers
        case RequestEntityTooLarge():
            return 413, {"detail": "Request body too large (at most 1 MiB)."}, headers
        case TooManyRequestsException():
            wait = max(1, int(headers.get("Retry-After") or headers.get("RateLimit-Reset") or 60))
            headers["Retry-After"] = str(wait)
            return 429, {"detail": f"Request was throttled. Expected available in {wait} seconds."}, headers
    if exc.status_code >= 500:
        log.error("HTTP %s: %s", exc.status_code, exc.detail)
        return exc.status_code, {"error": "internal server error"}, headers
    # e.g. malformed JSON: Litestar's ClientException carries msgspec's parse error
    return exc.status_code, {"detail": exc.detail}, headers


def handle_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """The application's only exception handler."""
    headers: dict[str, str] = {}
    if isinstance(exc, DomainError):
        status, body = _domain(request, exc)
        if status == 401:
            headers["WWW-Authenticate"] = "Token"
    elif isinstance(exc, HTTPException):
        status, body, headers = _http(exc)
    else:
        log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        status, body = 500, {"error": "internal server error"}
    return Response(content=body, status_code=status, headers=headers, media_type=MediaType.JSON)
