"""Tokens, direct-user accounts, and who a request acts for."""

from __future__ import annotations

import hashlib
import re

from booking_core import account_codes
from booking_core.account_codes import CodePurpose
from booking_core.accounts import Actor, Language, Principal, User
from booking_core.errors import (
    AmbiguousUser,
    BadRequest,
    EmailNotConfirmed,
    MappingNotFound,
    NotAuthenticated,
    PermissionDenied,
    ValidationFailed,
)
from booking_core.limits import MAX_PASSWORD, MIN_PASSWORD
from booking_core.outbox import MailTemplate
from booking_core.ports import OutboxMessage, UnitOfWork
from booking_core.usecases.deps import Deps

# One "@"; a local part and domain labels of anything but "@", dots (in the domain), white space and
# control characters; at least two labels, so no empty label and no trailing dot ("a@b.c." is out).
_NOT_IN_ADDRESS = r"@\s\x00-\x1f\x7f-\x9f"
_EMAIL = re.compile(rf"^[^{_NOT_IN_ADDRESS}]+@[^{_NOT_IN_ADDRESS}.]+(?:\.[^{_NOT_IN_ADDRESS}.]+)+$")


_CODE_MAILS = {
    CodePurpose.CONFIRM_EMAIL: MailTemplate.CONFIRM_EMAIL,
    CodePurpose.RESET_PASSWORD: MailTemplate.PASSWORD_RESET,
}


def hash_token(token: str) -> str:
    """The stored form of an API token (tokens are random, so a plain SHA-256 suffices)."""
    return hashlib.sha256(token.encode()).hexdigest()


def normalize_email(email: str) -> str:
    """Email as stored and compared: trimmed, lower-case; raises on a malformed address.

    A valid address has one ``@``, a domain with a dot and no empty label (so no trailing dot),
    and no white space or control characters (CONTRACT 4.5).
    """
    cleaned = email.strip().lower()
    if not _EMAIL.fullmatch(cleaned):
        raise ValidationFailed("Enter a valid email address.", field="email")
    return cleaned


