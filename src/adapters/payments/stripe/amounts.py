"""Stripe's amounts: the decimals its API writes each currency with, and the amounts it takes.

Stripe's ``amount`` is an integer in the currency's "smallest unit" as Stripe defines it, which is
ISO 4217's minor unit except where Stripe says otherwise (its documentation, "Supported currencies"):

- zero-decimal currencies are written in whole units, MGA included, whose ISO minor unit is 1/100;
- ISK is written with two decimals (ISO: none), in multiples of 100, so whole krónur;
- three-decimal currencies (BHD, JOD, KWD, OMR, TND) take only multiples of 10: the last digit is 0;
- HUF and TWD are charged with two decimals (only their payouts are whole units).

So the service charges ISO minor units, and this module turns them into Stripe's and back.
"""

from __future__ import annotations

from fractions import Fraction

from adapters.currencies import IsoCurrencies
from booking_core.money import CurrencyUnit, UnknownCurrency

ZERO_DECIMAL = frozenset(
    {
        "BIF",
        "CLP",
        "DJF",
        "GNF",
        "JPY",
        "KMF",
        "KRW",
        "MGA",
        "PYG",
        "RWF",
        "UGX",
        "VND",
        "VUV",
        "XAF",
        "XOF",
        "XPF",
    }
)
THREE_DECIMAL = frozenset({"BHD", "JOD", "KWD", "OMR", "TND"})
#: Currencies Stripe writes with two decimals but charges only in whole units: (decimals, step).
_WHOLE_UNITS_WITH_DECIMALS = {"ISK": (2, 100)}


def _api_grid(code: str) -> tuple[int, int]:
    """Decimals of Stripe's ``amount`` for ``code``, and the multiple of it Stripe takes."""
    if code in ZERO_DECIMAL:
        return 0, 1
    if code in THREE_DECIMAL:
        return 3, 10
    return _WHOLE_UNITS_WITH_DECIMALS.get(code, (2, 1))


class StripeAmounts:
    """Stripe's rules as :class:`adapters.currencies.ProviderAmounts`."""

    def step(self, code: str, exponent: int) -> int:
        """Multiples of ISO minor units Stripe takes: 10 for KWD, 100 for MGA, 1 for EUR or JPY."""
        decimals, step = _api_grid(code.upper())
        iso_units = Fraction(step, 10**decimals) * 10**exponent
        if iso_units < 1:  # Stripe writes finer amounts than the currency has: every one is fine
            return 1
        if iso_units.denominator != 1:
            raise UnknownCurrency(f"Stripe cannot charge {code} in whole ISO 4217 minor units")
        return int(iso_units)


def stripe_currencies() -> IsoCurrencies:
    """ISO 4217's currencies as Stripe charges them."""
    return IsoCurrencies(StripeAmounts())


def to_stripe(amount_minor: int, unit: CurrencyUnit) -> int:
    """ISO minor units of ``unit`` as Stripe's ``amount`` (ISK 5 is 500, KWD 20.500 is 20500)."""
    decimals, _ = _api_grid(unit.code)
    amount = Fraction(amount_minor) * Fraction(10) ** (decimals - unit.exponent)
    if amount.denominator != 1:
        raise UnknownCurrency(f"Stripe cannot charge {amount_minor} minor units of {unit.code} exactly")
    return int(amount)


def from_stripe(amount: int, unit: CurrencyUnit) -> int | None:
    """Stripe's ``amount`` in ISO minor units of ``unit``; None when it is not a whole number of them."""
    decimals, _ = _api_grid(unit.code)
    minor = Fraction(amount) * Fraction(10) ** (unit.exponent - decimals)
    return int(minor) if minor.denominator == 1 else None
