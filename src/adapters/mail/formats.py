"""Dates, times and amounts as a German or English reader expects them (Jinja2 filters).

Two languages need a dozen names each; a locale library would bring the data of hundreds.
"""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

from adapters.currencies import iso_exponent

_MONTHS = {
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
           "Oktober", "November", "Dezember"),
    "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"),
}  # fmt: skip
_WEEKDAYS = {
    "de": ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
}
_SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "CHF": "CHF", "JPY": "¥"}


def long_date(moment: datetime, language: str) -> str:
    """``Dienstag, 1. Dezember 2026`` / ``Tuesday, 1 December 2026``."""
    weekday = _WEEKDAYS[language][moment.weekday()]
    month = _MONTHS[language][moment.month - 1]
    if language == "de":
        return f"{weekday}, {moment.day}. {month} {moment.year}"
    return f"{weekday}, {moment.day} {month} {moment.year}"


def clock(moment: datetime) -> str:
    """``09:30``: 24-hour time, as both languages use it in Europe and on tickets."""
    return moment.strftime("%H:%M")


def money(amount: Decimal, currency: str, language: str) -> str:
    """``20,00 €`` / ``€20.00``; grouping of thousands as each language writes it.

    With the currency's own decimals from ISO 4217: none for JPY, three for KWD (``KWD 20.500``).
    """
    number = f"{amount.quantize(Decimal(1).scaleb(-iso_exponent(currency.upper())), ROUND_HALF_UP):,}"
    symbol = _SYMBOLS.get(currency.upper(), currency.upper())
    if language == "de":
        number = number.replace(",", "\0").replace(".", ",").replace("\0", ".")
        return f"{number} {symbol}"
    return f"{symbol}{number}" if len(symbol) == 1 else f"{symbol} {number}"
