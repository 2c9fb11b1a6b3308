"""Direct users: sign up, obtain a token, log out.

Sign-up and login are throttled per client address and per email (``throttle``), then run on the
password-hashing pool (``hashing``), never on the threads that serve the other requests.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Router, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import JSONBody

from booking_core.usecases import auth
from booking_core.usecases.deps import Deps
from entrypoints.http.auth import provide_token, token_required
from entrypoints.http.hashing import hashing_pool
from entrypoints.http.openapi import LOGOUT_ANSWERS, SIGN_UP_ANSWERS, USER_ONLY
from entrypoints.http.ratelimit import forget_token
from entrypoints.http.structs.auth import CredentialsIn, Registered, RegisterIn, TokenOut
from entrypoints.http.throttle import count_attempt

AnyRequest = Request[Any, Any, Any]


@post("/register/", responses=SIGN_UP_ANSWERS)
async def register(
    request: AnyRequest, deps: NamedDependency[Deps], data: JSONBody[RegisterIn]
) -> Registered:
    """Create a user with a password; answers with the first token."""
    await count_attempt(request, "register", data.email)
    user, token = await hashing_pool(request).run(
        auth.register_user,
        deps,
        email=data.email,
        password=data.password,
        first_name=data.first_name,
        last_name=data.last_name,
        language=data.language,
    )
    return Registered(user_id=user.id, email=user.email, token=token)


@post("/token/", status_code=200, responses=SIGN_UP_ANSWERS)
async def obtain_token(
    request: AnyRequest, deps: NamedDependency[Deps], data: JSONBody[CredentialsIn]
) -> TokenOut:
    """A new token for a matching email and password."""
    await count_attempt(request, "login", data.email)
    token = await hashing_pool(request).run(auth.obtain_token, deps, email=data.email, password=data.password)
    return TokenOut(token=token)


@post(
    "/logout/",
    guards=[token_required],
    status_code=204,
    responses=LOGOUT_ANSWERS,
    security=USER_ONLY,
)
async def logout(request: AnyRequest, deps: NamedDependency[Deps]) -> None:
    """Revoke the user token this request was made with (a client's token: 403, kept)."""
    token = provide_token(request)
    await sync_to_thread(auth.logout, deps, token)
    await forget_token(request, token)


router = Router(path="/auth", route_handlers=[register, obtain_token, logout], tags=["auth"])
