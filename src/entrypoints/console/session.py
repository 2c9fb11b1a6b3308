"""Who is signed in to the console: a session cookie sealed with ``BOOKING_SECRET_KEY``, and CSRF tokens
signed with it (CONTRACT 8).

The session lives in the cookie itself (Litestar's cookie backend: AES-GCM, so it can be neither read
nor forged without the key), ``HttpOnly``, ``SameSite=Lax``, ``Secure`` under an ``https`` public
address. It expires 12 hours after the last page: every answer to a signed-in request writes it anew
with a fresh expiry. It holds the user's id and the language the pages speak; the staff member's roles
are read again on every page, so a role taken away counts at once. Both middlewares sit on the
console's router only: the JSON API knows neither cookie.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from litestar import Request
from litestar.config.csrf import CSRFConfig
from litestar.middleware import DefineMiddleware
from litestar.middleware.csrf import CSRFMiddleware
from litestar.middleware.session import SessionMiddleware
from litestar.middleware.session.client_side import ClientSideSessionBackend, CookieBackendConfig
from litestar.types import ASGIApp

from booking_core.errors import PermissionDenied
from booking_core.staff import Staff
from booking_core.usecases.deps import Deps
from booking_core.usecases.staff import staff_of
from entrypoints.console.i18n import negotiate, supported

PATH = "/console"
IDLE_SECONDS = 12 * 60 * 60
SESSION_COOKIE = "booking_console"
CSRF_COOKIE = "booking_console_csrf"
_USER = "user_id"
_LANGUAGE = "language"


class NotSignedIn(Exception):
    """The request has no valid session (or its user is no longer staff): on to the sign-in page."""


class _CookieSession(SessionMiddleware[ClientSideSessionBackend]):
    """Litestar's session middleware with its cookie backend, made from the configuration alone: a router
    copies its middleware's arguments when it is registered, and the backend's cipher cannot be copied."""

    def __init__(self, app: ASGIApp, config: CookieBackendConfig) -> None:
        super().__init__(app, backend=ClientSideSessionBackend(config=config))


def _derived(secret_key: str, purpose: str) -> bytes:
    """A key of its own for each use of the one secret, so neither reveals the other."""
    return hmac.new(secret_key.encode(), f"booking console {purpose}".encode(), hashlib.sha256).digest()


def console_middleware(secret_key: str, public_url: str) -> list[DefineMiddleware]:
    """The session and the CSRF check of the console's router."""
    secure = public_url.startswith("https://")
    session = CookieBackendConfig(
        secret=_derived(secret_key, "session"),
        key=SESSION_COOKIE,
        path=PATH,
        max_age=IDLE_SECONDS,
        httponly=True,
        samesite="lax",
        secure=secure,
    )
    csrf = CSRFConfig(
        secret=_derived(secret_key, "csrf").hex(),
        cookie_name=CSRF_COOKIE,
        cookie_path=PATH,
        cookie_httponly=True,
        cookie_samesite="lax",
        cookie_secure=secure,
        header_name="X-CSRF-Token",
    )
    return [DefineMiddleware(_CookieSession, config=session), DefineMiddleware(CSRFMiddleware, config=csrf)]


def sign_in(request: Request[Any, Any, Any], staff: Staff) -> None:
    """Open a session for ``staff``, in their own language."""
    request.set_session({_USER: staff.user.id, _LANGUAGE: staff.user.language.value})


def sign_out(request: Request[Any, Any, Any]) -> None:
    """End the session; the pages keep speaking its language."""
    request.set_session({_LANGUAGE: language(request)})


def set_language(request: Request[Any, Any, Any], language: str) -> None:
    """Speak ``language`` from now on in this session (signed in or not)."""
    request.set_session({**_session(request), _LANGUAGE: language})


def language(request: Request[Any, Any, Any]) -> str:
    """The session's language; before sign-in, the browser's preferred one that the console speaks."""
    return supported(_session(request).get(_LANGUAGE)) or negotiate(request.headers.get("accept-language"))


def signed_in_staff(request: Request[Any, Any, Any], deps: Deps) -> Staff:
    """The member of staff of the session, with their current roles (a database read).

    Raises:
        NotSignedIn: no session, or its user holds no staff role any more (the session is ended).
    """
    user_id = _session(request).get(_USER)
    if not isinstance(user_id, str):
        raise NotSignedIn
    try:
        return staff_of(deps, user_id)
    except PermissionDenied:
        sign_out(request)
        raise NotSignedIn from None


def _session(request: Request[Any, Any, Any]) -> dict[str, Any]:
    session = request.scope.get("session")
    return session if isinstance(session, dict) else {}
