"""Bookings made and changed by a venue's staff (CONTRACT 7.4, 7.9).

Each use case takes the acting member of staff and checks the permission table first: the booking's
venue (or the resource's, for a new booking) decides, and a booking of a venue the member of staff
does not work at reads as not found. Every change is made on the booking re-read under its lock
(:meth:`~booking_core.ports.Bookings.lock_for_change`), decided by the state machine where it is a
transition, and written with its audit entry in one transaction.

Time is claimed as customers claim it (:meth:`~booking_core.ports.Bookings.claim`, and
:meth:`~booking_core.ports.Bookings.reclaim` for a move), so a staff booking, a move, a block and a
customer's booking racing for one resource's time never both win. Staff are held to the booking rules
of :data:`~booking_core.rules.STAFF` (no minimum lead time); a manager's ``override_rules`` to those of
:data:`~booking_core.rules.OVERRIDE`.

A staff booking paid ``online`` is an unpaid hold of its customer like any other, so it counts against
the customer's limit of unpaid bookings (CONTRACT 4.2); one paid ``at_venue`` is confirmed at once and
holds nothing.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from booking_core.accounts import User
from booking_core.audit import AuditAction
from booking_core.booking import Booking, BookingSource, BookingStatus, CancellationReason, PaymentMethod
from booking_core.catalog import Resource
from booking_core.claims import neighbourhood
from booking_core.errors import InvalidTransition, NotFound, ValidationFailed
from booking_core.payments import Payment
from booking_core.ports import IdempotentRequest, UnitOfWork
from booking_core.pricing import Quote
from booking_core.refund_choice import RefundChoice
from booking_core.rules import (
    OVERRIDE,
    STAFF,
    accept_move,
    accept_new_booking,
    booking_span,
    validate_request,
)
from booking_core.staff import Action, Staff
from booking_core.state_machine import Event, Stage, decide, stage_of
from booking_core.usecases.audit import audit
from booking_core.usecases.auth import normalize_email, parse_language
from booking_core.usecases.bookings import quote_price
from booking_core.usecases.changes import circumstances, store_change
from booking_core.usecases.deps import Deps
from booking_core.usecases.idempotency import remember_in
from booking_core.usecases.permissions import require
from booking_core.usecases.retry import retried
from booking_core.usecases.staff_notices import notify_moved, notify_staff_booking
from booking_core.usecases.venue_cancel import VenueCancellation, cancel_booking_for_venue
from booking_core.usecases.views import OpBookingView, op_booking_views

BOOKING_NOT_FOUND = "Booking not found."
#: The largest price staff may set (the amount columns hold ten digits before the point).
MAX_PRICE = Decimal("99999999.99")


class StaffPayment(enum.StrEnum):
    """How the customer of a staff booking pays: at the venue (confirmed at once) or online (a hold)."""

    AT_VENUE = "at_venue"
    ONLINE = "online"


@dataclass(frozen=True, slots=True, kw_only=True)
class CustomerRef:
    """Whom staff book for: an existing user by id, or by email (created, without a password, when new)."""

    user_id: str | None = None
    email: str | None = None
    first_name: str = ""
    last_name: str = ""
    language: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffBookingRequest:
    """A booking staff make for a customer; ``price`` (a decimal string) replaces the quoted total."""

    resource_id: int
    start: datetime
    end: datetime
    participant_count: int = 1
    notes: str = ""
    customer: CustomerRef
    payment: StaffPayment = StaffPayment.AT_VENUE
    override_rules: bool = False
    price: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveRequest:
    """A booking's new time, on its own resource or (``resource_id``) another of the same venue."""

    resource_id: int | None = None
    start: datetime
    end: datetime
    override_rules: bool = False


