"""Claiming a resource's time: what a claim is checked against, and what decides it.

A booking claims time on its resource, and a booking moved by staff claims its new time again.
Storage makes a claim through one port method (:meth:`booking_core.ports.Bookings.claim`, and
:meth:`~booking_core.ports.Bookings.reclaim` for a booking that exists), which shows the domain the
time around the claim as it will be stored against (:class:`ClaimCheck`) and stores the claim only
if the domain's rules accept it. Which time that is, and whether concurrent
claims must be decided one after another, is a domain fact: :func:`neighbourhood`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from booking_core.availability import BookedSlot
from booking_core.booking import Booking
from booking_core.catalog import Resource
from booking_core.errors import TooManyUnpaid
from booking_core.state_machine import Circumstances, Event, Outcome, decide
from booking_core.timerange import TimeRange


@dataclass(frozen=True, slots=True, kw_only=True)
class Neighbourhood:
    """The time whose blocking claims decide whether a span may be claimed.

    ``serialized``: whether concurrent claims of the resource must be decided one after another,
    because the verdict reads claims *next to* the span, which a concurrent claim could add unseen.
    """

    span: TimeRange
    serialized: bool


def neighbourhood(resource: Resource, span: TimeRange) -> Neighbourhood:
    """The neighbourhood of ``span`` on ``resource`` that the booking rules read.

    The overlap rule needs only ``span``, and the storage's overlap constraint decides between
    concurrent claims by itself. The gap rule needs the free block around the span, but only within
    the minimum booking of either end: a neighbour further away leaves a gap of at least the minimum
    whether it is seen or not, so it cannot change the verdict. A concurrent claim could shrink that
    block unseen, so with the rule on, claims of the resource are decided one after another.
    """
    if not resource.prevent_unbookable_gaps:
        return Neighbourhood(span=span, serialized=False)
    pad = timedelta(minutes=resource.min_booking_duration_minutes)
    return Neighbourhood(span=TimeRange(span.start - pad, span.end + pad), serialized=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimCheck:
    """The time around a claim as the claim is stored against it.

    ``blocking``: the resource's claims that block time at the claim's instant and overlap its
    neighbourhood (lapsed holds are expired first, so they are not among them). ``unpaid_holds``:
    for a claim that leaves its user an unpaid hold (a pending booking), how many other pending
    bookings of that user hold their time; 0 for any other claim.
    """

    blocking: list[BookedSlot]
    unpaid_holds: int = 0

    @property
    def blocking_spans(self) -> list[TimeRange]:
        """The time of :attr:`blocking`."""
        return [slot.span for slot in self.blocking]


#: The domain's verdict on a claim: returns to accept it, raises the refusing rule's error.
Accept = Callable[[ClaimCheck], None]


def refuse_beyond_unpaid_limit(check: ClaimCheck, limit: int) -> None:
    """Refuse a new pending booking for a user who holds ``limit`` unpaid bookings already.

    Counted are the user's pending bookings whose hold is live, made directly or through any client
    (:attr:`ClaimCheck.unpaid_holds`); one that is paid, cancelled or lapses frees its place. The
    storage counts them while no other claim of the user can be stored, so the limit holds whatever
    the number of concurrent requests or server processes.

    Raises:
        TooManyUnpaid: the user is at the limit.
    """
    if check.unpaid_holds >= limit:
        raise TooManyUnpaid()


def expired_hold(booking: Booking, now: datetime) -> Booking | None:
    """``booking`` (locked and re-read) with its lapsed hold expired, as the state machine decides
    the hold's expiry; None when it is not a lapsed hold any more (paid or cancelled meanwhile).

    A claim expires the lapsed holds in its way with this, so that their time is free again.
    """
    change = decide(booking, Event.HOLD_EXPIRY, Circumstances(now=now))
    return change.booking if change.outcome is Outcome.EXPIRE else None
