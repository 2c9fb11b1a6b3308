"""Minor units from ISO 4217 and Stripe's amounts: the table is the library's, the rules Stripe's."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from adapters.currencies import IsoCurrencies
from adapters.payments.stripe.amounts import from_stripe, stripe_currencies, to_stripe
from booking_core.catalog import PriceUnit
from booking_core.money import UnknownCurrency
from booking_core.pricing import quote
from tests.unit.builders import resource, slot, span, weekly

STRIPE = stripe_currencies()


@pytest.mark.parametrize(
    ("code", "price", "minor"),
    [("JPY", "20", 20), ("EUR", "20.50", 2050), ("KWD", "20.500", 20500), ("BHD", "1.250", 1250)],
)
def test_minor_units_follow_iso_4217(code: str, price: str, minor: int) -> None:
    unit = STRIPE.unit(code)

    assert unit.to_minor(Decimal(price)) == minor
    assert unit.from_minor(minor) == Decimal(price)


@pytest.mark.parametrize(
    ("code", "exponent", "step", "quantum"),
    [
        ("EUR", 2, 1, "0.01"),
        ("JPY", 0, 1, "1"),
        ("KWD", 3, 10, "0.010"),  # three decimals, the last one 0
        ("MGA", 2, 100, "1.00"),  # zero-decimal at Stripe, two decimals in ISO 4217
        ("ISK", 0, 1, "1"),  # whole krónur, written with two decimals at Stripe
        ("HUF", 2, 1, "0.01"),  # only HUF payouts are whole forints
    ],
)
def test_stripe_takes_some_amounts_only(code: str, exponent: int, step: int, quantum: str) -> None:
    unit = STRIPE.unit(code)

    assert (unit.exponent, unit.step, unit.quantum) == (exponent, step, Decimal(quantum))
    assert IsoCurrencies().unit(code).step == 1


def test_totals_round_half_up_to_the_nearest_amount_the_provider_takes() -> None:
    kwd, jpy = STRIPE.unit("KWD"), STRIPE.unit("JPY")

    assert kwd.round(Decimal("20.505")) == Decimal("20.510")
    assert kwd.round(Decimal("20.5049")) == Decimal("20.500")
    assert jpy.round(Decimal("20.5")) == Decimal(21)
    assert not kwd.is_chargeable(Decimal("20.505"))
    assert kwd.is_chargeable(Decimal("20.500"))


def test_a_quote_is_rounded_in_its_currency() -> None:
    """1.5 hours at 0.010 KWD is 0.015: 0.020 with Stripe; 1.5 hours at 15 JPY is 22.5: 23 (not 22.50)."""
    kwd = resource(
        *weekly(slot("08:00", "22:00", price="0.010", pricing_unit=PriceUnit.HOUR)), currency="KWD"
    )
    jpy = resource(*weekly(slot("08:00", "22:00", price="15", pricing_unit=PriceUnit.HOUR)), currency="JPY")
    when = span(dt.date(2026, 6, 1), "10:00", "11:30")

    kwd_total = quote(kwd, when, participants=1, demand=Decimal(0), unit=STRIPE.unit("KWD")).total
    jpy_total = quote(jpy, when, participants=1, demand=Decimal(0), unit=STRIPE.unit("JPY")).total
    assert (kwd_total, jpy_total) == (Decimal("0.020"), Decimal(23))


def test_stripe_writes_isk_with_two_decimals() -> None:
    isk = STRIPE.unit("ISK")

    assert to_stripe(5, isk) == 500
    assert from_stripe(500, isk) == 5
    assert from_stripe(550, isk) is None  # half a króna is no amount of the service
    assert to_stripe(20500, STRIPE.unit("KWD")) == 20500
    assert to_stripe(2000, STRIPE.unit("MGA")) == 20


@pytest.mark.parametrize(("code", "message"), [("XYZ", "not an ISO 4217"), ("XAU", "no minor unit")])
def test_codes_without_a_minor_unit_are_unknown(code: str, message: str) -> None:
    with pytest.raises(UnknownCurrency, match=message):
        STRIPE.unit(code)
