"""One-time codes by their hash (``booking_core.account_codes``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, update
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import AccountCodeRow
from booking_core.account_codes import MAX_CODE_ATTEMPTS, AccountCode, CodePurpose


@translate_errors
class SqlaAccountCodes:
    """At most one code per user and purpose (the primary key)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def put(self, code: AccountCode) -> None:
        self.delete(code.user_id, code.purpose)
        self._session.add(
            AccountCodeRow(
                user_id=code.user_id,
                purpose=code.purpose.value,
                code_hash=code.code_hash,
                attempts=code.attempts,
                expires_at=code.expires_at,
                created_at=code.created_at,
            )
        )
        self._session.flush()

    def spend_attempt(self, user_id: str, purpose: CodePurpose, *, now: datetime) -> AccountCode | None:
        # One UPDATE counts the try and reads the code back: the row stays locked until the commit,
        # so concurrent tries queue up and each sees the count of the one before.
        stmt = (
            update(AccountCodeRow)
            .where(
                AccountCodeRow.user_id == user_id,
                AccountCodeRow.purpose == purpose.value,
                AccountCodeRow.attempts < MAX_CODE_ATTEMPTS,
                AccountCodeRow.expires_at > now,
            )
            .values(attempts=AccountCodeRow.attempts + 1)
            .returning(
                AccountCodeRow.code_hash,
                AccountCodeRow.attempts,
                AccountCodeRow.expires_at,
                AccountCodeRow.created_at,
            )
        )
        row = self._session.execute(stmt).one_or_none()
        if row is None:
            return None
        return AccountCode(
            user_id=user_id,
            purpose=purpose,
            code_hash=row.code_hash,
            attempts=row.attempts,
            expires_at=row.expires_at,
            created_at=row.created_at,
        )

    def delete(self, user_id: str, purpose: CodePurpose) -> None:
        self._session.execute(
            delete(AccountCodeRow).where(
                AccountCodeRow.user_id == user_id, AccountCodeRow.purpose == purpose.value
            )
        )
