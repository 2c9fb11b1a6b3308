"""What a partner client earns on the bookings paid through it."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

from booking_core.errors import InvalidTransition

CENT = Decimal("0.01")


class CommissionStatus(enum.StrEnum):
    """Life of a commission record."""

    OPEN = "open"
    REVERSED = "reversed"
    PAID_OUT = "paid_out"


def commission_amount(base: Decimal, percent: Decimal) -> Decimal:
    """``percent`` of ``base``, rounded half-up to cents."""
    return (base * percent / Decimal(100)).quantize(CENT, rounding=ROUND_HALF_UP)


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

    def reverse(self) -> Commission:
        """The booking was refunded; an open commission no longer counts."""
        if self.status is not CommissionStatus.OPEN:
            raise InvalidTransition(f"Cannot reverse a commission with status '{self.status}'.")
        return replace(self, status=CommissionStatus.REVERSED)

    def pay_out(self) -> Commission:
        """The month's transfer to the client included this record."""
        if self.status is not CommissionStatus.OPEN:
            raise InvalidTransition(f"Cannot pay out a commission with status '{self.status}'.")
        return replace(self, status=CommissionStatus.PAID_OUT)
