"""Prices: the demand level, the dynamic price function and the quote of a booking.

Money is ``Decimal``. Sums over parts of an hour are kept as exact fractions and rounded half-up to
the currency's minor unit (or the coarser amount the provider takes) once, at the end, so a quote
does not depend on how a booking is cut into pieces.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal
from fractions import Fraction

from booking_core.catalog import DynamicPricing, PriceUnit, Resource
from booking_core.errors import ValidationFailed
from booking_core.localtime import next_aligned
from booking_core.money import CurrencyUnit
from booking_core.schedule import Window, blocked_time, expand_windows
from booking_core.timerange import TimeRange, intersect, subtract

DEMAND_WINDOW = dt.timedelta(days=7)
CENT = Decimal("0.01")
_LOW_FACTOR = Decimal("0.75")
_DEMAND_FACTOR = Decimal("0.75")
_HOUR = dt.timedelta(hours=1)


def _micros(span: dt.timedelta) -> int:
    return (span.days * 86_400 + span.seconds) * 1_000_000 + span.microseconds


def _round_half_up(amount: Fraction, places: int) -> Decimal:
    scaled = abs(amount) * 10**places
    whole = math.floor(scaled + Fraction(1, 2))
    return Decimal(-whole if amount < 0 else whole).scaleb(-places)


def demand_level(resource: Resource, *, blocking: Sequence[TimeRange], now: dt.datetime) -> Decimal:
    """Share of bookable window time in ``[now, now + 7 days)`` that is already taken.

    Args:
        resource: The resource whose windows are measured.
        blocking: Ranges of the ``confirmed`` and ``paid`` bookings: unpaid holds are left out by
            the caller, so that holding time cannot move prices. Unavailable periods are added here.
        now: The current instant.

    Returns:
        A value from 0 to 1 with four decimals; 0 when there is no window time at all.
    """
    horizon = TimeRange(now, now + DEMAND_WINDOW)
    tz = resource.tz
    windows = expand_windows(resource, horizon.start.astimezone(tz).date(), horizon.end.astimezone(tz).date())
    open_time = intersect((w.range for w in windows), [horizon])
    total = sum(_micros(r.duration) for r in open_time)
    if total == 0:
        return Decimal("0.0000")
    blocked = sum(
        _micros(r.duration) for r in intersect(open_time, blocked_time(resource, blocking, horizon))
    )
    return _round_half_up(Fraction(blocked, total), 4)


def dynamic_price(base: Decimal, demand: Decimal, pricing: DynamicPricing) -> Decimal:
    """The price per unit at a demand level; ``base`` in cents when dynamic pricing is off.

    When enabled: ``base * (0.75 + 0.75 * demand)`` (0.75x at no demand, 1.5x when fully booked) with
    demand held to 0..1, rounded half-up to cents, then held within ``min_price``..``max_price``
    (either may be None; bounds with more than two decimals are rounded inwards to cents). It never
    decreases as demand rises. If ``min_price`` exceeds ``max_price``, ``max_price`` wins.

    Args:
        base: The time slot's price per unit.
        demand: The resource's demand level, 0 to 1.
        pricing: The resource's dynamic pricing settings.
    """
    if not pricing.enabled:
        return base.quantize(CENT, ROUND_HALF_UP)
    demand = min(max(demand, Decimal(0)), Decimal(1))
    price = (base * (_LOW_FACTOR + _DEMAND_FACTOR * demand)).quantize(CENT, ROUND_HALF_UP)
    if pricing.min_price is not None:
        price = max(price, pricing.min_price.quantize(CENT, ROUND_CEILING))
    if pricing.max_price is not None:
        price = min(price, pricing.max_price.quantize(CENT, ROUND_FLOOR))
    return price


def slot_prices(
    resource: Resource, span: TimeRange, *, base: Decimal, demand: Decimal
) -> dict[str, Decimal] | None:
    """Price per unit of every aligned start in ``span``, keyed by local ``HH:MM``.

    Returns:
        None when dynamic pricing is off. Within one time slot the demand level, hence the price,
        is the same for every start.
    """
    if not resource.dynamic_pricing.enabled:
        return None
    tz, interval = resource.tz, resource.booking_interval_minutes
    price = dynamic_price(base, demand, resource.dynamic_pricing)
    prices: dict[str, Decimal] = {}
    start = next_aligned(span.start, tz, interval)
    while start < span.end:
        local = start.astimezone(tz)
        prices.setdefault(f"{local.hour:02d}:{local.minute:02d}", price)
        start = next_aligned(start + dt.timedelta(minutes=1), tz, interval)
    return prices


@dataclass(frozen=True, slots=True, kw_only=True)
class Quote:
    """The price of a booking: the unit price where it starts, and the total as the provider charges it."""

    price_per_unit: Decimal
    pricing_unit: PriceUnit
    total: Decimal


def _priced_parts(resource: Resource, span: TimeRange) -> list[tuple[Window, TimeRange]]:
    tz = resource.tz
    windows = expand_windows(resource, span.start.astimezone(tz).date(), span.end.astimezone(tz).date())
    parts = [(w, part) for w in windows if (part := w.range.intersection(span)) is not None]
    if not parts or subtract([span], (w.range for w in windows)):
        raise ValidationFailed("The booking lies outside the bookable hours.")
    return parts


def _sum_parts(
    resource: Resource, parts: list[tuple[Window, TimeRange]], participants: int, demand: Decimal
) -> Fraction:
    total = Fraction(0)
    flat_charged = False
    for window, part in parts:
        price = Fraction(dynamic_price(window.price_per_unit, demand, resource.dynamic_pricing))
        unit = window.pricing_unit
        if unit is PriceUnit.BOOKING:
            if not flat_charged:
                total += price
                flat_charged = True
            continue
        hours = Fraction(_micros(part.duration), _micros(_HOUR))
        total += price * hours * (participants if unit is PriceUnit.PERSON_HOUR else 1)
    return total


def quote_exact(resource: Resource, span: TimeRange, *, participants: int, demand: Decimal) -> Fraction:
    """The unrounded total of a booking, as an exact fraction; :func:`quote` explains the rules.

    Raises:
        ValidationFailed: ``span`` is empty or not wholly inside bookable windows.
    """
    return _sum_parts(resource, _priced_parts(resource, span), participants, demand)


def quote(
    resource: Resource, span: TimeRange, *, participants: int, demand: Decimal, unit: CurrencyUnit
) -> Quote:
    """Price a booking of ``span`` that lies inside the resource's windows.

    Each time slot the booking touches adds its (dynamic) price per unit for the time inside it:
    ``hour`` per hour, ``person_hour`` per hour and participant, ``booking`` a flat price charged once
    per booking (the first flat-priced slot met, normally the one where the booking starts). The
    dynamic price depends on the slot and the demand level only, so applying it per booking interval
    equals applying it per slot. The total is rounded half-up once, to ``unit``'s quantum: the
    currency's minor unit (JPY 1, EUR 0.01, KWD 0.001) or the coarser amount the provider takes
    (KWD with Stripe: 0.010).

    Raises:
        ValidationFailed: ``span`` is empty or not wholly inside bookable windows.
    """
    parts = _priced_parts(resource, span)
    first = parts[0][0]
    return Quote(
        price_per_unit=dynamic_price(first.price_per_unit, demand, resource.dynamic_pricing),
        pricing_unit=first.pricing_unit,
        total=unit.round(_sum_parts(resource, parts, participants, demand)),
    )
