"""Storage of the one-time codes mailed to users (``booking_core.account_codes``)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from booking_core.account_codes import AccountCode, CodePurpose


class AccountCodes(Protocol):
    """At most one live code per user and purpose, stored only as its hash."""

    def put(self, code: AccountCode) -> None:
        """Store ``code``, replacing any code of the same user and purpose."""

    def spend_attempt(self, user_id: str, purpose: CodePurpose, *, now: datetime) -> AccountCode | None:
        """Count one try of the user's code and return it, counted; None when there is none to try.

        There is none when no code was issued, it expired, or it has had ``MAX_CODE_ATTEMPTS``
        tries. The count is one atomic step, so concurrent tries cannot share an attempt.
        """

    def delete(self, user_id: str, purpose: CodePurpose) -> None:
        """Forget the user's code of ``purpose`` (used, or of no more use)."""
