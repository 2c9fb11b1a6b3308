"""The console speaks German and English throughout: every message of its templates has a German
translation in the catalog (and the catalog holds no message the templates lost), and dates, times
and money are written as each language writes them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from entrypoints.console.i18n import Formats, catalog_path, negotiate, translations

TEMPLATES = Path(__file__).resolve().parents[2] / "src/entrypoints/console/templates"


def _messages() -> set[str]:
    found = extract_from_dir(
        str(TEMPLATES),
        method_map=[("**.html", "jinja2")],
        options_map={"**.html": {"extensions": "jinja2.ext.i18n"}},
    )
    return {message for _file, _line, message, _comments, _context in found}


def test_every_label_of_the_templates_has_a_german_translation() -> None:
    with catalog_path("de").open("rb") as file:
        catalog = read_po(file)
    translated = {m.id: m.string for m in catalog if m.id}

    assert _messages() - set(translated) == set()  # add them to locale/de/LC_MESSAGES/console.po
    assert set(translated) - _messages() == set()  # no longer in any template
    assert [m for m, text in translated.items() if not text] == []
    assert not [m.id for m in catalog if m.id and m.fuzzy]


def test_the_catalog_is_read_without_a_build_step() -> None:
    assert translations("de").ugettext("Sign in") == "Anmelden"
    assert translations("en").ugettext("Sign in") == "Sign in"


def test_dates_times_and_money_are_written_per_language() -> None:
    day, at, amount = dt.date(2026, 6, 5), dt.time(17, 30), Decimal("1234.50")

    assert Formats("de").date(day) == "Freitag, 5. Juni 2026"
    assert Formats("en").date(day) == "Friday, June 5, 2026"
    assert Formats("de").time(at) == "17:30"
    assert Formats("en").time(at) == "5:30\u202fPM"
    assert Formats("de").money(amount, "EUR") == "1.234,50\xa0€"
    assert Formats("en").money(amount, "EUR") == "€1,234.50"
    assert Formats("en").language_name("de") == "Deutsch"
    assert Formats("de").weekday(1) == "Montag"  # the catalog's weekdays: 1 = Monday ... 7 = Sunday
    assert Formats("en").weekday(7) == "Sunday"
    assert Formats("de").decimal_field("22.50") == "22,50"  # a price in a form field, read back as typed
    assert Formats("en").decimal_field("22.50") == "22.50"


def test_before_sign_in_the_browsers_first_spoken_language_counts() -> None:
    assert negotiate("fr-FR,de;q=0.8,en;q=0.5") == "de"
    assert negotiate("en-GB") == "en"
    assert negotiate("fr") == "en"
    assert negotiate(None) == "en"


def test_the_reports_shares_months_weekdays_and_counts_are_written_per_language() -> None:
    june = dt.date(2026, 6, 1)

    assert (Formats("de").percent(Decimal("0.45")), Formats("en").percent(Decimal("0.45"))) == (
        "45\xa0%",
        "45%",
    )
    assert (Formats("de").month(june), Formats("en").month(june)) == ("Juni 2026", "June 2026")
    assert (Formats("de").weekday(1), Formats("en").weekday(7, "abbreviated")) == ("Montag", "Sun")
    assert (Formats("de").hour(17), Formats("en").hour(17)) == ("17:00", "5:00\u202fPM")
    assert (Formats("de").number(1234.5), Formats("en").number(Decimal(1708))) == ("1.234,5", "1,708")
