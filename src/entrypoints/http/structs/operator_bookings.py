"""Request bodies of the staff's booking endpoints (CONTRACT 7.4); the answers are ``OpBooking``s.

Choices (``payment``, ``refund``, ``method``) are strings the use case checks, naming the field.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from booking_core.errors import ValidationFailed
from booking_core.limits import DATETIME_PATTERN, MAX_EXTERNAL_ID, ONE_LINE_PATTERN, parse_datetime
from booking_core.usecases.operator_bookings import (
    CustomerRef,
    MoveRequest,
    StaffBookingRequest,
    StaffCancellation,
    StaffPayment,
)
from entrypoints.http.structs._format import amount_in, local
from entrypoints.http.structs.fields import (
    MESSAGES,
    CancelReason,
    Datetime,
    Email,
    Int64,
    Language,
    Notes,
    PersonName,
)


def _choice(*choices: str) -> Any:
    """A string of ``choices``: the document names them (under ``extra`` too, where Litestar reads
    them); the use case checks them and names them in its message."""
    return Meta(max_length=20, extra_json_schema={"enum": list(choices), "extra": {"enum": list(choices)}})


StaffPaymentChoice = Annotated[str, _choice("at_venue", "online")]
RefundChoiceName = Annotated[str, _choice("policy", "full", "none", "amount")]
RecordedMethod = Annotated[str, _choice("cash", "card_terminal", "other")]
#: A decimal string such as ``20.00``; its currency's decimals are checked by the use case.
DecimalString = Annotated[
    str, Meta(max_length=20, pattern=r"^[0-9]+(\.[0-9]+)?$", examples=["20.00"], description="Decimal string")
]
UserId = Annotated[str, Meta(min_length=1, max_length=MAX_EXTERNAL_ID, pattern=ONE_LINE_PATTERN)]
#: The cancellation reasons, as the interface's cancel takes them.
OpReason = CancelReason


def _instant(value: str, field: str) -> datetime:
    try:
        return parse_datetime(value)
    except ValueError:
        raise ValidationFailed(MESSAGES[DATETIME_PATTERN], field=field) from None


class StaffCustomerIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The customer: ``{"user_id"}``, or ``{"email", "first_name", "last_name", "language"}``."""

    user_id: UserId | None = None
    email: Email | None = None
    first_name: PersonName = ""
    last_name: PersonName = ""
    language: Language | None = None

    def ref(self) -> CustomerRef:
        """The use case's customer reference (exactly one of id and email)."""
        if (self.user_id is None) == (self.email is None):
            raise ValidationFailed("Give exactly one of user_id and email.", field="customer")
        return CustomerRef(
            user_id=self.user_id,
            email=self.email,
            first_name=self.first_name,
            last_name=self.last_name,
            language=self.language,
        )


class StaffBookingIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /operator/bookings/``."""

    resource: Int64
    start_datetime: Datetime
    end_datetime: Datetime
    participant_count: Int64 = 1
    notes: Notes = ""
    customer: StaffCustomerIn
    payment: StaffPaymentChoice = "at_venue"
    override_rules: bool = False
    price: DecimalString | None = None

    def command(self) -> StaffBookingRequest:
        """The use case's request."""
        try:
            payment = StaffPayment(self.payment)
        except ValueError:
            raise ValidationFailed("Payment must be at_venue or online.", field="payment") from None
        return StaffBookingRequest(
            resource_id=self.resource,
            start=_instant(self.start_datetime, "start_datetime"),
            end=_instant(self.end_datetime, "end_datetime"),
            participant_count=self.participant_count,
            notes=self.notes,
            customer=self.customer.ref(),
            payment=payment,
            override_rules=self.override_rules,
            price=self.price,
        )


class MoveBookingIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /operator/bookings/{id}/move/``: the new time, and a resource of the same venue."""

    resource: Int64 | None = None
    start_datetime: Datetime
    end_datetime: Datetime
    override_rules: bool = False

    def command(self) -> MoveRequest:
        """The use case's request."""
        return MoveRequest(
            resource_id=self.resource,
            start=_instant(self.start_datetime, "start_datetime"),
            end=_instant(self.end_datetime, "end_datetime"),
            override_rules=self.override_rules,
        )


class StaffCancelIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /operator/bookings/{id}/cancel/``: ``amount`` only with refund ``amount``."""

    reason: OpReason | None = None
    notes: Notes = ""
    refund: RefundChoiceName = "policy"
    amount: DecimalString | None = None


class RecordPaymentIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /operator/bookings/{id}/record-payment/``."""

    method: RecordedMethod


class OpRefundOut(msgspec.Struct, kw_only=True):
    """What the customer gets back of a venue's cancellation."""

    amount: str
    currency: str


class OpCancelledOut(msgspec.Struct, kw_only=True):
    """The answer to the venue's cancellation of a booking: the refund is null for an unpaid one."""

    id: str
    reference_code: str
    status: str
    cancelled_at: datetime | None
    refund: OpRefundOut | None

    @classmethod
    def of(cls, done: StaffCancellation) -> OpCancelledOut:
        """The representation of ``done``."""
        booking, money = done.cancellation.booking, done.cancellation
        refund = OpRefundOut(amount=amount_in(money.refund_amount, money.currency), currency=money.currency)
        return cls(
            id=booking.id,
            reference_code=booking.reference_code,
            status=booking.status.value,
            cancelled_at=local(booking.cancelled_at, done.resource.tz),
            refund=refund if done.refunded else None,
        )
