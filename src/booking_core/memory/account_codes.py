"""The in-memory one-time codes, keyed by user and purpose."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from booking_core.account_codes import MAX_CODE_ATTEMPTS, AccountCode, CodePurpose
from booking_core.memory._renamed import old_name


class InMemoryAccountCodes:
    """Codes by (user id, purpose); the store's lock makes each try one atomic step."""

    def __init__(self, rows: dict[tuple[str, CodePurpose], AccountCode]) -> None:
        self._rows = rows

    def put(self, code: AccountCode) -> None:
        self._rows[(code.user_id, code.purpose)] = code

    def spend_attempt(self, user_id: str, purpose: CodePurpose, *, now: datetime) -> AccountCode | None:
        code = self._rows.get((user_id, purpose))
        if code is None or code.expires_at <= now or code.attempts >= MAX_CODE_ATTEMPTS:
            return None
        counted = replace(code, attempts=code.attempts + 1)
        self._rows[(user_id, purpose)] = counted
        return counted

    def delete(self, user_id: str, purpose: CodePurpose) -> None:
        self._rows.pop((user_id, purpose), None)


#: The name before ``InMemory*`` (deprecated, for one release).
_RENAMED: dict[str, type] = {"MemoryAccountCodes": InMemoryAccountCodes}


def __getattr__(name: str) -> type:
    return old_name(__name__, name, _RENAMED)
