"""What a refund does to a client's commission (CONTRACT 9.2): it follows what the venue keeps.

A booking's commission is one record when it is paid, and may gain correcting records later. The
records that count (``open`` and ``paid_out``; ``reversed`` ones do not) always sum to the commission
on the amount the venue keeps. A refund changes the booking's one ``open`` record, if it has one:
reduced to what is still owed, ``reversed`` when nothing is. Money already paid out is never taken
back from a ``paid_out`` record: a correcting record with a negative amount is added, ``open``, and
the client's next payout nets it.

The functions take the refunded amount, whatever it is: the provider's report of a partial or full
refund, or a refund chosen by the venue's staff.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from booking_core.commission import Commission, CommissionStatus, commission_amount

_COUNTED = frozenset({CommissionStatus.OPEN, CommissionStatus.PAID_OUT})


def kept_amount(paid: Decimal, refunded: Decimal) -> Decimal:
    """What the venue keeps of ``paid`` once ``refunded`` went back (never below nothing)."""
    return max(paid - refunded, Decimal(0)).quantize(paid)


def commission_on_kept(paid: Decimal, refunded: Decimal, percent: Decimal) -> Decimal:
    """The commission a booking paid ``paid`` earns once ``refunded`` of it went back."""
    return commission_amount(kept_amount(paid, refunded), percent)


def counted_total(records: Sequence[Commission]) -> Decimal:
    """The sum of the records that count (``open`` and ``paid_out``): what the client earns in all."""
    return sum((r.amount for r in records if r.status in _COUNTED), Decimal("0.00"))


@dataclass(frozen=True, slots=True, kw_only=True)
class CommissionCorrection:
    """What a refund changes in one booking's records: records to save, and a record to add."""

    changed: tuple[Commission, ...] = ()
    added: Commission | None = None

    @property
    def is_empty(self) -> bool:
        """True when the records already follow the refund."""
        return not self.changed and self.added is None


def follow_refund(
    records: Sequence[Commission],
    *,
    paid: Decimal,
    refunded: Decimal,
    new_id: Callable[[], str],
    now: datetime,
    month: str,
) -> CommissionCorrection:
    """Bring one booking's commission ``records`` in line with a refund of ``refunded`` of ``paid``.

    The records' sum afterwards is the commission on what is kept, at the percent of the booking's
    first record. The open record, if any, carries the difference from what is paid out (``reversed``
    when that is nothing); without one, an open record of ``month`` made at ``now`` carrying it is
    added. Records of other statuses are never changed. Applying the same refund again
    changes nothing, and a smaller refund than one applied before is no refund.

    Args:
        records: every record of the booking, oldest first (the first is the one the payment earned).
        paid: what the booking was paid.
        refunded: how much of it went back in all (not only this time).
        new_id: gives the id of a correcting record, asked only when one is added.
        now: when the refund is applied.
        month: the month a correcting record belongs to (``YYYY-MM``).
    """
    if not records:
        return CommissionCorrection()
    first = records[0]
    kept = kept_amount(paid, refunded)
    owed = commission_on_kept(paid, refunded, first.commission_percent)
    if owed >= counted_total(records):  # a refund never raises a commission
        return CommissionCorrection()
    paid_out = [r for r in records if r.status is CommissionStatus.PAID_OUT]
    still_owed = owed - sum((r.amount for r in paid_out), Decimal("0.00"))
    still_based = kept - sum((r.base_amount for r in paid_out), Decimal("0.00"))
    open_records = [r for r in records if r.status is CommissionStatus.OPEN]
    if not open_records:
        correction = replace(
            first,
            id=new_id(),
            base_amount=still_based,
            amount=still_owed,
            month=month,
            status=CommissionStatus.OPEN,
            created_at=now,
            payout_batch_id=None,
        )
        return CommissionCorrection(added=correction)
    carrier, *others = open_records  # only one is open at a time; any other is folded in
    changed = [other.reverse() for other in others]
    if still_owed == 0:
        changed.append(carrier.reverse())
    else:
        changed.append(replace(carrier, base_amount=still_based, amount=still_owed))
    return CommissionCorrection(changed=tuple(changed))
