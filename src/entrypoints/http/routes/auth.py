"""Direct users: sign up, obtain a token, log out, confirm the email address, reset the password.

Sign-up, login and every request for or with a mailed code are throttled per client address and
per email (``throttle``); those that hash a password run on the password-hashing pool (``hashing``),
never on the threads that serve the other requests.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Router, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import JSONBody

from booking_core.usecases import account_codes, auth
from booking_core.usecases.deps import Deps
from entrypoints.http.auth import ALLOWS_UNCONFIRMED, provide_token, token_required
from entrypoints.http.hashing import hashing_pool
from entrypoints.http.openapi import (
    CODE_ANSWERS,
    CODE_REQUEST_ANSWERS,
    LOGOUT_ANSWERS,
    SIGN_UP_ANSWERS,
    USER_ONLY,
)
from entrypoints.http.ratelimit import forget_token
from entrypoints.http.structs.auth import (
    ConfirmEmailIn,
    CredentialsIn,
    EmailIn,
    MessageOut,
    Registered,
    RegisterIn,
    ResetPasswordIn,
    TokenOut,
)
from entrypoints.http.throttle import count_attempt

AnyRequest = Request[Any, Any, Any]


@post("/register/", responses=SIGN_UP_ANSWERS)
async def register(
    request: AnyRequest, deps: NamedDependency[Deps], data: JSONBody[RegisterIn]
) -> Registered:
    """Create a user with a password; answers with the first token.

    The account starts unconfirmed: a mail brings a code for ``POST /auth/confirm-email/``, and
    until then the token answers 403 ``{"detail": "Confirm your email address first."}`` on every
    path but confirmation, resending and logout.
    """
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
    opt={ALLOWS_UNCONFIRMED: True},
)
async def logout(request: AnyRequest, deps: NamedDependency[Deps]) -> None:
    """Revoke the user token this request was made with (a client's token: 403, kept)."""
    token = provide_token(request)
    await sync_to_thread(auth.logout, deps, token)
    await forget_token(request, token)


@post("/confirm-email/", status_code=200, responses=CODE_ANSWERS)
async def confirm_email(
    request: AnyRequest, deps: NamedDependency[Deps], data: JSONBody[ConfirmEmailIn]
) -> MessageOut:
    """Confirm a self-registered account's address with the code mailed to it.

    A code has 5 tries and is valid 24 hours. 400 `{"error": "The code is not correct."}` for a
    wrong code (the try counts); 400 `{"error": "The code has expired or is used up; ask for a new
    one."}` when there is no code to try.
    """
    await count_attempt(request, "confirm-email", data.email)
    await sync_to_thread(account_codes.confirm_email, deps, email=data.email, code=data.code)
    return MessageOut(detail="Email address confirmed.")


@post("/confirm-email/resend/", status_code=202, responses=CODE_REQUEST_ANSWERS)
async def resend_confirmation(
    request: AnyRequest, deps: NamedDependency[Deps], data: JSONBody[EmailIn]
) -> MessageOut:
    """Mail a new confirmation code (the last one stops working); 202 whether or not one is sent."""
    await count_attempt(request, "confirm-email", data.email)
    await sync_to_thread(account_codes.resend_confirmation, deps, email=data.email)
    return MessageOut(detail="If this address has an account to confirm, a new code is on its way.")


@post("/password-reset/", status_code=202, responses=CODE_REQUEST_ANSWERS)
async def request_password_reset(
    request: AnyRequest, deps: NamedDependency[Deps], data: JSONBody[EmailIn]
) -> MessageOut:
    """Mail a password reset code; 202 whether or not the account exists (the answer tells nobody)."""
    await count_attempt(request, "password-reset", data.email)
    await sync_to_thread(account_codes.request_password_reset, deps, email=data.email)
    return MessageOut(detail="If this address has an account, a code to reset its password is on its way.")


@post("/password-reset/confirm/", status_code=200, responses=CODE_ANSWERS)
async def reset_password(
    request: AnyRequest, deps: NamedDependency[Deps], data: JSONBody[ResetPasswordIn]
) -> MessageOut:
    """Set a new password with the reset code mailed to the address.

    The address counts as confirmed from then on, and every token of the user is revoked. A code
    has 5 tries and is valid 24 hours; refusals as for ``confirm-email`` (400 `error`), and a
    password of 10 to 1,024 characters with one that is not a space (400 keyed `password`).
    """
    await count_attempt(request, "password-reset", data.email)
    await hashing_pool(request).run(
        account_codes.reset_password, deps, email=data.email, code=data.code, password=data.password
    )
    return MessageOut(detail="Password changed; log in with the new password.")


router = Router(
    path="/auth",
    route_handlers=[
        register,
        obtain_token,
        logout,
        confirm_email,
        resend_confirmation,
        request_password_reset,
        reset_password,
    ],
    tags=["auth"],
)
