"""A booking staff make for a customer (CONTRACT 7.4): at the venue or online, the rules or an override."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from booking_core.accounts import User
from booking_core.audit import AuditAction
from booking_core.booking import Booking, BookingSource, BookingStatus, PaymentMethod
from booking_core.catalog import Resource
from booking_core.claims import neighbourhood
from booking_core.errors import BadRequest, NotFound, TransientConflict, ValidationFailed
from booking_core.ports import IdempotentRequest, UnitOfWork
from booking_core.pricing import Quote
from booking_core.rules import (
    OVERRIDE,
    STAFF,
    accept_new_booking,
    booking_span,
    validate_request,
)
from booking_core.staff import Action, Staff
from booking_core.usecases.auth import normalize_email, parse_language
from booking_core.usecases.bookings import quote_price
from booking_core.usecases.deps import Deps
from booking_core.usecases.idempotency import remember_in
from booking_core.usecases.operator_bookings._common import (
    audit_booking,
    resource_of,
    times_of,
)
from booking_core.usecases.permissions import require
from booking_core.usecases.retry import retried
from booking_core.usecases.staff_notices import notify_staff_booking
from booking_core.usecases.views import OpBookingView, op_booking_views

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
        resource = resource_of(uow, cmd.resource_id)
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
        audit_booking(deps, uow, staff, AuditAction.BOOKING_CREATE, booking, resource, details)
        (view,) = op_booking_views(uow, [booking], now)
        remember_in(uow, idempotency, view, now)
        uow.commit()
    return view


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
    try:
        uow.users.add(user)
    except BadRequest:  # the same address created by a concurrent request: run again, and find it
        raise TransientConflict("A customer with this email was created meanwhile.") from None
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


def _created_details(cmd: StaffBookingRequest, booking: Booking) -> dict[str, Any]:
    return {
        **times_of(booking),
        "customer_user_id": booking.user_id,
        "status": booking.status.value,
        "payment": cmd.payment.value,
        "override_rules": cmd.override_rules,
        "total_price": str(booking.total_price),
        "price_overridden": cmd.price is not None,
    }
