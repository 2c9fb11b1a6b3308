"""The booking rules, the gap rule among them, checked in a fixed order.

1. the end lies after the start;
2. the start, then the end, is aligned to ``booking_interval_minutes`` on the venue's wall clock;
3. the start is in the future, at least ``min_advance_booking_minutes`` and at most
   ``max_advance_booking_days`` ahead;
4. the duration lies between the minimum and the maximum booking;
5. 1 to ``capacity`` participants (the ``capacity_override`` of the time slot where the booking starts);
6. the booking lies wholly inside bookable windows, touching windows counting as one block;
7. it overlaps no blocking booking and no unavailable period;
8. gap rule (when ``prevent_unbookable_gaps``): in the free block that holds the booking, the time left
   before and after it is either none or at least the minimum booking.

Rules 2, 3, 4 and 8 are questions of :class:`booking_core.bookable.BookingRules`, which availability
asks too; it meets 6 and 7 by looking only inside free blocks. Whether the resource exists and is
bookable at all is the use case's concern.

Who books decides which rules hold (:class:`RuleSet`): a customer meets them all (:data:`CUSTOMER`);
staff book at short notice, without the minimum lead time (:data:`STAFF`); a manager overriding the
rules (:data:`OVERRIDE`) is held only to 1, 5 and 7 and to a start that has not passed. No rule set
lets a booking overlap another or closed time (CONTRACT 7.4).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace

from booking_core.bookable import BookingRules
from booking_core.catalog import Resource
from booking_core.claims import Accept, ClaimCheck, refuse_beyond_unpaid_limit
from booking_core.errors import SlotUnavailable, ValidationFailed
from booking_core.schedule import Window, blocked_time, expand_windows
from booking_core.timerange import TimeRange, merge, subtract


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleSet:
    """Which of the rules a request is held to, besides 1, 5, 7 and a start in the future.

    ``lead_time``: the minimum lead time of rule 3. ``resource_rules``: alignment (2), the advance
    window (3), the durations (4), the bookable windows (6) and the gap rule (8).
    """

    lead_time: bool = True
    resource_rules: bool = True


#: A customer's booking (directly or through a client): every rule.
CUSTOMER = RuleSet()
#: A booking made or moved by the venue's staff: every rule but the minimum lead time.
STAFF = RuleSet(lead_time=False)
#: Staff overriding the rules (manager, admin): only the end after the start, a start ahead, the
#: participants and no overlap with bookings or closed time.
OVERRIDE = RuleSet(lead_time=False, resource_rules=False)


def booking_span(start: dt.datetime, end: dt.datetime) -> TimeRange:
    """The span of a requested booking, refusing what cannot form one.

    Raises:
        ValidationFailed: a datetime without offset, or an end that is not after the start.
    """
    if start.utcoffset() is None:
        raise ValidationFailed("Start time must include a timezone offset.", field="start_datetime")
    if end.utcoffset() is None:
        raise ValidationFailed("End time must include a timezone offset.", field="end_datetime")
    if end <= start:
        raise ValidationFailed("End time must be after start time.", field="end_datetime")
    return TimeRange(start, end)


def _refuse(refusal: ValidationFailed | None) -> None:
    if refusal is not None:
        raise refusal


def _check_participants(resource: Resource, windows: list[Window], start: dt.datetime, count: int) -> None:
    capacity = resource.capacity
    for window in windows:
        if window.range.start <= start < window.range.end and window.slot.capacity_override is not None:
            capacity = window.slot.capacity_override
    if count < 1:
        raise ValidationFailed("At least one participant is required.", field="participant_count")
    if count > capacity:
        raise ValidationFailed(f"At most {capacity} participants are allowed.", field="participant_count")


def _windows_around(resource: Resource, rules: BookingRules, span: TimeRange) -> list[Window]:
    """Windows of the local dates within a minimum booking of the booking: where a free block is cut
    off at their edge, the gap left there is long enough, so the gap rule never sees a false one."""
    tz = resource.tz
    return expand_windows(
        resource,
        (span.start - rules.shortest).astimezone(tz).date(),
        (span.end + rules.shortest).astimezone(tz).date(),
    )


def validate_booking(
    resource: Resource,
    span: TimeRange,
    *,
    participant_count: int,
    blocking: Sequence[TimeRange],
    now: dt.datetime,
) -> None:
    """Check a requested booking against the resource's rules, in the order of this module's docstring.

    It is :func:`validate_request` followed by :func:`validate_against_bookings`.

    Args:
        resource: The resource to book.
        span: The requested time (see :func:`booking_span`).
        participant_count: Number of participants.
        blocking: Ranges of other bookings that block time.
        now: The current instant.

    Raises:
        ValidationFailed: A rule is broken; ``field`` names the request field, or is None.
        SlotUnavailable: The time is outside bookable windows or already blocked.
    """
    opening = validate_request(resource, span, participant_count=participant_count, now=now)
    validate_against_bookings(resource, span, opening, blocking)


def validate_request(
    resource: Resource,
    span: TimeRange,
    *,
    participant_count: int,
    now: dt.datetime,
    rule_set: RuleSet = CUSTOMER,
) -> TimeRange:
    """Rules 1 to 6, which need no other booking; returns the block of bookable windows holding ``span``
    (``span`` itself when ``rule_set`` skips the windows).

    Raises as :func:`validate_booking`.
    """
    if span.is_empty:
        raise ValidationFailed("End time must be after start time.", field="end_datetime")
    rules = BookingRules.of(resource)
    if not rule_set.lead_time:
        rules = replace(rules, lead=dt.timedelta(0))
    windows = _windows_around(resource, rules, span)
    if not rule_set.resource_rules:
        if span.start <= now:
            raise ValidationFailed("Start time must be in the future.", field="start_datetime")
        _check_participants(resource, windows, span.start, participant_count)
        return span
    _refuse(rules.alignment_refusal(span))
    _refuse(rules.lead_refusal(span.start, now))
    _refuse(rules.duration_refusal(span))
    _check_participants(resource, windows, span.start, participant_count)

    opening = next((block for block in merge(w.range for w in windows) if block.contains(span)), None)
    if opening is None:
        raise SlotUnavailable("The requested time lies outside the bookable hours.")
    return opening


def validate_against_bookings(
    resource: Resource,
    span: TimeRange,
    opening: TimeRange,
    blocking: Sequence[TimeRange],
    *,
    rule_set: RuleSet = CUSTOMER,
) -> None:
    """Rules 7 and 8 (8 only with ``rule_set.resource_rules``) for a ``span`` that passed
    :func:`validate_request`, which gave ``opening``.

    Raises as :func:`validate_booking`.
    """
    blocked = [r for r in blocked_time(resource, blocking, opening) if not r.is_empty]
    if any(r.overlaps(span) for r in blocked):
        raise SlotUnavailable()
    if not rule_set.resource_rules:
        return
    free = next(block for block in subtract([opening], blocked) if block.contains(span))
    _refuse(BookingRules.of(resource).gap_refusal(free, span))


def accept_new_booking(
    resource: Resource,
    span: TimeRange,
    opening: TimeRange,
    *,
    unpaid_limit: int,
    rule_set: RuleSet = CUSTOMER,
) -> Accept:
    """The verdict on what a claim of a new booking of ``span`` finds, which passed
    :func:`validate_request` (giving ``opening``): the limit of unpaid bookings (counted for a
    pending booking only), then rules 7 and 8 as ``rule_set`` holds them.

    Raises as :func:`validate_booking`, and :class:`~booking_core.errors.TooManyUnpaid`.
    """

    def accept(found: ClaimCheck) -> None:
        refuse_beyond_unpaid_limit(found, unpaid_limit)
        validate_against_bookings(resource, span, opening, found.blocking_spans, rule_set=rule_set)

    return accept


def accept_move(resource: Resource, span: TimeRange, opening: TimeRange, *, rule_set: RuleSet) -> Accept:
    """The verdict on what a move of a booking to ``span`` finds (the booking itself not among it):
    rules 7 and 8 as ``rule_set`` holds them. A move adds no unpaid hold, so no limit is counted.
    """

    def accept(found: ClaimCheck) -> None:
        validate_against_bookings(resource, span, opening, found.blocking_spans, rule_set=rule_set)

    return accept


def accepts_late_payment(resource: Resource, span: TimeRange, blocking: Sequence[TimeRange]) -> bool:
    """Whether a booking whose hold lapsed before its payment arrived may still have its ``span`` now.

    Asked of the rules about the time as it is now: 6 (inside the bookable windows, which the
    catalog may have changed meanwhile), 7 (no blocking booking, no unavailable period) and 8 (the
    gap rule), with ``blocking`` the other bookings that block time now, as read under the
    resource's lock. Not asked again are the rules about the request itself, which the booking met
    when it was made: alignment, duration, participants, and the lead time, which the customer
    started paying within; a booking whose start has passed is refunded by the state machine
    (``Fact.TIME_FREE``) before this is asked.
    """
    windows = _windows_around(resource, BookingRules.of(resource), span)
    opening = next((block for block in merge(w.range for w in windows) if block.contains(span)), None)
    if opening is None:
        return False
    try:
        validate_against_bookings(resource, span, opening, blocking)
    except ValidationFailed:  # SlotUnavailable is one too
        return False
    return True
