"""The console's two languages: its labels from Babel message catalogs, and dates, times and money
written the way each language writes them.

English is the source language of the templates; German comes from ``locale/de/LC_MESSAGES/console.po``,
read (and compiled in memory) when first needed, so no build step stands between the file and the page.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any

from babel import Locale, dates, numbers
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from jinja2 import pass_context

LANGUAGES = ("de", "en")
DEFAULT_LANGUAGE = "en"
DOMAIN = "console"
LOCALE_DIR = Path(__file__).parent / "locale"


def catalog_path(language: str) -> Path:
    """The message catalog (``.po``) of ``language``."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(language: str) -> NullTranslations:
    """The translations of ``language``; English, the templates' own language, has no catalog."""
    path = catalog_path(language)
    if not path.is_file():
        return NullTranslations()
    with path.open("rb") as file:
        catalog = read_po(file, locale=language, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def supported(language: str | None) -> str | None:
    """``language`` when the console speaks it, else None."""
    return language if language in LANGUAGES else None


def negotiate(accept_language: str | None) -> str:
    """The first language of an ``Accept-Language`` header that the console speaks (else English)."""
    wanted = [part.split(";")[0].strip().lower() for part in (accept_language or "").split(",")]
    for tag in wanted:
        if found := supported(tag.split("-")[0]):
            return found
    return DEFAULT_LANGUAGE


@cache
def _clock_time(language: str, hour: int, minute: int) -> str:
    """A time of day in the short format, which shows hours and minutes only. A day sheet writes a
    few dozen distinct times several hundred times, and each of Babel's calls costs about as much
    as the rest of the page's rendering: hence one call per time and language."""
    return dates.format_time(dt.time(hour, minute), "short", locale=language)


@dataclass(frozen=True, slots=True)
class Formats:
    """Dates, times and amounts as ``language`` writes them (Babel's CLDR data)."""

    language: str

    @property
    def locale(self) -> Locale:
        """Babel's locale of the language."""
        return Locale.parse(self.language)

    def date(self, day: dt.date) -> str:
        """``Friday, June 5, 2026`` / ``Freitag, 5. Juni 2026``."""
        return dates.format_date(day, "full", locale=self.language)

    def short_date(self, day: dt.date) -> str:
        """``Jun 5, 2026`` / ``05.06.2026``."""
        return dates.format_date(day, "medium", locale=self.language)

    def month(self, month: str | dt.date) -> str:
        """A month (``2026-06``, or a day of it) as ``June 2026`` / ``Juni 2026``."""
        day = month if isinstance(month, dt.date) else dt.date.fromisoformat(f"{month}-01")
        return dates.format_skeleton("yMMMM", day, locale=self.language)

    def time(self, moment: dt.time | dt.datetime) -> str:
        """``5:30 PM`` / ``17:30`` (the clock time ``moment`` shows, in its own time zone)."""
        return _clock_time(self.language, moment.hour, moment.minute)

    def hour(self, hour: int) -> str:
        """The full hour ``hour`` (0-23): ``5:00 PM`` / ``17:00``."""
        return self.time(dt.time(hour))

    def number(self, value: Decimal | float) -> str:
        """At most one decimal: ``1,234.5`` / ``1.234,5``."""
        return numbers.format_decimal(value, format="#,##0.#", locale=self.language)

    def money(self, amount: Decimal, currency: str) -> str:
        """``€1,234.50`` / ``1.234,50 €``."""
        return numbers.format_currency(amount, currency, locale=self.language)

    def percent(self, share: Decimal) -> str:
        """``0.45`` as ``45%`` / ``45 %``."""
        return numbers.format_percent(share, locale=self.language)

    def short_month(self, day: dt.date) -> str:
        """``Mar`` / ``Mär``: the month alone, for a chart's axis."""
        return dates.format_skeleton("MMM", day, locale=self.language)

    def weekday(self, iso_weekday: int, width: str = "wide") -> str:
        """ISO weekday 1 (Monday) to 7: ``Monday`` / ``Montag``, abbreviated ``Mon`` / ``Mo.``."""
        return str(self.locale.days["format"][width][iso_weekday - 1])

    def decimal_field(self, text: str) -> str:
        """A decimal as the catalog writes it (``22.50``) written for a form field in the language
        (``22,50``): the same places, no grouping, so the settings page reads it back as it is."""
        if not re.fullmatch(r"\d+\.\d+", text):
            return text
        return text.replace(".", numbers.get_decimal_symbol(self.language))

    def language_name(self, language: str) -> str:
        """The name of ``language`` in its own words (``Deutsch``, ``English``)."""
        return Locale.parse(language).get_display_name(language) or language


def gettext_callables(languages: Iterable[str] = LANGUAGES) -> dict[str, Any]:
    """``gettext`` and ``ngettext`` for Jinja2's i18n extension that translate into the ``language``
    of the template's context, so one environment serves every language."""
    for language in languages:
        translations(language)  # read every catalog at start-up: a broken one fails there

    @pass_context
    def gettext(context: Any, message: str) -> str:
        return translations(context.get("language", DEFAULT_LANGUAGE)).ugettext(message)

    @pass_context
    def ngettext(context: Any, singular: str, plural: str, count: int) -> str:
        return translations(context.get("language", DEFAULT_LANGUAGE)).ungettext(singular, plural, count)

    return {"gettext": gettext, "ngettext": ngettext}