@retried
def create_staff_booking(
    deps: Deps,
    staff: Staff | None,
    cmd: StaffBookingRequest,
    *,
    idempotency: IdempotentRequest[OpBookingView] | None = None,
) -> OpBookingView:
    """Book ``cmd`` for its customer: ``confirmed`` to pay at the venue, or ``pending`` with the usual
    hold to pay online; source ``staff``. Audited as ``booking.create``; the customer is mailed.

    Raises:
        NotFound: the resource (or the customer by id) is unknown, or of a venue staff do not see.
        PermissionDenied: the role may not book, or not override the rules or the price.
        ValidationFailed: a rule is broken (the field named), or the time is taken (SlotUnavailable).
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        resource = _resource(uow, cmd.resource_id)
        require(staff, Action.OPERATE, resource.venue.id)
        if cmd.override_rules or cmd.price is not None:
            require(staff, Action.OVERRIDE, resource.venue.id)
        span = booking_span(cmd.start, cmd.end)
        rule_set = OVERRIDE if cmd.override_rules else STAFF
        opening = validate_request(
            resource, span, participant_count=cmd.participant_count, now=now, rule_set=rule_set
        )
        total, quoted = _price(deps, uow, resource, cmd, now)
        customer = _customer(deps, uow, cmd.customer, now)
        booking = _staff_booking(deps, cmd, resource, customer, quoted, total, now)
        terms = accept_new_booking(
            resource, span, opening, unpaid_limit=deps.max_unpaid_per_user, rule_set=rule_set
        )
        uow.bookings.claim(booking, neighbourhood(resource, span), terms, now=now)
        notify_staff_booking(deps, uow, booking)
        details = _created_details(cmd, booking)
        _audit(deps, uow, staff, AuditAction.BOOKING_CREATE, booking, resource, details)
        (view,) = op_booking_views(uow, [booking], now)
        remember_in(uow, idempotency, view, now)
        uow.commit()
    return view


@retried
def move_staff_booking(deps: Deps, staff: Staff | None, booking_id: str, cmd: MoveRequest) -> OpBookingView:
    """Move a live booking to another time (and resource of its venue): same id, reference, status and
    price; never onto taken or closed time. Audited as ``booking.move``; the customer gets the moved mail.

    Raises:
        NotFound: the booking, or the resource, is unknown or of a venue staff do not see.
        PermissionDenied: the role may not move, or not override the rules.
        InvalidTransition: the booking is not live (its status named).
        ValidationFailed: a rule is broken, or the time is taken (SlotUnavailable).
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        venue_id = _venue_of_booking(uow, staff, booking_id, Action.OPERATE)
        if cmd.override_rules:
            require(staff, Action.OVERRIDE, venue_id)
        target = _resource(uow, cmd.resource_id) if cmd.resource_id is not None else None
        if target is not None and target.venue.id != venue_id:
            raise NotFound("Resource not found.")  # another venue's resource reads as unknown (7.1)
        booking = _locked(uow, booking_id, resource_first=True)
        if stage_of(booking, now) not in {Stage.PENDING, Stage.CONFIRMED, Stage.PAID}:
            raise InvalidTransition(f"Cannot move a booking with status '{booking.as_of(now).status}'.")
        resource = target or _resource(uow, booking.resource_id)
        span = booking_span(cmd.start, cmd.end)
        rule_set = OVERRIDE if cmd.override_rules else STAFF
        opening = validate_request(
            resource, span, participant_count=booking.participant_count, now=now, rule_set=rule_set
        )
        moved = booking.move_to(resource.id, span, now)
        terms = accept_move(resource, span, opening, rule_set=rule_set)
        uow.bookings.reclaim(moved, neighbourhood(resource, span), terms, now=now)
        notify_moved(deps, uow, moved, booking.start, booking.end, old_resource_id=booking.resource_id)
        details = {
            "old": _times(booking),
            "new": _times(moved),
            "override_rules": cmd.override_rules,
        }
        _audit(deps, uow, staff, AuditAction.BOOKING_MOVE, moved, resource, details)
        (view,) = op_booking_views(uow, [moved], now)
        uow.commit()
    return view


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


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffCancellation:
    """A booking the venue's staff cancelled, with its resource (for the local time of the answer)."""

    cancellation: VenueCancellation
    resource: Resource

    @property
    def refunded(self) -> bool:
        """Whether the booking had been paid, so that the answer names a refund (perhaps 0)."""
        return self.cancellation.booking.paid_at is not None


#: The refund choices a desk may make; the others (``none``, an amount) are overrides (CONTRACT 7.1).
_DESK_REFUNDS = frozenset({RefundChoice.POLICY, RefundChoice.FULL})
_VENUE_REASONS = frozenset(
    {CancellationReason.USER_REQUEST, CancellationReason.WEATHER, CancellationReason.OTHER}
)


