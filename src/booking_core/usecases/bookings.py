"""Creating, reading and cancelling bookings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from booking_core.accounts import Actor
from booking_core.booking import Booking, BookingSource, CancellationReason
from booking_core.catalog import Resource
from booking_core.claims import expired_hold, neighbourhood
from booking_core.errors import BadRequest, InvalidTransition, NotFound, PermissionDenied, ValidationFailed
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import BookingQuery, IdempotentRequest, UnitOfWork
from booking_core.pricing import Quote, quote
from booking_core.rules import accept_new_booking, validate_request
from booking_core.state_machine import CancelRequest, Event, decide
from booking_core.timerange import TimeRange
from booking_core.usecases.browse import current_demand, load_available, resolve_resource_id
from booking_core.usecases.changes import circumstances, kept_payment, store_change
from booking_core.usecases.deps import Deps
from booking_core.usecases.idempotency import remember_in
from booking_core.usecases.refunds import send_refunds
from booking_core.usecases.retry import retried
from booking_core.usecases.views import BookingView, booking_view, booking_views, can_act, can_see


@dataclass(frozen=True, slots=True, kw_only=True)
class NewBooking:
    """A request to book: exactly one of ``resource_id``/``resource_external_id``."""

    resource_id: int | None = None
    resource_external_id: str | None = None
    start: datetime
    end: datetime
    participant_count: int = 1
    notes: str = ""


def expire_stale_holds(
    uow: UnitOfWork, now: datetime, resource_id: int | None = None, *, keep: str | None = None
) -> int:
    """Cancel the pending bookings (of one resource) whose hold lapsed, so their time is free again.

    Each is locked and re-read first, as every change of a booking is; ``keep`` names one to leave.
    """
    expired = 0
    for lapsed in uow.bookings.expired_holds(now, resource_id):
        booking = uow.bookings.lock_for_change(lapsed.id) if lapsed.id != keep else None
        if booking is not None and (changed := expired_hold(booking, now)) is not None:
            uow.bookings.save(changed)
            expired += 1
    return expired


@retried
def create_booking(
    deps: Deps, actor: Actor, cmd: NewBooking, *, idempotency: IdempotentRequest[BookingView] | None = None
) -> BookingView:
    """Validate and store a pending booking for ``actor`` that holds its slot for ``deps.hold_minutes``.

    The booking claims its time (:meth:`~booking_core.ports.Bookings.claim`): the rules judge the
    bookings around it and the user's unpaid holds as they are when it is stored, so that neither a
    booking of its time nor an unpaid hold beyond the limit slips in between. With ``idempotency`` its
    answer is stored in the same transaction, so it is durable exactly when the booking is. A deadlock
    runs it all again on a fresh unit of work (``@retried``).
    """
    if actor.user_id is None:
        raise BadRequest("user identification required")
    now = deps.clock.now()
    with deps.uow() as uow:
        rid = resolve_resource_id(uow, cmd.resource_id, cmd.resource_external_id, actor.client_id)
        resource = load_available(uow, rid)
        span = _requested_span(cmd)
        opening = validate_request(resource, span, participant_count=cmd.participant_count, now=now)
        price = quote_price(deps, uow, resource, span, cmd.participant_count, now)
        booking = _pending_booking(deps, actor.user_id, actor.client_id, resource, cmd, span, price, now)
        terms = accept_new_booking(resource, span, opening, unpaid_limit=deps.max_unpaid_per_user)
        uow.bookings.claim(booking, neighbourhood(resource, span), terms, now=now)
        view = _new_booking_view(uow, actor, booking, resource, now)
        remember_in(uow, idempotency, view, now)
        uow.commit()
    return view


def _new_booking_view(
    uow: UnitOfWork, actor: Actor, booking: Booking, resource: Resource, now: datetime
) -> BookingView:
    # a new booking has no payment yet, and its resource is already at hand
    client = uow.clients.get(actor.client_id) if actor.client_id is not None else None
    return BookingView(
        booking=booking,
        resource=resource,
        payment=None,
        client=client,
        external_user_id=actor.external_user_id,
        now=now,
    )


def _requested_span(cmd: NewBooking) -> TimeRange:
    if cmd.end <= cmd.start:
        raise ValidationFailed("End time must be after start time.", field="end_datetime")
    return TimeRange(cmd.start, cmd.end)


def quote_price(
    deps: Deps, uow: UnitOfWork, resource: Resource, span: TimeRange, participants: int, now: datetime
) -> Quote:
    """The price of a booking of ``span`` at ``now`` (the demand level read when it prices by it)."""
    demand = current_demand(uow, resource, now) if resource.dynamic_pricing.enabled else Decimal(0)
    unit = deps.currencies.unit(resource.currency)
    return quote(resource, span, participants=participants, demand=demand, unit=unit)


def _pending_booking(
    deps: Deps,
    user_id: str,
    client_id: int | None,
    resource: Resource,
    cmd: NewBooking,
    span: TimeRange,
    price: Quote,
    now: datetime,
) -> Booking:
    return Booking(
        id=deps.ids.new_id(),
        reference_code=deps.ids.reference_code(),
        resource_id=resource.id,
        user_id=user_id,
        client_id=client_id,
        start=span.start,
        end=span.end,
        participant_count=cmd.participant_count,
        price_per_unit=price.price_per_unit,
        pricing_unit=price.pricing_unit,
        total_price=price.total,
        currency=resource.currency,
        notes=cmd.notes,
        hold_expires_at=now + timedelta(minutes=deps.hold_minutes),
        source=BookingSource.CLIENT if client_id is not None else BookingSource.ONLINE,
        created_at=now,
        updated_at=now,
    )


def list_bookings(
    deps: Deps, actor: Actor, *, upcoming: bool = False, page: Page | None = None
) -> Paged[BookingView]:
    """One page of the caller's bookings: a user's own, or those made through a client (for one
    user if named); latest start first, or with ``upcoming`` the live ones ahead, soonest first."""
    now = deps.clock.now()
    query = BookingQuery(  # exactly what ``can_see`` allows the actor
        user_id=actor.user_id,
        client_id=actor.client_id,
        upcoming_at=now if upcoming else None,
        only_client_bookings=actor.client_id is not None,
    )
    with deps.read_lagging() as uow:
        found = fetch_page(
            page or Page(), lambda limit, offset: uow.bookings.list(query, limit=limit, offset=offset)
        )
        return Paged(booking_views(uow, found.items, now), found.next_offset)


def get_booking(deps: Deps, actor: Actor, booking_id: str) -> BookingView:
    """One booking the caller may see; others read as not found."""
    now = deps.clock.now()
    with deps.read() as uow:
        booking = uow.bookings.get(booking_id)
        if booking is None or not can_see(actor, booking):
            raise NotFound("Booking not found.")
        return booking_view(uow, booking, now)


def owned_booking(uow: UnitOfWork, actor: Actor, booking_id: str, *, lock: bool = False) -> Booking:
    """The booking if the caller may act on it: 404 when unknown, 403 when someone else's.

    With ``lock`` it is read with :meth:`~booking_core.ports.Bookings.lock_for_change`, to change it.
    """
    return owned(actor, uow.bookings.lock_for_change(booking_id) if lock else uow.bookings.get(booking_id))


def owned(actor: Actor, booking: Booking | None) -> Booking:
    """``booking`` if the caller may act on it: 404 when None, 403 when someone else's."""
    if booking is None:
        raise NotFound("Booking not found.")
    if not can_act(actor, booking):
        raise PermissionDenied()
    return booking


