"""Creating, reading and cancelling bookings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from booking_core.accounts import Actor
from booking_core.booking import Booking, CancellationReason
from booking_core.catalog import Resource
from booking_core.errors import (
    BadRequest,
    InvalidTransition,
    NotFound,
    PermissionDenied,
    TooManyUnpaid,
    ValidationFailed,
)
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import BookingQuery, UnitOfWork
from booking_core.pricing import quote
from booking_core.rules import validate_against_bookings, validate_request
from booking_core.state_machine import CancelRequest, Circumstances, Event, Outcome, decide
from booking_core.timerange import TimeRange
from booking_core.usecases.auth import TokenCaller, identify
from booking_core.usecases.browse import current_demand, load_available, resolve_resource_id
from booking_core.usecases.changes import circumstances, kept_payment, store_change
from booking_core.usecases.deps import Deps
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


def checked_span(resource: Resource, span: TimeRange) -> TimeRange:
    """The time whose blocking bookings decide whether ``span`` may be booked.

    The overlap rule needs only ``span``. The gap rule needs the free block around it, but only
    within the minimum booking of either end: a neighbour further away leaves a gap of at least the
    minimum whether it is seen or not, so it cannot change the verdict.
    """
    if not resource.prevent_unbookable_gaps:
        return span
    pad = timedelta(minutes=resource.min_booking_duration_minutes)
    return TimeRange(span.start - pad, span.end + pad)


def serializes_bookings(resource: Resource) -> bool:
    """Whether concurrent bookings of ``resource`` must be checked one after another.

    The gap rule judges a booking by the free block around it, which a concurrent booking next to
    it could shrink unseen, so with the rule on, a booking locks the resource for its transaction.
    Without it only overlap matters, which the storage's constraint decides between concurrent
    bookings by itself: they then proceed side by side.
    """
    return resource.prevent_unbookable_gaps


def expire_stale_holds(
    uow: UnitOfWork, now: datetime, resource_id: int | None = None, *, keep: str | None = None
) -> int:
    """Cancel the pending bookings (of one resource) whose hold lapsed, so their time is free again.

    Each is locked and re-read first, as every change of a booking is; ``keep`` names one to leave.
    """
    expired = 0
    for lapsed in uow.bookings.expired_holds(now, resource_id):
        booking = uow.bookings.lock_for_change(lapsed.id) if lapsed.id != keep else None
        if booking is None:
            continue
        change = decide(booking, Event.HOLD_EXPIRY, Circumstances(now=now))
        if change.outcome is Outcome.EXPIRE:
            uow.bookings.save(change.booking)
            expired += 1
    return expired


def refuse_beyond_unpaid_limit(uow: UnitOfWork, user_id: str, now: datetime, limit: int) -> None:
    """Refuse a new pending booking for a user who holds ``limit`` unpaid bookings already.

    Counted are the user's pending bookings whose hold is live at ``now``, made directly or through
    any client; one that is paid, cancelled or lapses frees its place. Every path that makes a
    pending booking asks this, in the unit of work that stores it.

    Concurrent requests of one user are counted one after another: the user is locked before the
    count (the first lock of a booking's unit of work: user, then resource, then booking) and stays
    locked until the new booking is committed or abandoned, so the limit holds whatever the number
    of requests or server processes. A hold lapsing meanwhile can only lower the count.

    Raises:
        TooManyUnpaid: the user is at the limit.
    """
    uow.users.lock(user_id)
    if uow.bookings.unpaid_holds(user_id, now) >= limit:
        raise TooManyUnpaid()


@retried
def create_booking(
    deps: Deps,
    caller: Actor | TokenCaller,
    cmd: NewBooking,
    *,
    record: Callable[[UnitOfWork, BookingView], None] | None = None,
) -> BookingView:
    """Validate and store a pending booking that holds its slot for ``deps.hold_minutes``.

    ``caller`` is the actor, or a token to authenticate first, in this transaction (one statement
    instead of a unit of work of its own). A user at the limit of unpaid bookings is refused
    (:func:`refuse_beyond_unpaid_limit`). Two bookings of one resource whose times overlap never
    both commit: the check below and, behind it, the storage's overlap constraint. Only the gap rule
    reads the bookings *next to* this one, so only where it is on are concurrent requests for the
    resource checked one after another (see :func:`serializes_bookings`). ``record`` runs in the
    same transaction just before it commits (the caller's idempotency record, say), so it is stored
    exactly when the booking is.
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        actor = identify(uow, caller)
        if actor.user_id is None:
            raise BadRequest("user identification required")
        rid = resolve_resource_id(uow, cmd.resource_id, cmd.resource_external_id, actor.client_id)
        resource = load_available(uow, rid)
        refuse_beyond_unpaid_limit(uow, actor.user_id, now, deps.max_unpaid_per_user)
        if serializes_bookings(resource):
            # locked before the bookings are read, so that what is read below is what the check
            # stands on; read again, as the catalog may have changed before the lock
            uow.resources.lock(rid)
            resource = load_available(uow, rid)
        span = TimeRange(cmd.start, cmd.end) if cmd.end > cmd.start else None
        if span is None:
            raise ValidationFailed("End time must be after start time.", field="end_datetime")
        opening = validate_request(resource, span, participant_count=cmd.participant_count, now=now)
        demand = current_demand(uow, resource, now) if resource.dynamic_pricing.enabled else Decimal(0)
        unit = deps.currencies.unit(resource.currency)
        price = quote(resource, span, participants=cmd.participant_count, demand=demand, unit=unit)
        booking = Booking(
            id=deps.ids.new_id(),
            reference_code=deps.ids.reference_code(),
            resource_id=resource.id,
            user_id=actor.user_id,
            client_id=actor.client_id,
            start=span.start,
            end=span.end,
            participant_count=cmd.participant_count,
            price_per_unit=price.price_per_unit,
            pricing_unit=price.pricing_unit,
            total_price=price.total,
            currency=resource.currency,
            notes=cmd.notes,
            hold_expires_at=now + timedelta(minutes=deps.hold_minutes),
            created_at=now,
            updated_at=now,
        )
        # Stored at once unless its time is taken: should a rule below refuse it, the unit of work
        # ends without commit, and the row with it. One round trip for the check and the INSERT.
        check = uow.bookings.add_unless_overlapped(booking, checked_span(resource, span), now)
        if check.lapsed_hold_ids:  # rare: the worker's sweep usually got there first
            if not serializes_bookings(resource):
                uow.resources.lock(rid)  # the lock order of every path: resource, then its bookings
            # all of the resource's lapsed holds, not only those in the way: the query is the same
            expire_stale_holds(uow, now, resource.id)
        validate_against_bookings(resource, span, opening, [b.span for b in check.blocked])
        if not check.stored:  # only a lapsed hold stood in the way, and it is expired now
            uow.bookings.add(booking)
        client = uow.clients.get(actor.client_id) if actor.client_id is not None else None
        # a new booking has no payment yet, and its resource is already at hand
        view = BookingView(
            booking=booking,
            resource=resource,
            payment=None,
            client=client,
            external_user_id=actor.external_user_id,
            now=now,
        )
        if record is not None:
            record(uow, view)
        uow.commit()
    return view


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
