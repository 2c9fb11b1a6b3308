"""What a partner client earns on the bookings paid through it."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

from booking_core.errors import BadRequest, InvalidTransition
from booking_core.limits import FIRST_YEAR, LAST_YEAR

CENT = Decimal("0.01")
_MONTH = re.compile(r"(?P<year>[0-9]{4})-(?P<month>0[1-9]|1[0-2])")


class CommissionStatus(enum.StrEnum):
    """Life of a commission record."""

    OPEN = "open"
    REVERSED = "reversed"
    PAID_OUT = "paid_out"


def commission_amount(base: Decimal, percent: Decimal) -> Decimal:
    """``percent`` of ``base``, rounded half-up to cents."""
    return (base * percent / Decimal(100)).quantize(CENT, rounding=ROUND_HALF_UP)


def parse_month(text: str) -> str:
    """``text`` when it is a month ``YYYY-MM`` (01-12) of the service's calendar (CONTRACT 4.8:
    2000 or later; :mod:`booking_core.limits`: until 2100, as every date the service accepts).

    Raises :class:`BadRequest` otherwise, so the HTTP API answers 400 and the command line one line.
    """
    match = _MONTH.fullmatch(text)
    if match is None or not FIRST_YEAR <= int(match["year"]) <= LAST_YEAR:
        raise BadRequest(
            f"month must be YYYY-MM with a month from 01 to 12 and a year from {FIRST_YEAR} to {LAST_YEAR}, "
            f"got {text!r}"
        )
    return text


def commission_month(paid_at: datetime, timezone: str) -> str:
    """The venue-local month (``YYYY-MM``) in which the booking was paid."""
    return paid_at.astimezone(ZoneInfo(timezone)).strftime("%Y-%m")


@dataclass(frozen=True, slots=True, kw_only=True)
class Commission:
    """A client's commission on one paid booking."""

    id: str
    booking_id: str
    reference_code: str
    client_id: int
    base_amount: Decimal
    commission_percent: Decimal
    amount: Decimal
    currency: str
    month: str
    status: CommissionStatus = CommissionStatus.OPEN
    created_at: datetime
    #: The payout batch that holds the record from the moment the batch is prepared; None before.
    payout_batch_id: str | None = None

    def reverse(self) -> Commission:
        """The booking was refunded (or a correction came to nothing); an open record no longer counts."""
        if self.status is not CommissionStatus.OPEN:
            raise InvalidTransition(f"Cannot reverse a commission with status '{self.status}'.")
        return replace(self, status=CommissionStatus.REVERSED)

    def release(self) -> Commission:
        """The batch that held the record leaves it open, for a later payout."""
        return replace(self, payout_batch_id=None)

    def hold_for(self, batch_id: str) -> Commission:
        """A payout batch takes the record: no other batch may pay it."""
        if self.status is not CommissionStatus.OPEN or self.payout_batch_id is not None:
            raise InvalidTransition(f"Commission {self.id} is not open for a payout.")
        return replace(self, payout_batch_id=batch_id)

    def pay_out(self) -> Commission:
        """The month's transfer to the client included this record."""
        if self.status is not CommissionStatus.OPEN:
            raise InvalidTransition(f"Cannot pay out a commission with status '{self.status}'.")
        return replace(self, status=CommissionStatus.PAID_OUT)


@dataclass(frozen=True, slots=True, kw_only=True)
class MonthlyTotals:
    """One client's records of one month in one currency, summed per status."""

    client: str
    currency: str
    records: int
    open: Decimal
    paid_out: Decimal
    reversed: Decimal


def monthly_totals(records: Iterable[Commission], client_names: Mapping[int, str]) -> list[MonthlyTotals]:
    """One row per client and currency, ordered by client name then currency."""
    sums: dict[tuple[str, str], dict[CommissionStatus, Decimal]] = {}
    counts: dict[tuple[str, str], int] = {}
    for record in records:
        key = (client_names.get(record.client_id, f"client {record.client_id}"), record.currency)
        by_status = sums.setdefault(key, dict.fromkeys(CommissionStatus, Decimal("0.00")))
        by_status[record.status] += record.amount
        counts[key] = counts.get(key, 0) + 1
    return [
        MonthlyTotals(
            client=client,
            currency=currency,
            records=counts[client, currency],
            open=by_status[CommissionStatus.OPEN].quantize(CENT),
            paid_out=by_status[CommissionStatus.PAID_OUT].quantize(CENT),
            reversed=by_status[CommissionStatus.REVERSED].quantize(CENT),
        )
        for (client, currency), by_status in sorted(sums.items())
    ]
