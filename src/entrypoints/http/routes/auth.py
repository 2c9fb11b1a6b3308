"""Direct users: sign up, obtain a token, log out."""

from __future__ import annotations

from typing import Any

from litestar import Request, Router, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from booking_core.usecases import auth
from booking_core.usecases.deps import Deps
from entrypoints.http.auth import provide_token, token_required
from entrypoints.http.structs.auth import CredentialsIn, Registered, RegisterIn, TokenOut


@post("/register/", sync_to_thread=True)
def register(deps: NamedDependency[Deps], data: JSONBody[RegisterIn]) -> Registered:
    """Create a user with a password; answers with the first token."""
    user, token = auth.register_user(
        deps,
        email=data.email,
        password=data.password,
        first_name=data.first_name,
        last_name=data.last_name,
        language=data.language,
    )
    return Registered(user_id=user.id, email=user.email, token=token)


@post("/token/", sync_to_thread=True, status_code=200)
def obtain_token(deps: NamedDependency[Deps], data: JSONBody[CredentialsIn]) -> TokenOut:
    """A new token for a matching email and password."""
    return TokenOut(token=auth.obtain_token(deps, email=data.email, password=data.password))


@post(
    "/logout/",
    guards=[token_required],
    sync_to_thread=True,
    status_code=204,
)
def logout(request: Request[Any, Any, Any], deps: NamedDependency[Deps]) -> None:
    """Revoke the token this request was made with."""
    auth.logout(deps, provide_token(request))


router = Router(path="/auth", route_handlers=[register, obtain_token, logout], tags=["auth"])
