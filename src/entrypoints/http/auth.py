"""Who is calling: ``Authorization: Token <t>`` and the client-mode user headers.

The web side of the :class:`~booking_core.ports.identity.Authenticator` port: the headers become
:class:`Credentials`, and what the port answers becomes the request's own bookkeeping. Guards
authenticate every request before its body is read, so a bad token gets 401 whatever else is wrong
with the request. Once the token is found valid the guard keeps its principal in the request's
state (for the handlers and the exception handler's client-mode error shapes) and has the rate
limit count the request on the token's key. Whom the request acts for is worked out by the handler
(:func:`acting_user`, in its worker thread: a client's user is looked up).
"""

from __future__ import annotations

from typing import Any

from litestar.concurrency import sync_to_thread
from litestar.connection import ASGIConnection, Request
from litestar.handlers import BaseRouteHandler

from booking_core.accounts import Actor, Principal
from booking_core.errors import NotAuthenticated, PermissionDenied, ValidationFailed
from booking_core.limits import CONTROL_CHARACTERS, MAX_EXTERNAL_ID, control_character
from booking_core.ports.identity import Authenticator, Credentials
from booking_core.usecases.deps import Deps
from entrypoints.http.ratelimit import count_valid_token

#: Application state key of the :class:`Authenticator`.
AUTHENTICATOR_STATE = "authenticator"
_PRINCIPAL = "principal"
_TOKEN = "token"  # noqa: S105 - a state key, not a credential
#: Route ``opt`` key: the token of a user who has not confirmed their email yet may call it (logout).
ALLOWS_UNCONFIRMED = "allows_unconfirmed"
USER_ID_HEADER = "X-User-ID"
EXTERNAL_USER_ID_HEADER = "X-User-External-ID"
NOT_PROVIDED = "Authentication credentials were not provided."


def token_from_header(value: str | None) -> str | None:
    """The token of an ``Authorization: Token <t>`` header; None when absent or another scheme."""
    if value is None:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "token":
        return None
    token = token.strip()
    if not token:
        raise NotAuthenticated("Invalid token header. No credentials provided.")
    if " " in token:
        raise NotAuthenticated("Invalid token header. Token string should not contain spaces.")
    return token


def deps_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Deps:
    """The use cases' dependencies, kept on the application's state."""
    deps: Deps = connection.app.state.deps
    return deps


def authenticator_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Authenticator:
    """The application's :class:`Authenticator`."""
    authenticator: Authenticator = connection.app.state[AUTHENTICATOR_STATE]
    return authenticator


async def _authenticate(
    connection: ASGIConnection[Any, Any, Any, Any], *, required: bool, unconfirmed_ok: bool = False
) -> None:
    token = token_from_header(connection.headers.get("authorization"))
    if token is None:
        if required:
            raise NotAuthenticated(NOT_PROVIDED)
        return
    authenticator = authenticator_of(connection)
    principal = await sync_to_thread(
        authenticator.principal, Credentials(token=token), unconfirmed_ok=unconfirmed_ok
    )
    connection.state[_PRINCIPAL] = principal
    connection.state[_TOKEN] = token
    await count_valid_token(connection)  # the rate limit counted it on the address until now


async def optional_token(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard of the browsing endpoints: no token needed, but one that is sent must be valid."""
    await _authenticate(connection, required=False)


async def token_required(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Guard: a valid user or client token (401 otherwise).

    The token of a user whose email is not confirmed gets 403, except on a handler marked with
    ``ALLOWS_UNCONFIRMED``.
    """
    await _authenticate(connection, required=True, unconfirmed_ok=bool(handler.opt.get(ALLOWS_UNCONFIRMED)))


async def client_token_required(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard of the client API: a valid client token; a user token gets 403."""
    await _authenticate(connection, required=True)
    if not connection.state[_PRINCIPAL].is_client:
        raise PermissionDenied()


def principal_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal | None:
    """The authenticated caller, if the request sent a valid token."""
    principal: Principal | None = connection.state.get(_PRINCIPAL)
    return principal


def is_client_request(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """True when the request was made with a client token."""
    principal = principal_of(connection)
    return principal is not None and principal.is_client


def provide_principal(request: Request[Any, Any, Any]) -> Principal:
    """The caller of a request behind one of the token guards (401 when there is none)."""
    principal = principal_of(request)
    if principal is None:
        raise NotAuthenticated(NOT_PROVIDED)
    return principal


def provide_token(request: Request[Any, Any, Any]) -> str:
    """The token the request was authenticated with (401 when there is none)."""
    token: str | None = request.state.get(_TOKEN)
    if token is None:
        raise NotAuthenticated(NOT_PROVIDED)
    return token


def acting_user(request: Request[Any, Any, Any], *, required: bool = True) -> Actor:
    """The user a request acts for; call it from the handler's worker thread (a client's user is read).

    A user token acts for its user. A client names one with a user header; ``required=False`` (reads)
    lets a client without a header see all of its own bookings.
    """
    user_id, external_user_id = user_headers(request)
    credentials = Credentials(
        token=provide_token(request), user_id=user_id, external_user_id=external_user_id
    )
    return authenticator_of(request).actor(provide_principal(request), credentials, user_required=required)


def user_headers(request: Request[Any, Any, Any]) -> tuple[str | None, str | None]:
    """The ``X-User-ID`` and ``X-User-External-ID`` headers; a value too long to name anyone, or with a
    control character, is a 400."""
    found = {name: request.headers.get(name) or None for name in (USER_ID_HEADER, EXTERNAL_USER_ID_HEADER)}
    for name, value in found.items():
        if value is not None and len(value) > MAX_EXTERNAL_ID:
            raise ValidationFailed(
                f"Ensure this field has no more than {MAX_EXTERNAL_ID} characters.", field=name
            )
        if value is not None and control_character(value) is not None:
            raise ValidationFailed(CONTROL_CHARACTERS, field=name)
    return found[USER_ID_HEADER], found[EXTERNAL_USER_ID_HEADER]