def cancel_staff_booking(
    deps: Deps,
    staff: Staff | None,
    booking_id: str,
    *,
    reason: str | None = None,
    notes: str = "",
    refund: str = "policy",
    amount: str | None = None,
) -> StaffCancellation:
    """Cancel a booking for its venue, giving back what ``refund`` chooses of its payment (CONTRACT 7.4).

    ``policy`` and ``full`` are the desk's; ``none`` and ``amount`` need a manager. The money side
    (state machine, refund request, commission, the customer's mail) is
    :func:`~booking_core.usecases.venue_cancel.cancel_booking_for_venue`; the audit entry
    ``booking.cancel`` with the refund is written in its transaction.

    Raises:
        NotFound: the booking is unknown or of a venue staff do not see.
        PermissionDenied: the role may not cancel, or not choose this refund.
        ValidationFailed: ``reason``, ``refund`` or ``amount`` (more than was paid, say) named.
        InvalidTransition: the booking is not live (its status named).
    """
    with deps.uow() as uow:
        venue_id = _venue_of_booking(uow, staff, booking_id, Action.OPERATE)
        resource = _resource(uow, _booking(uow, booking_id).resource_id)
    choice = parse_refund_choice(refund)
    if choice not in _DESK_REFUNDS:
        require(staff, Action.OVERRIDE, venue_id)
    cause = parse_venue_reason(reason)
    money = parse_amount(amount)

    def audited(uow: UnitOfWork, done: VenueCancellation) -> None:
        details = {
            "refund": choice.value,
            "refund_amount": str(done.refund_amount),
            "currency": done.currency,
            "reason": cause.value,
        }
        _audit(deps, uow, staff, AuditAction.BOOKING_CANCEL, done.booking, resource, details)

    cancelled = cancel_booking_for_venue(
        deps, booking_id, reason=cause, notes=notes, refund=choice, amount=money, before_commit=audited
    )
    return StaffCancellation(cancellation=cancelled, resource=resource)


def parse_refund_choice(refund: str) -> RefundChoice:
    """A refund choice (400 naming ``refund`` otherwise)."""
    try:
        return RefundChoice(refund)
    except ValueError:
        raise ValidationFailed("Refund must be one of policy, full, none, amount.", field="refund") from None


def parse_venue_reason(reason: str | None) -> CancellationReason:
    """Why the venue cancels (``other`` unless given; 400 naming ``reason`` for an unknown one)."""
    if not reason:
        return CancellationReason.OTHER
    if reason not in _VENUE_REASONS:
        raise ValidationFailed("Reason must be one of user_request, weather, other.", field="reason")
    return CancellationReason(reason)


def parse_amount(amount: str | None) -> Decimal | None:
    """A refund amount as a decimal (400 naming ``amount`` when it is none); checked against the
    payment by the cancel itself."""
    if amount is None:
        return None
    try:
        return Decimal(amount.strip())
    except InvalidOperation:
        raise ValidationFailed("Amount must be a decimal number such as 20.00.", field="amount") from None


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
        _venue_of_booking(uow, staff, booking_id, Action.OPERATE)
        before = _locked(uow, booking_id)
        after = apply(uow, before, now)
        resource = _resource(uow, after.resource_id)
        entry = {"old_status": before.as_of(now).status.value, "status": after.status.value}
        entry.update(details or {})
        _audit(deps, uow, staff, action, after, resource, entry)
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


def _venue_of_booking(uow: UnitOfWork, staff: Staff | None, booking_id: str, action: Action) -> int:
    """The venue of a booking staff may take ``action`` on: a booking of a venue they do not see reads
    as not found, an action their role may not take is refused (403)."""
    booking = _booking(uow, booking_id)
    venue_id = _resource(uow, booking.resource_id).venue.id
    if staff is not None and not staff.sees(venue_id):
        raise NotFound(BOOKING_NOT_FOUND)
    require(staff, action, venue_id)
    return venue_id


def _booking(uow: UnitOfWork, booking_id: str) -> Booking:
    booking = uow.bookings.get(booking_id)
    if booking is None:
        raise NotFound(BOOKING_NOT_FOUND)
    return booking


def _locked(uow: UnitOfWork, booking_id: str, *, resource_first: bool = False) -> Booking:
    booking = uow.bookings.lock_for_change(booking_id, resource_first=resource_first)
    if booking is None:  # bookings are never deleted
        raise NotFound(BOOKING_NOT_FOUND)
    return booking


def _resource(uow: UnitOfWork, resource_id: int) -> Resource:
    resource = uow.resources.get(resource_id)
    if resource is None or not resource.is_available:
        raise NotFound("Resource not found.")
    return resource


def _price(
    deps: Deps, uow: UnitOfWork, resource: Resource, cmd: StaffBookingRequest, now: datetime
) -> tuple[Decimal, Quote | None]:
    """The booking's total and the quote it comes from (None for time outside the bookable hours,
    which only an override books, with a price of its own)."""
    span = booking_span(cmd.start, cmd.end)
    try:
        quoted: Quote | None = quote_price(deps, uow, resource, span, cmd.participant_count, now)
    except ValidationFailed:
        if cmd.price is None:
            raise ValidationFailed(
                "The booking lies outside the bookable hours: give its price.", field="price"
            ) from None
        quoted = None
    if cmd.price is not None:
        return parse_price(deps, cmd.price, resource.currency), quoted
    if quoted is None:  # pragma: no cover - without a price the quote's refusal came out above
        raise ValidationFailed("The booking lies outside the bookable hours.", field="price")
    return quoted.total, quoted


