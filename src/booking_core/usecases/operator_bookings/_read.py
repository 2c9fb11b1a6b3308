"""One booking as its venue's staff see it, with what its page offers (CONTRACT 8): the resources it may
move to and the refund each cancellation choice would give now."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from booking_core.catalog import Resource
from booking_core.refund_choice import RefundChoice, chosen_refund, default_policy
from booking_core.staff import Action, Staff
from booking_core.usecases.changes import circumstances, kept_payment
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_bookings._common import booking_of, venue_of_booking
from booking_core.usecases.views import OpBookingView, op_booking_views


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffBookingDetail:
    """A booking with its customer, the venue's resources, and what was paid and would be refunded."""

    op: OpBookingView
    venue_id: int
    resources: list[Resource]
    #: what the booking's kept payment was (0: nothing paid)
    paid: Decimal
    #: the refund of ``policy``, ``full`` and ``none`` if the venue cancelled now
    refunds: dict[RefundChoice, Decimal]


def staff_booking(deps: Deps, staff: Staff, booking_id: str) -> StaffBookingDetail:
    """The booking ``booking_id`` for ``staff`` (a booking of another venue reads as not found).

    The refunds are those :func:`~booking_core.refund_choice.chosen_refund` gives, with the policy the
    venue's cancellation applies (:mod:`booking_core.usecases.venue_cancel`).
    """
    now = deps.clock.now()
    with deps.read() as uow:
        venue_id = venue_of_booking(uow, staff, booking_id, Action.VIEW)
        booking = booking_of(uow, booking_id)
        (op,) = op_booking_views(uow, [booking], now)
        kept = kept_payment(uow, booking_id)
        at = circumstances(uow, booking, now)
        resources = [r for r in uow.resources.for_venue(venue_id) if r.is_available]
    unit = deps.currencies.unit(booking.currency)
    paid = kept.amount if kept is not None else Decimal(0).quantize(unit.minor)
    refunds = {
        choice: chosen_refund(
            choice,
            amount=None,
            paid=paid,
            unit=unit,
            start=booking.start,
            now=now,
            policy=default_policy(at.deadline_hours),
        )
        for choice in (RefundChoice.POLICY, RefundChoice.FULL, RefundChoice.NONE)
    }
    return StaffBookingDetail(op=op, venue_id=venue_id, resources=resources, paid=paid, refunds=refunds)
