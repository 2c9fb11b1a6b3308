"""Refund requests: the service's promises to give a payment back, kept until the provider accepts."""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Protocol

from booking_core.payments import RefundRequest


class Refunds(Protocol):
    """At most one request per payment, ever; the worker sends again what the provider has not accepted."""

    def add(self, request: RefundRequest) -> bool:
        """Store a new request; False (and nothing stored) when the payment has one already."""

    def get(self, payment_id: str) -> RefundRequest | None:
        """The request of one payment."""

    def due(self, now: datetime, limit: int = 50) -> builtins.list[RefundRequest]:
        """Requests the provider has not accepted whose next attempt is due, oldest first."""

    def claim(self, payment_id: str, now: datetime, until: datetime) -> bool:
        """Take the request for one attempt, if it is due and not accepted: its next attempt moves to
        ``until`` (should the attempt never report back), so no one else sends it meanwhile."""

    def accepted(self, payment_id: str, refund_id: str | None, now: datetime) -> None:
        """The provider accepted the request (``refund_id``), or reported the refund: stop sending it."""

    def failed(self, payment_id: str, error: str, retry_at: datetime) -> None:
        """An attempt failed; send it again from ``retry_at``."""
