"""The audit log: one entry per object an operator action changes (CONTRACT 7.6).

Entries are written in the transaction of the change they describe and never changed afterwards.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


class AuditAction(enum.StrEnum):
    """What an operator did."""

    BLOCK_CREATE = "block.create"
    BLOCK_DELETE = "block.delete"
    BOOKING_CREATE = "booking.create"
    BOOKING_CANCEL = "booking.cancel"
    BOOKING_MOVE = "booking.move"
    BOOKING_CHECK_IN = "booking.check_in"
    BOOKING_NO_SHOW = "booking.no_show"
    BOOKING_CONFIRM = "booking.confirm"
    BOOKING_RECORD_PAYMENT = "booking.record_payment"
    VENUE_CREATE = "venue.create"
    VENUE_UPDATE = "venue.update"
    STAFF_GRANT = "staff.grant"
    STAFF_REVOKE = "staff.revoke"
    VENUE_MAPPING_APPROVE = "venue_mapping.approve"
    VENUE_MAPPING_REJECT = "venue_mapping.reject"
    COMMISSIONS_PAYOUT = "commissions.payout"


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditActor:
    """The member of staff who acted (None on an entry stands for the command line)."""

    user_id: str
    email: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditEntry:
    """One changed object. ``details`` holds what changed, as JSON-ready values (strings, numbers)."""

    id: str
    at: datetime
    actor: AuditActor | None
    action: AuditAction
    venue_id: int | None
    object_type: str
    object_id: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditQuery:
    """Filters of the audit log's listing (newest first). ``venue_ids`` None: every venue's entries and
    those of no venue (an admin); otherwise only entries of those venues."""

    venue_ids: frozenset[int] | None = None
    since: datetime | None = None
    until: datetime | None = None
    action: AuditAction | None = None
    object_id: str | None = None
