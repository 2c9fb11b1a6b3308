"""Dates, times and amounts as a German or English reader expects them (Jinja2 filters).

Two languages need a dozen names each; a locale library would bring the data of hundreds.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from booking_core.payments import from_minor_units, to_minor_units

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
    """``20,00 €`` / ``€20.00``; grouping of thousands as each language writes it."""
    # the currency's own number of decimals (none for JPY), as the provider charges it
    number = f"{from_minor_units(to_minor_units(amount, currency), currency):,}"
    symbol = _SYMBOLS.get(currency.upper(), currency.upper())
    if language == "de":
        number = number.replace(",", "\0").replace(".", ",").replace("\0", ".")
        return f"{number} {symbol}"
    return f"{symbol}{number}" if len(symbol) == 1 else f"{symbol} {number}"
