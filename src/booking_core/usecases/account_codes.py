"""Email confirmation and password reset with the one-time codes the service mails (CONTRACT 4.5).

Asking for a code answers the same whether or not the account exists. Trying a code counts one
attempt first, in its own step, and commits it whatever the outcome, so a wrong code costs a try
even when the request fails. Answers to a refused code (400 ``{"error": ...}``):

- :data:`CODE_WRONG`: there is a code, and this is not it (a try is used up; after the fifth the
  code is gone);
- :data:`CODE_GONE`: there is no code to try: none was sent, it expired (24 hours), it was used,
  replaced by a newer one or tried five times, or there is no such account.
"""

from __future__ import annotations

import enum
from dataclasses import replace

from booking_core.account_codes import MAX_CODE_ATTEMPTS, CodePurpose
from booking_core.accounts import User
from booking_core.errors import BadRequest
from booking_core.ports import UnitOfWork
from booking_core.usecases.auth import check_new_password, normalize_email, send_code
from booking_core.usecases.deps import Deps

CODE_WRONG = "The code is not correct."
CODE_GONE = "The code has expired or is used up; ask for a new one."


class _Try(enum.Enum):
    MATCHED = enum.auto()
    WRONG = enum.auto()
    GONE = enum.auto()


def resend_confirmation(deps: Deps, *, email: str) -> None:
    """Mail a new confirmation code (replacing the last) if ``email`` is an unconfirmed account."""
    email = normalize_email(email)
    with deps.uow() as uow:
        user = uow.users.get_by_email(email)
        if user is None or user.email_confirmed or not user.is_active:
            return
        send_code(deps, uow, user, CodePurpose.CONFIRM_EMAIL)
        uow.commit()


def confirm_email(deps: Deps, *, email: str, code: str) -> None:
    """Confirm the address of the account ``email`` with the code mailed to it."""
    email = normalize_email(email)
    with deps.uow() as uow:
        user = uow.users.get_by_email(email)
        outcome = _try_code(deps, uow, user, CodePurpose.CONFIRM_EMAIL, code)
        if user is not None and outcome is _Try.MATCHED:
            uow.users.update(replace(user, email_confirmed=True))
        uow.commit()
    _refuse_unless_matched(outcome)


def request_password_reset(deps: Deps, *, email: str) -> None:
    """Mail a password reset code if ``email`` is an active account; silent otherwise."""
    email = normalize_email(email)
    with deps.uow() as uow:
        user = uow.users.get_by_email(email)
        if user is None or not user.is_active:
            return
        send_code(deps, uow, user, CodePurpose.RESET_PASSWORD)
        uow.commit()


def reset_password(deps: Deps, *, email: str, code: str, password: str) -> None:
    """Set a new password with the reset code mailed to ``email``.

    The address is then confirmed too (the code came through it), and every token of the user is
    revoked: whoever held one must log in with the new password.
    """
    email = normalize_email(email)
    check_new_password(password)
    password_hash = deps.passwords.hash(password)  # before the transaction: it takes a while
    with deps.uow() as uow:
        user = uow.users.get_by_email(email)
        outcome = _try_code(deps, uow, user, CodePurpose.RESET_PASSWORD, code)
        if user is not None and outcome is _Try.MATCHED:
            uow.users.update(replace(user, password_hash=password_hash, email_confirmed=True))
            uow.account_codes.delete(user.id, CodePurpose.CONFIRM_EMAIL)
            uow.tokens.revoke_all(user.id, deps.clock.now())
        uow.commit()
    _refuse_unless_matched(outcome)


def _try_code(deps: Deps, uow: UnitOfWork, user: User | None, purpose: CodePurpose, code: str) -> _Try:
    """Spend one attempt of the user's code on ``code``; a matched or exhausted code is deleted."""
    if user is None or not user.is_active:
        return _Try.GONE
    stored = uow.account_codes.spend_attempt(user.id, purpose, now=deps.clock.now())
    if stored is None:
        return _Try.GONE
    if stored.matches(code):
        uow.account_codes.delete(user.id, purpose)
        return _Try.MATCHED
    if stored.attempts >= MAX_CODE_ATTEMPTS:
        uow.account_codes.delete(user.id, purpose)
    return _Try.WRONG


def _refuse_unless_matched(outcome: _Try) -> None:
    if outcome is _Try.WRONG:
        raise BadRequest(CODE_WRONG)
    if outcome is _Try.GONE:
        raise BadRequest(CODE_GONE)
