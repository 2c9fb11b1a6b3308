"""Ports of the outbox's delivery side: the mail transport and the worker's view of the queue."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from booking_core.notifications import Notification
from booking_core.outbox import OutboxEntry, OutboxStatus


class Mailer(Protocol):
    """Renders and sends one email (SMTP, a directory of ``.eml`` files, the console): the e-mail
    channel's transport."""

    sender: str

    def send(self, notification: Notification, *, message_id: str) -> None:
        """Render and send one email with the given ``Message-ID``.

        Raises :class:`~booking_core.errors.MailDeliveryFailed` when it did not go out; ``permanent``
        on that error says whether trying again could help.
        """


class OutboxQueue(Protocol):
    """The worker's side of the outbox. Every change is conditional on the claim it settles."""

    def claim_due(self, now: datetime, *, lease: timedelta, limit: int) -> builtins.list[OutboxEntry]:
        """Take up to ``limit`` pending messages due at ``now``, oldest first, for one try each.

        Each claimed message counts one more attempt and is not due again until ``now + lease``, so
        no other worker takes it meanwhile; messages another transaction holds are skipped. The
        entries are returned as they are after the claim.
        """

    def extend_lease(self, entry: OutboxEntry, until: datetime) -> bool:
        """Keep the claimed message from other workers until ``until``. False when the claim was lost
        (its lease ran out and another worker took the message, or it is settled)."""

    def mark_sent(
        self,
        entry: OutboxEntry,
        now: datetime,
        *,
        message_id: str | None,
        note: str | None,
        payload: Mapping[str, Any],
    ) -> bool:
        """The claimed try succeeded; the message keeps ``payload`` from now on (its own, without
        its secrets). False when the claim was lost (another worker took over)."""

    def mark_retry(self, entry: OutboxEntry, due_at: datetime, *, error: str, message_id: str | None) -> bool:
        """The claimed try failed; try again at ``due_at``. False when the claim was lost."""

    def mark_failed(self, entry: OutboxEntry, now: datetime, *, error: str, message_id: str | None) -> bool:
        """The claimed try failed for good. False when the claim was lost."""

    def list(self, status: OutboxStatus | None, *, limit: int) -> builtins.list[OutboxEntry]:
        """Messages with ``status`` (all when None), newest first."""

    def retry(self, ids: Iterable[str] | None, now: datetime) -> int:
        """Make failed messages (those in ``ids``, or all when None) pending and due at ``now`` with a
        fresh count of attempts; returns how many."""

    def counts(self) -> Mapping[OutboxStatus, int]:
        """How many messages are in each status."""
