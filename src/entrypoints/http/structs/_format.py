"""How domain values are written on the wire: prices with two decimals, amounts with their currency's,
datetimes with an offset."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from typing import overload

from adapters.currencies import iso_exponent
from booking_core.money import UnknownCurrency


def money(value: Decimal) -> str:
    """A decimal string with exactly two decimals (``"20.00"``)."""
    return f"{value:.2f}"


def amount_in(value: Decimal, currency: str) -> str:
    """An amount of ``currency`` with ISO 4217's decimals for it (``"20.50"`` EUR, ``"20.500"`` KWD,
    ``"20"`` JPY); prices per unit are rates and keep :func:`money`'s two decimals."""
    try:
        exponent = iso_exponent(currency.upper())
    except UnknownCurrency:  # not chargeable: the catalog refuses such a currency, so none is stored
        return money(value)
    return f"{value:.{exponent}f}"


def money_or_none(value: Decimal | None) -> str | None:
    """:func:`money`, keeping None."""
    return None if value is None else money(value)


@overload
def utc(value: datetime) -> datetime: ...
@overload
def utc(value: None) -> None: ...
def utc(value: datetime | None) -> datetime | None:
    """The instant in UTC (created_at/updated_at are always reported in UTC)."""
    return None if value is None else value.astimezone(UTC)


@overload
def local(value: datetime, tz: tzinfo) -> datetime: ...
@overload
def local(value: None, tz: tzinfo) -> None: ...
def local(value: datetime | None, tz: tzinfo) -> datetime | None:
    """The instant in the venue's timezone, so it is written with the venue's local offset."""
    return None if value is None else value.astimezone(tz)