def parse_price(deps: Deps, price: str, currency: str) -> Decimal:
    """A price staff set: a decimal string of at least 0 in the currency's decimals (400 naming ``price``)."""
    unit = deps.currencies.unit(currency)
    try:
        amount = Decimal(price.strip())
    except InvalidOperation:
        raise ValidationFailed("Price must be a decimal number such as 20.00.", field="price") from None
    if not amount.is_finite() or amount < 0 or amount > MAX_PRICE:
        raise ValidationFailed(f"Price must be from 0 to {MAX_PRICE}.", field="price")
    if amount != amount.quantize(unit.minor) or not unit.is_chargeable(amount):
        message = f"A price in {currency} has at most {unit.exponent} decimals (steps of {unit.quantum})."
        raise ValidationFailed(message, field="price")
    return amount.quantize(unit.minor)


def _customer(deps: Deps, uow: UnitOfWork, ref: CustomerRef, now: datetime) -> User:
    """The customer: the user ``ref`` names, or the one with its email (created, confirmed and without
    a password, when new: staff vouch for the address, CONTRACT 4.5)."""
    if ref.user_id is not None:
        user = uow.users.get(ref.user_id)
        if user is None or not user.is_active:
            raise NotFound("Customer not found.")
        return user
    if ref.email is None:
        raise ValidationFailed("Give the customer's user_id or email.", field="customer")
    email = normalize_email(ref.email)
    language = parse_language(ref.language)
    existing = uow.users.get_by_email(email)
    if existing is not None:
        if not existing.is_active:
            raise ValidationFailed("This customer's account is deactivated.", field="customer")
        return existing
    user = User(
        id=deps.ids.new_id(),
        email=email,
        first_name=ref.first_name,
        last_name=ref.last_name,
        language=language,
        created_at=now,
    )
    uow.users.add(user)
    return user


def _staff_booking(
    deps: Deps,
    cmd: StaffBookingRequest,
    resource: Resource,
    customer: User,
    quoted: Quote | None,
    total: Decimal,
    now: datetime,
) -> Booking:
    at_venue = cmd.payment is StaffPayment.AT_VENUE
    booking = Booking(
        id=deps.ids.new_id(),
        reference_code=deps.ids.reference_code(),
        resource_id=resource.id,
        user_id=customer.id,
        start=cmd.start,
        end=cmd.end,
        participant_count=cmd.participant_count,
        price_per_unit=quoted.price_per_unit if quoted is not None else total,
        total_price=total,
        currency=resource.currency,
        notes=cmd.notes,
        status=BookingStatus.CONFIRMED if at_venue else BookingStatus.PENDING,
        confirmed_at=now if at_venue else None,
        hold_expires_at=None if at_venue else now + timedelta(minutes=deps.hold_minutes),
        source=BookingSource.STAFF,
        payment_method=PaymentMethod.AT_VENUE if at_venue else PaymentMethod.ONLINE,
        created_at=now,
        updated_at=now,
    )
    if quoted is not None:
        booking = replace(booking, pricing_unit=quoted.pricing_unit)
    return booking


def _venue_payment(deps: Deps, booking: Booking, now: datetime) -> Payment:
    """The payment staff took at the venue, before the state machine marks it succeeded."""
    payment_id = deps.ids.new_id()
    return Payment(
        id=payment_id,
        booking_id=booking.id,
        provider="venue",
        payment_intent_id=f"venue-{payment_id}",
        client_secret="",
        amount=booking.total_price,
        currency=booking.currency,
        created_at=now,
    )


def _times(booking: Booking) -> dict[str, Any]:
    return {
        "resource_id": booking.resource_id,
        "start_datetime": booking.start.isoformat(),
        "end_datetime": booking.end.isoformat(),
    }


def _created_details(cmd: StaffBookingRequest, booking: Booking) -> dict[str, Any]:
    return {
        **_times(booking),
        "customer_user_id": booking.user_id,
        "status": booking.status.value,
        "payment": cmd.payment.value,
        "override_rules": cmd.override_rules,
        "total_price": str(booking.total_price),
        "price_overridden": cmd.price is not None,
    }


def _audit(
    deps: Deps,
    uow: UnitOfWork,
    staff: Staff | None,
    action: AuditAction,
    booking: Booking,
    resource: Resource,
    details: Mapping[str, Any],
) -> None:
    audit(
        deps,
        uow,
        staff,
        action,
        venue_id=resource.venue.id,
        object_type="booking",
        object_id=booking.id,
        details={"reference_code": booking.reference_code, **details},
    )