def check_new_password(password: str) -> None:
    """Refuse a password of the wrong length, or one of nothing but white space."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValidationFailed(
            f"Password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters long.", field="password"
        )
    if not password.strip():
        raise ValidationFailed("Password must contain a character that is not a space.", field="password")


def send_code(deps: Deps, uow: UnitOfWork, user: User, purpose: CodePurpose) -> None:
    """Store a new one-time code for ``user`` (replacing the last) and queue the mail that brings it.

    Both are written in ``uow``: the mail goes out only if the code is stored, and the other way round.
    """
    now = deps.clock.now()
    code, record = account_codes.issue(user.id, purpose, now)
    uow.account_codes.put(record)
    template = _CODE_MAILS[purpose]
    uow.outbox.add(OutboxMessage.account_email(template, user.id, code, id=deps.ids.new_id(), now=now))


def parse_language(language: str | None) -> Language:
    """``de`` (the default) or ``en``."""
    if not language:
        return Language.DE
    try:
        return Language(language)
    except ValueError:
        raise ValidationFailed("Language must be 'de' or 'en'.", field="language") from None


def register_user(
    deps: Deps, *, email: str, password: str, first_name: str = "", last_name: str = "", language: str | None
) -> tuple[User, str]:
    """Create a direct user with a password and return it with a fresh token.

    The account starts unconfirmed and gets a mail with a code to confirm it: until then its token
    answers 403 nearly everywhere (see :func:`principal_in`), so registering someone else's address
    gains nothing from what a partner later books for that person.
    """
    email = normalize_email(email)
    check_new_password(password)
    lang = parse_language(language)
    with deps.uow() as uow:
        if uow.users.get_by_email(email) is not None:
            raise ValidationFailed("A user with this email already exists.", field="email")
        now = deps.clock.now()
        user = User(
            id=deps.ids.new_id(),
            email=email,
            first_name=first_name,
            last_name=last_name,
            language=lang,
            password_hash=deps.passwords.hash(password),
            email_confirmed=False,
            created_at=now,
        )
        uow.users.add(user)
        token = deps.ids.new_token()
        uow.tokens.add(hash_token(token), Principal(user_id=user.id), now)
        send_code(deps, uow, user, CodePurpose.CONFIRM_EMAIL)
        uow.commit()
    return user, token


def obtain_token(deps: Deps, *, email: str, password: str) -> str:
    """A new token for a user whose password matches.

    Every refusal reads the same and costs one password verification, also when there is no
    such account (or it has no password): neither the answer nor its timing tells who has one.
    A malformed email is refused as such (400 keyed ``email``): it names no account anyway. An
    unconfirmed user gets a token too; it works once the address is confirmed.
    """
    with deps.uow() as uow:
        user = password_user(deps, uow, email=email, password=password)
        token = deps.ids.new_token()
        uow.tokens.add(hash_token(token), Principal(user_id=user.id), deps.clock.now())
        uow.commit()
    return token


def password_user(deps: Deps, uow: UnitOfWork, *, email: str, password: str) -> User:
    """The active user with ``email`` whose password is ``password``, read in ``uow``.

    Every refusal reads the same and costs one password verification, also when there is no
    such account (or it has no password): neither the answer nor its timing tells who has one.

    Raises:
        ValidationFailed: a malformed email (keyed ``email``), or no such user with that password.
    """
    user = uow.users.get_by_email(normalize_email(email))
    if user is None or user.password_hash is None:
        deps.passwords.verify_dummy(password)
        matches = False
    else:
        matches = deps.passwords.verify(user.password_hash, password) and user.is_active
    if not matches or user is None:
        raise ValidationFailed("Unable to log in with the provided credentials.")
    return user


def logout(deps: Deps, token: str) -> None:
    """Revoke the user token the request was made with.

    A client's service token is the partner's access as a whole; only the operator revokes it.
    """
    with deps.uow() as uow:
        if principal_in(uow, token, unconfirmed_ok=True).is_client:
            raise PermissionDenied()
        uow.tokens.revoke(hash_token(token))
        uow.commit()


def authenticate(deps: Deps, token: str | None, *, unconfirmed_ok: bool = False) -> Principal:
    """The principal behind ``token``; raises NotAuthenticated when missing or unknown.

    The token of a user whose email is not confirmed raises :class:`EmailNotConfirmed` (403),
    unless ``unconfirmed_ok`` (logout is all such a token may do).
    """
    if not token:
        raise NotAuthenticated("Authentication credentials were not provided.")
    with deps.read() as uow:
        return principal_in(uow, token, unconfirmed_ok=unconfirmed_ok)


def principal_in(uow: UnitOfWork, token: str, *, unconfirmed_ok: bool = False) -> Principal:
    """:func:`authenticate` inside an open unit of work."""
    principal = uow.tokens.principal(hash_token(token))
    if principal is None:
        raise NotAuthenticated("Invalid token.")
    if not principal.email_confirmed and not unconfirmed_ok:
        raise EmailNotConfirmed()
    return principal


def resolve_actor(
    deps: Deps,
    principal: Principal,
    *,
    user_id: str | None,
    external_user_id: str | None,
    required: bool,
) -> Actor:
    """Who the request acts for.

    A user token acts for its user. A client token acts for the user named by exactly one of
    ``user_id`` (ours) and ``external_user_id`` (the client's), who must be mapped to the client;
    naming neither, it acts for the client as a whole, which only listings accept (``required=False``).
    """
    if principal.client_id is None:
        return Actor(user_id=principal.user_id)  # no lookup, so no unit of work
    with deps.read() as uow:
        return actor_in(uow, principal, user_id=user_id, external_user_id=external_user_id, required=required)


def actor_in(
    uow: UnitOfWork,
    principal: Principal,
    *,
    user_id: str | None,
    external_user_id: str | None,
    required: bool,
) -> Actor:
    """:func:`resolve_actor` inside an open unit of work."""
    if principal.client_id is None:
        return Actor(user_id=principal.user_id)
    if user_id and external_user_id:
        raise AmbiguousUser()
    if not user_id and not external_user_id:
        if required:
            raise BadRequest("user identification required")
        return Actor(user_id=None, client_id=principal.client_id)
    if external_user_id:
        mapping = uow.user_mappings.get(principal.client_id, external_user_id)
    else:
        mapping = uow.user_mappings.for_user(principal.client_id, user_id or "")
    if mapping is None or not mapping.is_active:
        raise MappingNotFound(
            "no user found for that external_id" if external_user_id else "no user found for that user id"
        )
    return Actor(user_id=mapping.user_id, client_id=principal.client_id, external_user_id=mapping.external_id)
