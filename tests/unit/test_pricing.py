"""Demand level, dynamic prices and quotes."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from booking_core.catalog import DynamicPricing, PriceUnit
from booking_core.errors import ValidationFailed
from booking_core.money import CurrencyUnit
from booking_core.pricing import demand_level, dynamic_price, quote, quote_exact
from booking_core.timerange import TimeRange
from tests.unit.builders import at, closure, resource, slot, span, weekly

MONDAY = dt.date(2026, 6, 1)
ZERO = Decimal(0)
ON = DynamicPricing(enabled=True)
EUR = CurrencyUnit(code="EUR", exponent=2)

money = st.decimals(min_value=Decimal("0.00"), max_value=Decimal("500.00"), places=2)
demands = st.decimals(min_value=Decimal(0), max_value=Decimal(1), places=4)


@st.composite
def bounded(draw: st.DrawFn) -> DynamicPricing:
    low, high = sorted((draw(money), draw(money)))
    return DynamicPricing(
        enabled=True,
        min_price=draw(st.sampled_from([None, low])),
        max_price=draw(st.sampled_from([None, high])),
    )


@given(base=money, demand=demands, pricing=bounded())
def test_dynamic_price_stays_within_bounds_in_cents(
    base: Decimal, demand: Decimal, pricing: DynamicPricing
) -> None:
    price = dynamic_price(base, demand, pricing)

    assert price == price.quantize(Decimal("0.01"))
    assert pricing.min_price is None or price >= pricing.min_price
    assert pricing.max_price is None or price <= pricing.max_price


@given(base=money, low=demands, high=demands, pricing=bounded())
def test_dynamic_price_never_falls_as_demand_rises(
    base: Decimal, low: Decimal, high: Decimal, pricing: DynamicPricing
) -> None:
    low, high = sorted((low, high))

    assert dynamic_price(base, low, pricing) <= dynamic_price(base, high, pricing)


def test_dynamic_price_formula_and_disabled_pricing() -> None:
    assert dynamic_price(Decimal("20"), Decimal(0), ON) == Decimal("15.00")
    assert dynamic_price(Decimal("20"), Decimal("0.5"), ON) == Decimal("22.50")
    assert dynamic_price(Decimal("20"), Decimal(1), ON) == Decimal("30.00")
    assert (
        dynamic_price(Decimal("20"), Decimal(1), DynamicPricing(enabled=True, max_price=Decimal("25"))) == 25
    )
    assert dynamic_price(Decimal("20.005"), Decimal(1), DynamicPricing()) == Decimal("20.01")


def test_demand_level_is_the_blocked_share_of_the_next_seven_days() -> None:
    court = resource(*weekly(slot("08:00", "10:00")))
    now = at(MONDAY, "00:00")
    week = [span(MONDAY + dt.timedelta(days=n), "08:00", "09:00") for n in range(7)]

    assert demand_level(court, blocking=[], now=now) == Decimal("0.0000")
    assert demand_level(court, blocking=week, now=now) == Decimal("0.5000")
    assert demand_level(court, blocking=week[:1], now=now) == Decimal("0.0714")
    assert demand_level(resource(), blocking=week, now=now) == 0


def test_demand_level_counts_unavailable_periods_and_only_window_time() -> None:
    court = resource(
        *weekly(slot("08:00", "10:00")), unavailable_periods=(closure(MONDAY, "06:00", "10:00"),)
    )

    assert demand_level(court, blocking=[], now=at(MONDAY, "00:00")) == Decimal("0.1429")


def test_quote_per_hour_across_two_slots() -> None:
    court = resource(*weekly(slot("08:00", "17:00"), slot("17:00", "22:00", price="30.00")))

    price = quote(court, span(MONDAY, "16:00", "18:30"), participants=2, demand=ZERO, unit=EUR)

    assert price.total == Decimal("65.00")
    assert price.price_per_unit == Decimal("20.00")
    assert price.pricing_unit is PriceUnit.HOUR


def test_quote_per_person_hour() -> None:
    court = resource(*weekly(slot("08:00", "22:00", price="8.00", pricing_unit=PriceUnit.PERSON_HOUR)))

    price = quote(court, span(MONDAY, "10:00", "11:30"), participants=3, demand=ZERO, unit=EUR)

    assert price.total == Decimal("36.00")
    assert price.pricing_unit is PriceUnit.PERSON_HOUR


def test_quote_per_booking_is_flat_and_charged_once() -> None:
    court = resource(
        *weekly(
            slot("08:00", "12:00", price="50.00", pricing_unit=PriceUnit.BOOKING),
            slot("12:00", "16:00", price="70.00", pricing_unit=PriceUnit.BOOKING),
        )
    )

    price = quote(court, span(MONDAY, "11:00", "14:00"), participants=4, demand=ZERO, unit=EUR)

    assert (price.total, price.price_per_unit, price.pricing_unit) == (
        Decimal("50.00"),
        Decimal("50.00"),
        PriceUnit.BOOKING,
    )


@pytest.mark.parametrize(
    ("unit", "total"),
    [(PriceUnit.HOUR, "50.00"), (PriceUnit.BOOKING, "25.00"), (PriceUnit.PERSON_HOUR, "150.00")],
)
def test_a_slot_without_a_unit_of_its_own_is_charged_in_the_resources(unit: PriceUnit, total: str) -> None:
    court = resource(*weekly(slot("08:00", "22:00", price="25.00")), price_unit=unit)

    price = quote(court, span(MONDAY, "10:00", "12:00"), participants=3, demand=ZERO, unit=EUR)

    assert (price.pricing_unit, price.total) == (unit, Decimal(total))
    # the slots of the resource say so themselves, as those loaded from a catalog file do
    own = court.schedules[0].time_slots[0]
    assert (own.pricing_unit, own.slot_duration_minutes) == (unit, court.booking_interval_minutes)


def test_a_slot_keeps_a_unit_of_its_own() -> None:
    court = resource(
        *weekly(slot("08:00", "22:00", price="25.00", pricing_unit=PriceUnit.HOUR)),
        price_unit=PriceUnit.BOOKING,
    )

    assert quote(
        court, span(MONDAY, "10:00", "12:00"), participants=1, demand=ZERO, unit=EUR
    ).total == Decimal("50.00")


def test_quote_applies_dynamic_pricing_and_rounds_half_up() -> None:
    dynamic = resource(*weekly(slot("08:00", "22:00")), dynamic_pricing=ON)
    cheap = resource(*weekly(slot("08:00", "22:00", price="0.25")))

    assert quote(
        dynamic, span(MONDAY, "10:00", "12:00"), participants=1, demand=Decimal(1), unit=EUR
    ).total == Decimal("60.00")
    assert quote(
        cheap, span(MONDAY, "10:00", "10:30"), participants=1, demand=ZERO, unit=EUR
    ).total == Decimal("0.13")


def test_quote_in_real_time_on_a_dst_day() -> None:
    court = resource(*weekly(slot("00:00", "00:00", price="10.00")))

    assert (
        quote(
            court, span(dt.date(2026, 3, 29), "01:00", "04:00"), participants=1, demand=ZERO, unit=EUR
        ).total
        == 20
    )


def test_quote_outside_windows_is_refused() -> None:
    court = resource(*weekly(slot("08:00", "12:00"), slot("13:00", "18:00")))

    with pytest.raises(ValidationFailed, match="outside"):
        quote(court, span(MONDAY, "11:00", "14:00"), participants=1, demand=ZERO, unit=EUR)
    with pytest.raises(ValidationFailed):
        quote(court, span(MONDAY, "11:00", "11:00"), participants=1, demand=ZERO, unit=EUR)


@given(
    start=st.integers(32, 60),  # quarter hours since midnight: 08:00 to 15:00
    cut=st.integers(1, 20),
    rest=st.integers(1, 20),
    participants=st.integers(1, 6),
    demand=demands,
    unit=st.sampled_from([PriceUnit.HOUR, PriceUnit.PERSON_HOUR]),
    prices=st.tuples(money, money, money),
)
def test_quote_is_additive_when_a_booking_is_split(
    start: int,
    cut: int,
    rest: int,
    participants: int,
    demand: Decimal,
    unit: PriceUnit,
    prices: tuple[Decimal, Decimal, Decimal],
) -> None:
    slots = (
        slot("08:00", "12:00", price=str(prices[0]), pricing_unit=unit),
        slot("12:00", "12:30", price=str(prices[1]), pricing_unit=unit, label="Noon"),
        slot("12:30", "00:00", price=str(prices[2]), pricing_unit=unit),
    )
    court = resource(*weekly(*slots), dynamic_pricing=ON, booking_interval_minutes=15)
    base = at(MONDAY, "00:00")
    a, b, c = (base + dt.timedelta(minutes=15 * n) for n in (start, start + cut, start + cut + rest))
    assume(c <= at(MONDAY + dt.timedelta(days=1), "00:00"))

    def exact(start: dt.datetime, end: dt.datetime) -> Fraction:
        return quote_exact(court, TimeRange(start, end), participants=participants, demand=demand)

    assert exact(a, b) + exact(b, c) == exact(a, c)
    whole = quote(court, TimeRange(a, c), participants=participants, demand=demand, unit=EUR).total
    parts = sum(
        quote(court, TimeRange(x, y), participants=participants, demand=demand, unit=EUR).total
        for x, y in ((a, b), (b, c))
    )
    assert abs(whole - parts) <= Decimal("0.01")
