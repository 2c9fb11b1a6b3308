"""Direct users: registration, token and logout bodies."""

from __future__ import annotations

import msgspec

from entrypoints.http.structs.fields import Email, Language, NewPassword, Password, PersonName


class RegisterIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /auth/register/``."""

    email: Email
    password: NewPassword
    first_name: PersonName = ""
    last_name: PersonName = ""
    language: Language | None = None


class Registered(msgspec.Struct, kw_only=True):
    """A new user and their first token."""

    user_id: str
    email: str
    token: str


class CredentialsIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /auth/token/``."""

    email: Email
    password: Password


class TokenOut(msgspec.Struct, kw_only=True):
    """A fresh API token, shown once."""

    token: str