def parse_reason(reason: str | None) -> CancellationReason:
    """A caller-given cancellation reason (``expired`` is reserved for the system)."""
    if not reason:
        return CancellationReason.USER_REQUEST
    allowed = {CancellationReason.USER_REQUEST, CancellationReason.WEATHER, CancellationReason.OTHER}
    if reason not in allowed:
        raise ValidationFailed("Reason must be one of user_request, weather, other.", field="reason")
    return CancellationReason(reason)


@retried
def cancel_booking(
    deps: Deps, actor: Actor, booking_id: str, *, reason: str | None = None, notes: str = ""
) -> BookingView:
    """Cancel the caller's booking; a paid one's payment is given back through the provider.

    Decided by the state machine on the booking as it is under its lock: of concurrent cancels one
    succeeds and the others are refused naming the status (``cancelled``). A refusal because of the
    time names the deadline. The refund request is stored with the cancellation and sent after it.
    """
    cause = parse_reason(reason)
    now = deps.clock.now()
    with deps.uow() as uow:
        booking = owned_booking(uow, actor, booking_id, lock=True)
        kept = kept_payment(uow, booking.id)
        change = decide(
            booking,
            Event.CANCEL,
            circumstances(uow, booking, now),
            payment=kept,
            cancel=CancelRequest(reason=cause, notes=notes),
        )
        refunds = store_change(deps, uow, booking, kept, change) if change.changes_anything else []
        if change.refusal is not None:
            if change.keep_when_refused:
                uow.commit()  # a lapsed hold's owner asked to cancel: a late payment is then refunded
            raise InvalidTransition(change.refusal)
        view = booking_view(uow, change.booking, now)
        uow.commit()
    send_refunds(deps, refunds)
    return view
