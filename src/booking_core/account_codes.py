"""One-time codes mailed to a user: to confirm an email address or to reset a password (CONTRACT 4.5).

A code is 8 random digits, valid for 24 hours and 5 tries. Only a hash of it is stored, salted with
the user and the purpose, so that a leaked table gives no code and one code cannot serve the other
purpose; a candidate is compared with the stored hash in constant time. A new code of the same
purpose replaces the old one.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

CODE_DIGITS = 8
CODE_LIFETIME = timedelta(hours=24)
#: Tries a code gets; the attempt that would be one more finds no code.
MAX_CODE_ATTEMPTS = 5


class CodePurpose(enum.StrEnum):
    """What a code unlocks."""

    CONFIRM_EMAIL = "confirm_email"
    RESET_PASSWORD = "reset_password"  # noqa: S105 - a purpose, not a credential


@dataclass(frozen=True, slots=True, kw_only=True)
class AccountCode:
    """The stored side of a code: its hash, when it runs out and how often it was tried."""

    user_id: str
    purpose: CodePurpose
    code_hash: str
    expires_at: datetime
    attempts: int = 0
    created_at: datetime

    def matches(self, candidate: str) -> bool:
        """True when ``candidate`` is this code (constant time in the candidate's content)."""
        return hmac.compare_digest(self.code_hash, hash_code(self.user_id, self.purpose, candidate))


def new_code() -> str:
    """A fresh code of :data:`CODE_DIGITS` random digits (leading zeros kept)."""
    return f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"


def hash_code(user_id: str, purpose: CodePurpose, code: str) -> str:
    """The stored form of ``code`` (SHA-256 over purpose, user and code)."""
    return hashlib.sha256(f"{purpose.value}:{user_id}:{code.strip()}".encode()).hexdigest()


def issue(user_id: str, purpose: CodePurpose, now: datetime) -> tuple[str, AccountCode]:
    """A new code for ``user_id``: the code to mail and the record to store."""
    code = new_code()
    record = AccountCode(
        user_id=user_id,
        purpose=purpose,
        code_hash=hash_code(user_id, purpose, code),
        expires_at=now + CODE_LIFETIME,
        created_at=now,
    )
    return code, record
