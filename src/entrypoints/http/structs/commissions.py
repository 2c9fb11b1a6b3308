"""A client's commission records (CONTRACT section 4.6)."""

from __future__ import annotations

from datetime import datetime

import msgspec

from booking_core.commission import Commission
from entrypoints.http.structs._format import amount_in, money, utc


class CommissionOut(msgspec.Struct, kw_only=True):
    """A client's commission on one paid booking."""

    id: str
    booking_id: str
    reference_code: str
    base_amount: str
    commission_percent: str
    amount: str
    currency: str
    month: str
    status: str
    created_at: datetime

    @classmethod
    def of(cls, c: Commission) -> CommissionOut:
        """The representation of ``c``."""
        return cls(
            id=c.id,
            booking_id=c.booking_id,
            reference_code=c.reference_code,
            base_amount=amount_in(c.base_amount, c.currency),
            commission_percent=money(c.commission_percent),
            amount=amount_in(c.amount, c.currency),
            currency=c.currency,
            month=c.month,
            status=str(c.status),
            created_at=utc(c.created_at),
        )
