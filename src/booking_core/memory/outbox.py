"""The outbox and a mail transport in memory."""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from booking_core.errors import MailDeliveryFailed
from booking_core.memory._renamed import old_name
from booking_core.notifications import Notification
from booking_core.outbox import OutboxEntry, OutboxStatus
from booking_core.ports import OutboxMessage


class InMemoryOutbox:
    """Both sides of the outbox over a dict of entries by id (one unit of work's copy)."""

    def __init__(self, entries: dict[str, OutboxEntry]) -> None:
        self.entries = entries

    def add(self, message: OutboxMessage) -> None:
        """Queue a message, due at once."""
        self.entries[message.id] = OutboxEntry(
            id=message.id,
            kind=message.kind,
            payload=dict(message.payload),
            created_at=message.created_at,
            due_at=message.created_at,
        )

    def claim_due(self, now: datetime, *, lease: timedelta, limit: int) -> builtins.list[OutboxEntry]:
        """Due pending entries, oldest first, each with one more attempt and leased until later."""
        due = sorted(
            (e for e in self.entries.values() if e.status is OutboxStatus.PENDING and e.due_at <= now),
            key=lambda e: (e.due_at, e.id),
        )[:limit]
        claimed = [replace(e, attempts=e.attempts + 1, due_at=now + lease) for e in due]
        self.entries.update((e.id, e) for e in claimed)
        return claimed

    def _settle(self, entry: OutboxEntry, **changes: object) -> bool:
        """Change the message if the claim ``entry`` came from still stands (settling it or extending
        its lease); False when it does not."""
        current = self.entries.get(entry.id)
        if (
            current is None
            or current.attempts != entry.attempts
            or current.status is not OutboxStatus.PENDING
        ):
            return False
        self.entries[entry.id] = replace(current, **changes)  # type: ignore[arg-type]
        return True

    def extend_lease(self, entry: OutboxEntry, until: datetime) -> bool:
        """Held until ``until``, if the claim still stands."""
        return self._settle(entry, due_at=until)

    def mark_sent(
        self,
        entry: OutboxEntry,
        now: datetime,
        *,
        message_id: str | None,
        note: str | None,
        payload: Mapping[str, Any],
    ) -> bool:
        """Sent (or deliberately skipped, with a ``note``), keeping ``payload``."""
        return self._settle(
            entry,
            status=OutboxStatus.SENT,
            sent_at=now,
            message_id=message_id,
            last_error=note,
            payload=dict(payload),
        )

    def mark_retry(self, entry: OutboxEntry, due_at: datetime, *, error: str, message_id: str | None) -> bool:
        """Try again at ``due_at``."""
        return self._settle(entry, due_at=due_at, last_error=error, message_id=message_id)

    def mark_failed(self, entry: OutboxEntry, now: datetime, *, error: str, message_id: str | None) -> bool:
        """Given up."""
        return self._settle(entry, status=OutboxStatus.FAILED, last_error=error, message_id=message_id)

    def list(self, status: OutboxStatus | None, *, limit: int) -> builtins.list[OutboxEntry]:
        """Entries with ``status``, newest first."""
        found = [e for e in self.entries.values() if status is None or e.status is status]
        return sorted(found, key=lambda e: (e.created_at, e.id), reverse=True)[:limit]

    def retry(self, ids: Iterable[str] | None, now: datetime) -> int:
        """Failed entries back to pending, due now, attempts from zero."""
        wanted = None if ids is None else set(ids)
        chosen = [
            e
            for e in self.entries.values()
            if e.status is OutboxStatus.FAILED and (wanted is None or e.id in wanted)
        ]
        for e in chosen:
            self.entries[e.id] = replace(e, status=OutboxStatus.PENDING, attempts=0, due_at=now)
        return len(chosen)

    def counts(self) -> Mapping[OutboxStatus, int]:
        """Entries per status."""
        return Counter(e.status for e in self.entries.values())


@dataclass
class InMemoryMailer:
    """A mail transport that records what it sends; ``down`` makes it fail like an SMTP outage."""

    sender: str = "bookings@example.com"
    down: bool = False
    refuse: bool = False
    sent: list[tuple[Notification, str]] = field(default_factory=list)

    def send(self, notification: Notification, *, message_id: str) -> None:
        """Record the email, or fail (temporarily when ``down``, for good when ``refuse``)."""
        if self.refuse:
            raise MailDeliveryFailed("550 mailbox unavailable", permanent=True)
        if self.down:
            raise MailDeliveryFailed("connection refused")
        self.sent.append((notification, message_id))


#: The name before ``InMemory*`` (deprecated, for one release).
_RENAMED: dict[str, type] = {"FakeMailer": InMemoryMailer}


def __getattr__(name: str) -> type:
    return old_name(__name__, name, _RENAMED)
