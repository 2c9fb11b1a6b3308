"""Sign-in, sign-out and the language of the pages (CONTRACT 8).

Sign-in checks the password as ``POST /auth/token/`` does, under the same throttle of section 4.5
(per client address and per email, shared with the API's login), on the password-hashing threads.
A user without a staff role is told so and gets no session.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post
from litestar.di import NamedDependency
from litestar.exceptions import TooManyRequestsException
from litestar.response import Redirect, Template

from booking_core.errors import PermissionDenied, ValidationFailed
from booking_core.usecases.deps import Deps
from booking_core.usecases.staff import sign_in_staff
from entrypoints.console.i18n import supported
from entrypoints.console.pages import HOME, LOGIN, ConsoleError, page
from entrypoints.console.session import set_language, sign_in, sign_out
from entrypoints.http.hashing import hashing_pool
from entrypoints.http.throttle import count_attempt


@get("/login", name="console_login")
async def login_form(request: Request[Any, Any, Any]) -> Template:
    """The sign-in form."""
    return page(request, "login.html", email="", problem=None)


async def _form(request: Request[Any, Any, Any]) -> dict[str, str]:
    form = await request.form()
    return {key: value for key, value in form.items() if isinstance(value, str)}


@post("/login", status_code=303)
async def login(request: Request[Any, Any, Any], deps: NamedDependency[Deps]) -> Template | Redirect:
    """Check the email and password of a member of staff; on success open a session."""
    form = await _form(request)
    email, password = form.get("email", ""), form.get("password", "")
    try:
        await count_attempt(request, "login", email)
        staff = await hashing_pool(request).run(sign_in_staff, deps, email=email, password=password)
    except TooManyRequestsException as exc:
        return page(request, "login.html", email=email, problem="throttled", status=429, headers=exc.headers)
    except ValidationFailed:
        return page(request, "login.html", email=email, problem="credentials", status=400)
    except PermissionDenied:
        return page(request, "login.html", email=email, problem="not_staff", status=403)
    sign_in(request, staff)
    return Redirect(HOME, status_code=303)


@post("/logout", status_code=303)
async def logout(request: Request[Any, Any, Any]) -> Redirect:
    """End the session."""
    sign_out(request)
    return Redirect(LOGIN, status_code=303)


@post("/language", status_code=303)
async def change_language(request: Request[Any, Any, Any]) -> Redirect:
    """Speak the chosen language from now on; back to the page the form was on."""
    form = await _form(request)
    chosen = supported(form.get("language"))
    if chosen is None:
        raise ConsoleError(400, "bad_request")
    set_language(request, chosen)
    back = form.get("next", "")
    # only a page of the console itself: never an address elsewhere ("//host", "/\\host")
    safe = back.startswith("/console/") and "\\" not in back
    return Redirect(back if safe else HOME, status_code=303)


handlers = [login_form, login, logout, change_language]
