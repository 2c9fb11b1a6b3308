"""Check-in, no-show, confirmation and a payment taken at the venue: staff changes (CONTRACT 7.4)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from booking_core.audit import AuditAction
from booking_core.booking import Booking, PaymentMethod
from booking_core.errors import InvalidTransition, ValidationFailed
from booking_core.payments import VENUE_PROVIDER, Payment, venue_intent_id
from booking_core.ports import UnitOfWork
from booking_core.staff import Action, Staff
from booking_core.state_machine import Event, Stage, decide, stage_of
from booking_core.usecases.changes import circumstances, store_change
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_bookings._common import (
    audit_booking,
    locked,
    resource_of,
    venue_of_booking,
)
from booking_core.usecases.retry import retried
from booking_core.usecases.views import OpBookingView, op_booking_views


def check_in_booking(deps: Deps, staff: Staff | None, booking_id: str) -> OpBookingView:
    """The customer arrived (from 60 minutes before the start to the end); audited as ``booking.check_in``."""

    def check_in(uow: UnitOfWork, booking: Booking, now: datetime) -> Booking:
        checked_in = booking.as_of(now).check_in(now)
        uow.bookings.save(checked_in)
        return checked_in

    return _staff_change(deps, staff, booking_id, AuditAction.BOOKING_CHECK_IN, check_in)


def mark_booking_no_show(deps: Deps, staff: Staff | None, booking_id: str) -> OpBookingView:
    """The customer did not come (a confirmed or paid booking, after its start): ``no_show``."""

    def no_show(uow: UnitOfWork, booking: Booking, now: datetime) -> Booking:
        return _transition(deps, uow, booking, Event.NO_SHOW, now)

    return _staff_change(deps, staff, booking_id, AuditAction.BOOKING_NO_SHOW, no_show)


def confirm_staff_booking(deps: Deps, staff: Staff | None, booking_id: str) -> OpBookingView:
    """Confirm a pending booking whose hold runs, to be paid at the venue (payment method ``at_venue``)."""

    def confirm(uow: UnitOfWork, booking: Booking, now: datetime) -> Booking:
        return _transition(deps, uow, booking, Event.CONFIRM, now, method=PaymentMethod.AT_VENUE)

    return _staff_change(deps, staff, booking_id, AuditAction.BOOKING_CONFIRM, confirm)


def parse_recorded_method(method: str) -> PaymentMethod:
    """A payment method staff record (400 naming ``method`` otherwise)."""
    if method not in {"cash", "card_terminal", "other"}:
        raise ValidationFailed("Method must be one of cash, card_terminal, other.", field="method")
    return PaymentMethod(method)


def record_venue_payment(deps: Deps, staff: Staff | None, booking_id: str, method: str) -> OpBookingView:
    """A confirmed booking was paid at the venue: ``paid`` with a payment of provider ``venue``.

    The payment succeeds through the state machine as any payment does (``payment succeeded``), so
    a booking made through a client earns its commission and the paid mails go out.
    """
    recorded = parse_recorded_method(method)

    def record(uow: UnitOfWork, booking: Booking, now: datetime) -> Booking:
        if stage_of(booking, now) is not Stage.CONFIRMED:
            status = booking.as_of(now).status
            raise InvalidTransition(f"Cannot record a payment for a booking with status '{status}'.")
        payment = _venue_payment(deps, booking, now)
        uow.payments.add(payment)
        change = decide(booking, Event.PAYMENT_SUCCEEDED, circumstances(uow, booking, now), payment=payment)
        if change.refusal is not None:  # pragma: no cover - a confirmed booking takes a payment
            raise InvalidTransition(change.refusal)
        change = replace(change, booking=change.booking.record_payment_method(recorded, now))
        store_change(deps, uow, booking, payment, change)
        return change.booking

    action = AuditAction.BOOKING_RECORD_PAYMENT
    return _staff_change(deps, staff, booking_id, action, record, details={"method": recorded.value})


#: What a staff change does to the locked booking in the open unit of work; returns the booking after it.
Apply = Callable[[UnitOfWork, Booking, datetime], Booking]


@retried
def _staff_change(
    deps: Deps,
    staff: Staff | None,
    booking_id: str,
    action: AuditAction,
    apply: Apply,
    *,
    details: Mapping[str, Any] | None = None,
) -> OpBookingView:
    """Check the permission, lock the booking, ``apply`` the change, audit it, and answer the op-booking."""
    now = deps.clock.now()
    with deps.uow() as uow:
        venue_of_booking(uow, staff, booking_id, Action.OPERATE)
        before = locked(uow, booking_id)
        after = apply(uow, before, now)
        resource = resource_of(uow, after.resource_id, bookable=False)
        entry = {"old_status": before.as_of(now).status.value, "status": after.status.value}
        entry.update(details or {})
        audit_booking(deps, uow, staff, action, after, resource, entry)
        (view,) = op_booking_views(uow, [after], now)
        uow.commit()
    return view


def _transition(
    deps: Deps,
    uow: UnitOfWork,
    booking: Booking,
    event: Event,
    now: datetime,
    *,
    method: PaymentMethod | None = None,
) -> Booking:
    """``event`` decided by the state machine and stored; refused naming the status (CONTRACT 4.3)."""
    change = decide(booking, event, circumstances(uow, booking, now))
    if change.refusal is not None:
        raise InvalidTransition(change.refusal)
    if method is not None:
        change = replace(change, booking=change.booking.record_payment_method(method, now))
    if change.changes_anything or change.booking != booking:
        store_change(deps, uow, booking, None, change)
    return change.booking


def _venue_payment(deps: Deps, booking: Booking, now: datetime) -> Payment:
    """The payment staff took at the venue, before the state machine marks it succeeded."""
    payment_id = deps.ids.new_id()
    return Payment(
        id=payment_id,
        booking_id=booking.id,
        provider=VENUE_PROVIDER,
        payment_intent_id=venue_intent_id(payment_id),
        client_secret="",
        amount=booking.total_price,
        currency=booking.currency,
        created_at=now,
    )
