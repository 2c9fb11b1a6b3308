"""The outbox: messages written with the state change they report, delivered later by the worker.

A message names its channel by its ``kind``; the worker hands it to the notifier registered for
that kind (:class:`~booking_core.ports.Notifier`), so a new channel needs its notifier, not a new
outbox. E-mail is the first channel, ``kind="email"``: one row per recipient with
``payload={"template": T, "booking_id": ID}`` (:meth:`~booking_core.ports.OutboxMessage.email`);
the worker resolves recipient, language and content when it sends. An account email (a one-time
code) has ``{"template": T, "user_id": ID, "code": C}`` instead
(:meth:`~booking_core.ports.OutboxMessage.account_email`). A booking's email may carry
:data:`DETAIL_FIELDS` beside them: what it says that the booking no longer tells when it is sent.
A row is ``pending`` until it is ``sent``, or ``failed`` after :attr:`RetryPolicy.max_attempts`
tries (or at once when retrying cannot help). An operator may send failed rows again. Once a
message is sent its payload forgets its secrets (:data:`SECRET_FIELDS`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

#: Payload fields of a booking's email beyond template and booking: the refund decided (amount as a
#: decimal string, and its currency), the time and resource before a move (ISO 8601 instants, the
#: resource's id) and the calendar event's ``SEQUENCE`` of a move (higher than any before it).
DETAIL_FIELDS = frozenset(
    {"refund_amount", "currency", "old_start", "old_end", "old_resource_id", "sequence"}
)

#: The ``kind`` of an email message: the e-mail channel (stored rows carry it, so it never changes).
EMAIL_KIND = "email"

#: Payload fields that hold a secret (a one-time code): a message needs them until it is sent, and
#: forgets them then (:func:`without_secrets`). A failed message keeps them, for the operator's retry.
SECRET_FIELDS = frozenset({"code"})


class MailTemplate(enum.StrEnum):
    """The emails the service sends; each names its recipient and its occasion."""

    BOOKING_PAID_USER = "booking_paid_user"
    BOOKING_PAID_OPERATOR = "booking_paid_operator"
    BOOKING_CANCELLED_USER = "booking_cancelled_user"
    BOOKING_REFUNDED_USER = "booking_refunded_user"
    BOOKING_CANCELLED_BY_VENUE_USER = "booking_cancelled_by_venue_user"
    BOOKING_MOVED_USER = "booking_moved_user"
    BOOKING_BY_STAFF_USER = "booking_by_staff_user"
    CONFIRM_EMAIL = "confirm_email"
    PASSWORD_RESET = "password_reset"  # noqa: S105 - a template name, not a credential


#: Templates about a user's account (a one-time code), not about a booking.
ACCOUNT_TEMPLATES = frozenset({MailTemplate.CONFIRM_EMAIL, MailTemplate.PASSWORD_RESET})


class OutboxStatus(enum.StrEnum):
    """Where a message stands."""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxEntry:
    """A stored message with its delivery state.

    ``attempts`` counts tries begun (a claim counts one); ``due_at`` is when a pending message may
    be tried next; ``message_id`` is the id its channel sends it under (an email's ``Message-ID``),
    kept for every retry.
    """

    id: str
    kind: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    created_at: datetime
    status: OutboxStatus = OutboxStatus.PENDING
    attempts: int = 0
    due_at: datetime
    sent_at: datetime | None = None
    last_error: str | None = None
    message_id: str | None = None

    @property
    def template(self) -> str:
        """The email template named in the payload ('' when there is none)."""
        return str(self.payload.get("template") or "")

    @property
    def booking_id(self) -> str:
        """The booking the message is about ('' when there is none)."""
        return str(self.payload.get("booking_id") or "")


def without_secrets(payload: Mapping[str, Any]) -> dict[str, Any]:
    """``payload`` without its :data:`SECRET_FIELDS`: what a sent message keeps."""
    return {name: value for name, value in payload.items() if name not in SECRET_FIELDS}


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """How often and how patiently a message is tried.

    The wait before try ``n + 1`` grows exponentially from ``base`` up to ``cap``, with "equal
    jitter" (half fixed, half random) so that messages held back by one outage do not all come back
    in the same second.

    ``lease`` is how long a claimed message is left to its worker before another may take it. A
    worker starts a send only with at least three quarters of a lease of its hold on the message
    left, renewing its holds first when less is (:meth:`needs_renewal`), so one send must end within
    three quarters of a lease: the transports' timeouts bound that (SMTP: about a dozen answers of
    at most 30 s each, 6 of the 7.5 minutes).
    """

    max_attempts: int = 12
    base: timedelta = timedelta(minutes=1)
    cap: timedelta = timedelta(hours=4)
    lease: timedelta = timedelta(minutes=10)

    def delay(self, attempts: int, jitter: float) -> timedelta:
        """The wait after ``attempts`` failed tries; ``jitter`` is a random number in [0, 1)."""
        exponent = min(max(attempts - 1, 0), 32)  # 2**32 minutes is far beyond any cap
        ceiling = min(self.cap, self.base * (1 << exponent))
        fixed = ceiling / 2
        return fixed + (ceiling - fixed) * min(max(jitter, 0.0), 1.0)

    def needs_renewal(self, held_until: datetime, now: datetime) -> bool:
        """True when a hold that runs out at ``held_until`` might run out during a send begun ``now``.

        A fresh claim is good for the first sends of a batch; behind a slow transport the worker
        renews its holds every quarter of a lease, so that no batch outlasts its lease.
        """
        return held_until - now < self.lease * 3 / 4

    def gives_up(self, attempts: int) -> bool:
        """True when ``attempts`` tries are all a message gets."""
        return attempts >= self.max_attempts
