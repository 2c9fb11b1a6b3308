"""Amounts of a currency: its ISO 4217 minor unit and the amounts the payment provider takes.

The domain holds no currency table: a :class:`~booking_core.ports.Currencies` adapter reads ISO 4217
and the provider's rules and hands over a :class:`CurrencyUnit`. Totals are rounded half-up to the
unit's ``quantum``, the smallest amount the provider charges (KWD with Stripe: 0.010), and sent to the
provider in minor units (KWD 20.500 is 20500, JPY 20 is 20).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from booking_core.errors import DomainError


class UnknownCurrency(DomainError):
    """A currency code that is not ISO 4217, or one the provider cannot charge."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CurrencyUnit:
    """How amounts of one currency are written and charged.

    Attributes:
        code: The ISO 4217 code, upper case.
        exponent: ISO 4217's minor unit: decimals of the currency (0 for JPY, 2 for EUR, 3 for KWD).
        step: The provider takes only multiples of this many minor units (10 for KWD with Stripe).
    """

    code: str
    exponent: int
    step: int = 1

    def __post_init__(self) -> None:
        if self.exponent < 0 or self.step < 1:
            raise ValueError(f"{self.code}: a minor unit needs exponent >= 0 and step >= 1")

    @property
    def quantum(self) -> Decimal:
        """The smallest amount the provider charges, with the currency's decimals (``0.010`` KWD)."""
        return (Decimal(self.step) * Decimal(1).scaleb(-self.exponent)).quantize(self.minor)

    @property
    def minor(self) -> Decimal:
        """One minor unit (``0.001`` KWD, ``1`` JPY)."""
        return Decimal(1).scaleb(-self.exponent)

    def round(self, amount: Decimal | Fraction) -> Decimal:
        """``amount`` rounded half-up to the nearest amount the provider takes, in the currency's decimals."""
        steps = Fraction(amount) * Fraction(10) ** self.exponent / self.step
        whole = math.floor(abs(steps) + Fraction(1, 2)) * self.step
        return Decimal(-whole if steps < 0 else whole).scaleb(-self.exponent).quantize(self.minor)

    def is_chargeable(self, amount: Decimal) -> bool:
        """True when the provider can charge ``amount`` exactly (no rounding needed)."""
        minor = Fraction(amount) * Fraction(10) ** self.exponent
        return minor.denominator == 1 and minor.numerator % self.step == 0

    def to_minor(self, amount: Decimal) -> int:
        """``amount``, rounded as :meth:`round` does, in minor units (``KWD 20.500`` is 20500)."""
        return int(self.round(amount).scaleb(self.exponent))

    def from_minor(self, amount_minor: int) -> Decimal:
        """A minor-unit amount in major units, with the currency's decimals (20500 KWD is ``20.500``)."""
        return Decimal(amount_minor).scaleb(-self.exponent).quantize(self.minor)
