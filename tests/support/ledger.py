"""What the database holds about bookings, and the check that every race test ends with: it all agrees.

For each booking, its status, its payments' statuses, its refund requests, its commission records
(what they sum to, correcting records included) and its outbox rows must tell one story; and no two
bookings that block time overlap.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import text

from adapters.sqla import make_engine

TAKEN = {"succeeded", "refund_pending", "refunded"}
OWED = {"open", "paid_out"}
BLOCKING = {"pending", "confirmed", "paid"}


@dataclass
class Story:
    """Everything stored about one booking."""

    booking: dict[str, Any]
    payments: dict[str, str] = field(default_factory=dict)  # payment id -> status
    #: payments the venue keeps part of while giving the rest back (CONTRACT 9.2)
    part_kept: set[str] = field(default_factory=set)
    refund_requests: list[str] = field(default_factory=list)  # payment ids
    commissions: list[str] = field(default_factory=list)  # statuses, oldest first
    #: what the records that count (open, paid out) sum to: a refund after a payout adds a negative one
    commission_owed: Decimal = Decimal("0.00")
    notices: Counter[str] = field(default_factory=Counter)  # outbox templates

    @property
    def status(self) -> str:
        return str(self.booking["status"])


def read(url: str, booking_ids: Iterable[str] | None = None) -> dict[str, Story]:
    """The stories of ``booking_ids`` (every booking when None)."""
    engine = make_engine(url)
    try:
        with engine.connect() as db:
            rows = db.execute(text("SELECT * FROM bookings")).mappings().all()
            stories = {row["id"]: Story(booking=dict(row)) for row in rows}
            for booking_id, payment_id, status, amount, refunded, asked in db.execute(
                text("SELECT booking_id, id, status, amount, refunded_amount, refund_asked FROM payments")
            ):
                stories[booking_id].payments[payment_id] = status
                paid = Decimal(amount)
                giving_part = status == "refund_pending" and asked is not None and Decimal(asked) < paid
                if giving_part or (status == "refunded" and Decimal(refunded) < paid):
                    stories[booking_id].part_kept.add(payment_id)
            for booking_id, payment_id in db.execute(
                text("SELECT booking_id, payment_id FROM refund_requests")
            ):
                stories[booking_id].refund_requests.append(payment_id)
            for booking_id, status, amount in db.execute(
                text("SELECT booking_id, status, amount FROM commissions ORDER BY created_at, id")
            ):
                stories[booking_id].commissions.append(status)
                if status in OWED:
                    stories[booking_id].commission_owed += Decimal(amount)
            for (payload,) in db.execute(text("SELECT payload FROM outbox")):
                message = payload if isinstance(payload, dict) else json.loads(payload)
                if "booking_id" in message:
                    stories[message["booking_id"]].notices[message.get("template", "?")] += 1
    finally:
        engine.dispose()
    wanted = set(booking_ids) if booking_ids is not None else set(stories)
    return {k: v for k, v in stories.items() if k in wanted}


def assert_consistent(stories: dict[str, Story]) -> None:
    """Each story agrees with itself, and no two bookings that block time overlap."""
    for booking_id, story in stories.items():
        try:
            _agrees(story)
        except AssertionError as error:
            raise AssertionError(f"booking {booking_id}: {error}; {story}") from None
    _no_overlap(stories.values())


def _agrees(story: Story) -> None:
    status, notices = story.status, story.notices
    kept = [p for p, s in story.payments.items() if s == "succeeded"]
    taken = [p for p, s in story.payments.items() if s in TAKEN]
    assert all(count == 1 for count in notices.values()), "a notice written twice"
    assert notices["booking_paid_user"] == notices["booking_paid_operator"], "paid notices come in pairs"
    assert not notices["booking_paid_user"] or story.booking["paid_at"] is not None, "paid notice, not paid"
    assert story.commissions.count("open") <= 1, "more than one open record"
    assert len(story.refund_requests) == len(set(story.refund_requests)) <= len(taken)
    for payment_id, payment_status in story.payments.items():
        if payment_status == "refund_pending":
            assert payment_id in story.refund_requests, "refund pending but never requested"
    owed = story.commission_owed != 0
    # a venue's cancel may keep the payment, or part of it, and the commission on what it keeps
    by_venue = notices["booking_cancelled_by_venue_user"] == 1
    venue_keeps = bool(kept) or bool(story.part_kept)
    if status == "paid":
        assert len(kept) == 1, "paid without exactly one kept payment"
        assert notices["booking_paid_user"] == 1
        assert kept[0] not in story.refund_requests
        assert bool(story.commissions) == (story.booking["client_id"] is not None)
        assert story.commission_owed >= 0, "a paid booking owes the client less than nothing"
        assert not notices["booking_refunded_user"]
    elif status == "cancelled":
        assert not kept or by_venue, "cancelled but keeps a payment"
        assert not owed or (by_venue and venue_keeps), "cancelled but commission owed"
        assert not notices["booking_refunded_user"]
    elif status == "refunded":
        assert "refunded" in story.payments.values()
        assert not kept
        assert not owed or story.part_kept, "refunded in full but commission owed"
        assert notices["booking_refunded_user"] == 1
    elif status in {"pending", "confirmed"}:
        assert not taken, f"{status} with a payment taken"
        assert not owed


def _no_overlap(stories: Iterable[Story]) -> None:
    live = sorted(
        (s.booking for s in stories if s.status in BLOCKING and _holds(s.booking)),
        key=lambda b: (b["resource_id"], _utc(b["start_at"])),
    )
    for before, after in itertools.pairwise(live):
        if before["resource_id"] == after["resource_id"]:
            assert _utc(after["start_at"]) >= _utc(before["end_at"]), f"overlap: {before['id']} {after['id']}"


def _holds(booking: dict[str, Any]) -> bool:
    hold = booking["hold_expires_at"]
    return booking["status"] != "pending" or hold is None or _utc(hold) > datetime.now(UTC)


def _utc(value: Any) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)
