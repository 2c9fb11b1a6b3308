"""The port that knows currencies: ISO 4217's minor units and what the payment provider takes."""

from __future__ import annotations

from typing import Protocol

from booking_core.money import CurrencyUnit


class Currencies(Protocol):
    """Currencies the service can charge in, from a maintained ISO 4217 table and the provider's rules."""

    def unit(self, code: str) -> CurrencyUnit:
        """The minor unit of ``code`` (any case) and the provider's step.

        Raises:
            UnknownCurrency: ``code`` is not ISO 4217, has no minor unit (gold, fund codes) or
                cannot be charged by the provider.
        """
