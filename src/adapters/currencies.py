"""Currencies from ISO 4217, as the ``iso4217`` package ships ISO's published table.

A code is charged only if the table gives it a minor unit (not gold, SDR or fund codes, whose minor
unit is "N.A."); the payment provider's rules (:class:`ProviderAmounts`) then say which multiples of
that minor unit it takes.
"""

from __future__ import annotations

from typing import Protocol

import iso4217

from booking_core.money import CurrencyUnit, UnknownCurrency


class ProviderAmounts(Protocol):
    """A payment provider's rules for the amounts it takes."""

    def step(self, code: str, exponent: int) -> int:
        """The provider takes multiples of this many ISO minor units of ``code`` (1 for most).

        Raises:
            UnknownCurrency: the provider cannot charge ``code`` exactly.
        """


class EveryMinorUnit:
    """A provider that takes any whole number of minor units."""

    def step(self, code: str, exponent: int) -> int:
        """Always 1."""
        return 1


class IsoCurrencies:
    """A :class:`~booking_core.ports.Currencies` on ISO 4217 and a provider's rules."""

    def __init__(self, provider: ProviderAmounts | None = None) -> None:
        self._provider = provider or EveryMinorUnit()
        self._units: dict[str, CurrencyUnit] = {}

    def unit(self, code: str) -> CurrencyUnit:
        """The unit of ``code``; raises UnknownCurrency for a code ISO 4217 does not give a minor unit."""
        key = code.upper()
        found = self._units.get(key)
        if found is None:
            exponent = iso_exponent(key)
            found = CurrencyUnit(code=key, exponent=exponent, step=self._provider.step(key, exponent))
            self._units[key] = found
        return found


def iso_exponent(code: str) -> int:
    """ISO 4217's minor unit of ``code`` (upper case); raises UnknownCurrency if it has none."""
    try:
        exponent = iso4217.Currency(code).exponent
    except ValueError:
        raise UnknownCurrency(f"{code!r} is not an ISO 4217 currency code") from None
    if exponent is None:
        raise UnknownCurrency(f"{code} has no minor unit in ISO 4217 and cannot be charged")
    return exponent
