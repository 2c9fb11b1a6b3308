"""Who is calling: ``Authorization: Token <t>`` and the client-mode user headers.

Guards authenticate before the body is read, so an anonymous request is answered 401 whatever it
sends. The principal is kept in the request's state, where the dependencies below and the exception
handler (client-mode error shapes) find it.
"""

from __future__ import annotations

from typing import Any

from litestar.concurrency import sync_to_thread
from litestar.connection import ASGIConnection, Request
from litestar.handlers import BaseRouteHandler

from booking_core.accounts import Actor, Principal
from booking_core.errors import NotAuthenticated, PermissionDenied, ValidationFailed
from booking_core.limits import CONTROL_CHARACTERS, MAX_EXTERNAL_ID, control_character
from booking_core.usecases.auth import TokenCaller, authenticate, resolve_actor
from booking_core.usecases.deps import Deps
from entrypoints.http.ratelimit import count_valid_token, counted_on_token

_PRINCIPAL = "principal"
_TOKEN = "token"  # noqa: S105 - a state key, not a credential
_UNCHECKED = "token_unchecked"
#: Route ``opt`` key: the handler checks the token itself, inside its use case's transaction.
CHECKS_TOKEN_ITSELF = "checks_token_itself"  # noqa: S105 - an option name, not a credential
#: Route ``opt`` key: the token of a user who has not confirmed their email yet may call it (logout).
ALLOWS_UNCONFIRMED = "allows_unconfirmed"
USER_ID_HEADER = "X-User-ID"
EXTERNAL_USER_ID_HEADER = "X-User-External-ID"


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


def _identified(connection: ASGIConnection[Any, Any, Any, Any], token: str, principal: Principal) -> None:
    """Remember who the request's valid token belongs to."""
    connection.state[_PRINCIPAL] = principal
    connection.state[_TOKEN] = token


async def _authenticate(
    connection: ASGIConnection[Any, Any, Any, Any], *, required: bool, unconfirmed_ok: bool = False
) -> None:
    token = token_from_header(connection.headers.get("authorization"))
    if token is None and not required:
        return
    principal = await sync_to_thread(authenticate, deps_of(connection), token, unconfirmed_ok=unconfirmed_ok)
    _identified(connection, token or "", principal)
    await count_valid_token(connection)  # the rate limit counted it on the address until now


async def optional_token(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard of the browsing endpoints: no token needed, but one that is sent must be valid."""
    await _authenticate(connection, required=False)


async def token_required(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Guard: a valid user or client token (401 otherwise).

    A handler marked with ``CHECKS_TOKEN_ITSELF`` gets the token unchecked: its use case looks it up
    in its own transaction, which saves a connection and a thread hand-off. Until the token is found
    valid, any error response checks it first (``errors.handle_exception``), so a bad token still
    gets 401 whatever else is wrong with the request. A token the rate limit has not counted on its
    own key yet is checked here all the same, so that it is counted before the handler runs. The
    token of a user whose email is not confirmed gets 403, except on a handler marked with
    ``ALLOWS_UNCONFIRMED``.
    """
    if not handler.opt.get(CHECKS_TOKEN_ITSELF) or not counted_on_token(connection):
        unconfirmed_ok = bool(handler.opt.get(ALLOWS_UNCONFIRMED))
        await _authenticate(connection, required=True, unconfirmed_ok=unconfirmed_ok)
        return
    token = token_from_header(connection.headers.get("authorization"))
    if token is None:
        raise NotAuthenticated("Authentication credentials were not provided.")
    connection.state[_TOKEN] = token
    connection.state[_UNCHECKED] = True


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
        raise NotAuthenticated("Authentication credentials were not provided.")
    return principal


def provide_token(request: Request[Any, Any, Any]) -> str:
    """The token the request was authenticated with (401 when there is none)."""
    token: str | None = request.state.get(_TOKEN)
    if token is None:
        raise NotAuthenticated("Authentication credentials were not provided.")
    return token


def token_unchecked(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """True while the request's token has not been looked up yet (see ``token_required``)."""
    return bool(connection.state.get(_UNCHECKED)) and principal_of(connection) is None


def settle_token_check(connection: ASGIConnection[Any, Any, Any, Any]) -> None:
    """Note that the request's token check is over (found valid, refused, or impossible)."""
    connection.state[_UNCHECKED] = False


def check_token(request: Request[Any, Any, Any], deps: Deps) -> Principal:
    """Look the request's token up now (in a worker thread) and remember its principal."""
    principal = principal_of(request)
    if principal is None:
        token = request.state.get(_TOKEN)
        principal = authenticate(deps, token)
        _identified(request, token, principal)
    return principal


def token_caller(request: Request[Any, Any, Any]) -> TokenCaller:
    """The caller for a use case that authenticates the token in its own transaction."""
    token: str = request.state[_TOKEN]
    user_id, external_user_id = user_headers(request)
    return TokenCaller(
        token=token,
        user_id=user_id,
        external_user_id=external_user_id,
        on_identified=lambda principal: _identified(request, token, principal),
    )


def acting_user(request: Request[Any, Any, Any], deps: Deps, *, required: bool = True) -> Actor:
    """The user a request acts for; call it from the handler's worker thread (a client's lookup reads).

    A user token acts for its user. A client names one with a user header; ``required=False`` (reads)
    lets a client without a header see all of its own bookings.
    """
    user_id, external_user_id = user_headers(request)
    return resolve_actor(  # a user token acts for its user without a lookup
        deps,
        provide_principal(request),
        user_id=user_id,
        external_user_id=external_user_id,
        required=required,
    )


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
