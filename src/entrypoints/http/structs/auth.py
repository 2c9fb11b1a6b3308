"""Direct users: registration, token and logout bodies."""

from __future__ import annotations

import msgspec


class RegisterIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /auth/register/``."""

    email: str
    password: str
    first_name: str = ""
    last_name: str = ""
    language: str | None = None


class Registered(msgspec.Struct, kw_only=True):
    """A new user and their first token."""

    user_id: str
    email: str
    token: str


class CredentialsIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /auth/token/``."""

    email: str
    password: str


class TokenOut(msgspec.Struct, kw_only=True):
    """A fresh API token, shown once."""

    token: str
