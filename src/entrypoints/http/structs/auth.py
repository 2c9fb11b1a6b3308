"""Direct users: registration, token, logout, email confirmation and password reset bodies."""

from __future__ import annotations

from typing import Annotated

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


#: A one-time code as mailed (8 digits); anything up to 64 characters is tried and found wrong.
OneTimeCode = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class EmailIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /auth/confirm-email/resend/`` and ``POST /auth/password-reset/``."""

    email: Email


class ConfirmEmailIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /auth/confirm-email/``: the address and the code mailed to it."""

    email: Email
    code: OneTimeCode


class ResetPasswordIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /auth/password-reset/confirm/``: the address, its mailed code, the new password."""

    email: Email
    code: OneTimeCode
    password: NewPassword


class MessageOut(msgspec.Struct, kw_only=True):
    """What happened, in a sentence."""

    detail: str
