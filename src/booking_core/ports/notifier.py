"""The port of one notification channel: what the worker hands each outbox message to, by ``kind``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from booking_core.outbox import OutboxEntry
from booking_core.ports.unit_of_work import UnitOfWork


class Notifier(Protocol):
    """Delivers the outbox messages of one channel (one ``kind``) to the people they name."""

    def delivery_id(self, outbox_id: str) -> str:
        """The id the message ``outbox_id`` goes out under, the same on every try (an email's
        ``Message-ID``), so that a recipient can recognise a message sent twice."""

    def deliver(self, entry: OutboxEntry, *, delivery_id: str, read: Callable[[], UnitOfWork]) -> str | None:
        """Send ``entry`` once, resolving what its payload names through ``read`` (a unit of work
        for reading only, never committed).

        Returns None when the message went out, or why there was nobody to send it to (the message
        is then settled as skipped). Raises :class:`~booking_core.errors.DeliveryFailed` when it did
        not go out; ``permanent`` on that error says whether trying again could help.
        """


#: The notifier of each outbox ``kind``, as the composition root registers them.
Notifiers = Mapping[str, Notifier]
