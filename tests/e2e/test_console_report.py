"""The console's report page (CONTRACT 8 on 7.7) over HTTP: the figures of its tables and pictures are
the operator API's report of the same dates, written in the staff member's language; dates it cannot
report on are explained; the desk is refused as the API refuses it.

The browser test (``test_console_browser``) checks the same page with axe-core in Chromium.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from html.parser import HTMLParser
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.payments import Payment, PaymentStatus
from entrypoints.console.i18n import Formats
from tests.support.console_fixtures import (  # noqa: F401 - fixtures used by name
    ADMIN_EMAIL,
    DESK_EMAIL,
    console_sqlite_template,
    console_sqlite_url,
    sign_in,
)
from tests.support.http_fixtures import MANAGER, NOW, OPERATOR, Api, auth, start

BERLIN = ZoneInfo("Europe/Berlin")
MANAGER_EMAIL = "manager@center-court.example"  # manager at Center Court, speaks German (the default)
DATES = "from=2026-05-01&to=2026-06-30"
GERMAN = Formats("de")


@pytest.fixture
def console(request: pytest.FixtureRequest) -> Iterator[Api]:
    """The app on a fresh SQLite database with the console's catalog (the report's storage sums are
    tested on both backends by the API's tests)."""
    yield from start(request.getfixturevalue("console_sqlite_url"))


def _store(
    api: Api, n: int, resource: str, start: datetime, minutes: int, status: BookingStatus, **money: str
) -> None:
    """A booking of Anna's stored straight through the unit of work, with its payment when ``paid``."""
    price = Decimal(money.get("paid", "20.00"))
    with api.services.deps.uow() as uow:
        anna = uow.users.get_by_email("anna@example.com")
        assert anna is not None
        booking = Booking(
            id=f"00000000-0000-4000-a000-{n:012d}",
            reference_code=f"REPORT{n:02d}",
            resource_id=api.resources[resource],
            user_id=anna.id,
            start=start,
            end=start + timedelta(minutes=minutes),
            price_per_unit=price,
            total_price=price,
            status=status,
            cancellation_reason=CancellationReason.USER_REQUEST if status is BookingStatus.REFUNDED else None,
            created_at=NOW - timedelta(days=60),
            updated_at=NOW - timedelta(days=60),
        )
        uow.bookings.add(booking)
        if "paid" in money:
            refunded = Decimal(money.get("refunded", "0.00"))
            uow.payments.add(
                Payment(
                    id=f"00000000-0000-4000-b000-{n:012d}",
                    booking_id=booking.id,
                    provider="sandbox",
                    payment_intent_id=f"pi_console_report_{n}",
                    client_secret="secret",
                    amount=price,
                    currency="EUR",
                    status=PaymentStatus.REFUNDED if refunded else PaymentStatus.SUCCEEDED,
                    refunded_amount=refunded,
                    paid_at=booking.created_at,
                    created_at=booking.created_at,
                )
            )
        uow.commit()


@pytest.fixture
def season(console: Api) -> Api:
    """May and June 2026 at Center Court: May takes 40.00; June takes 50.00 and gives 30.00 back."""
    _store(
        console, 1, "Court 1", datetime(2026, 5, 12, 10, tzinfo=BERLIN), 120, BookingStatus.PAID, paid="40.00"
    )
    _store(console, 2, "Court 1", datetime(2026, 5, 20, 9, tzinfo=BERLIN), 60, BookingStatus.COMPLETED)
    _store(
        console,
        3,
        "Court 1",
        datetime(2026, 6, 1, 18, tzinfo=BERLIN),
        60,
        BookingStatus.REFUNDED,
        paid="30.00",
        refunded="30.00",
    )
    _store(
        console, 4, "Court 2", datetime(2026, 6, 1, 10, tzinfo=BERLIN), 60, BookingStatus.PAID, paid="20.00"
    )
    _store(console, 5, "Court 2", datetime(2026, 6, 2, 17, tzinfo=BERLIN), 90, BookingStatus.NO_SHOW)
    return console


class _Tables(HTMLParser):
    """The text of every cell of the tables with an id, row by row (header cells included)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._section = ""
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and found.get("id"):
            self._table = found["id"]
            self.tables[self._table] = []
        elif tag in ("thead", "tbody", "tfoot"):
            self._section = tag
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("th", "td") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag in ("th", "td") and self._row is not None and self._cell is not None:
            self._row.append(re.sub(r"[ \t\r\n]+", " ", "".join(self._cell)).strip())  # NBSP kept
            self._cell = None
        elif tag == "tr" and self._table and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _json_report(api: Api, query: str = DATES) -> dict[str, Any]:
    answer = api.client.get(
        f"{OPERATOR}/venues/{api.venues['center-court']}/report/?{query}", headers=auth(MANAGER)
    )
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def _page(api: Api, query: str = DATES, venue: str = "center-court") -> Any:
    return api.client.get(f"/console/venues/{api.venues[venue]}/report?{query}")


def _hours(minutes: int) -> str:
    return GERMAN.number(minutes / 60)


def test_the_tables_hold_the_figures_of_the_apis_report_of_the_same_dates(season: Api) -> None:
    expected = _json_report(season)
    sign_in(season.client, MANAGER_EMAIL)

    page = _page(season)

    assert page.status_code == 200, page.text
    assert '<html lang="de">' in page.text
    tables = _Tables(page.text).tables
    money = {"currency": expected["currency"]}
    lines = [
        [
            line["name"],
            _hours(line["open_minutes"]),
            _hours(line["booked_minutes"]),
            GERMAN.percent(Decimal(line["occupancy"])),
            GERMAN.number(line["bookings"]),
            GERMAN.number(line["cancellations"]),
            GERMAN.number(line["no_shows"]),
            GERMAN.money(Decimal(line["revenue_paid"]), **money),
            GERMAN.money(Decimal(line["revenue_refunded"]), **money),
        ]
        for line in expected["resources"]
    ]
    assert tables["resources"][1:-1] == lines
    assert [line[0] for line in lines] == ["Court 1", "Court 2"]
    assert tables["resources"][-1][0] == "Alle Plätze"
    assert tables["resources"][-1][-2:] == [
        GERMAN.money(Decimal("90.00"), "EUR"),
        GERMAN.money(Decimal("30.00"), "EUR"),
    ]

    hours = {(h["weekday"], h["hour"]): GERMAN.percent(Decimal(h["occupancy"])) for h in expected["by_hour"]}
    first, last = min(h for _d, h in hours), max(h for _d, h in hours)
    header, *rows = tables["occupancy"]  # the hours as rows, the weekdays as columns
    assert header == ["Uhrzeit", *(GERMAN.weekday(d, "abbreviated") for d in range(1, 8))]
    assert [row[0] for row in rows] == [GERMAN.hour(h) for h in range(first, last + 1)]
    for hour, row in enumerate(rows, start=first):
        assert row[1:] == [hours.get((d, hour), "nicht geöffnet") for d in range(1, 8)]
    # the picture: one cell per weekday and hour with open time, its figure in its title
    titles = re.findall(r'<rect [^>]*class="cell"><title>([^<]+)</title>', page.text)
    assert sorted(titles) == sorted(
        f"{GERMAN.weekday(d)}, {GERMAN.hour(h)}: {share} gebucht" for (d, h), share in hours.items()
    )


def test_the_money_by_month_adds_up_to_the_apis_report(season: Api) -> None:
    expected = _json_report(season)
    sign_in(season.client, MANAGER_EMAIL)

    page = _page(season)

    euro = lambda amount: GERMAN.money(Decimal(amount), "EUR")  # noqa: E731
    assert _Tables(page.text).tables["revenue"] == [
        ["Monat", "Bezahlt", "Erstattet"],
        ["Mai 2026", euro("40.00"), euro("0.00")],
        ["Juni 2026", euro("50.00"), euro("30.00")],
        ["Alle Monate", euro("90.00"), euro("30.00")],
    ]
    assert sum(Decimal(line["revenue_paid"]) for line in expected["resources"]) == Decimal("90.00")
    assert sum(Decimal(line["revenue_refunded"]) for line in expected["resources"]) == Decimal("30.00")
    bars = re.findall(r'class="(paid|refunded)"><title>([^<]+)</title>', page.text)
    assert bars == [
        ("paid", f"Mai 2026: {euro('40.00')} bezahlt"),
        ("refunded", f"Mai 2026: {euro('0.00')} erstattet"),
        ("paid", f"Juni 2026: {euro('50.00')} bezahlt"),
        ("refunded", f"Juni 2026: {euro('30.00')} erstattet"),
    ]
    assert 'role="img" aria-labelledby="bars-title bars-desc"' in page.text
    assert 'role="img" aria-labelledby="heat-title heat-desc"' in page.text


def test_without_dates_the_page_shows_the_last_twelve_months_in_english_for_the_admin(season: Api) -> None:
    sign_in(season.client, ADMIN_EMAIL)

    page = _page(season, query="")

    assert page.status_code == 200
    # today is Monday 2026-06-01 in Berlin: from July 1st, 2025
    assert 'name="from" value="2025-07-01"' in page.text
    assert 'name="to" value="2026-06-01"' in page.text
    months = [row[0] for row in _Tables(page.text).tables["revenue"][1:-1]]
    assert months[0] == "July 2025"
    assert months[-1] == "June 2026"
    assert len(months) == 12


@pytest.mark.parametrize(
    ("query", "explained"),
    [
        ("from=2026-06-30&to=2026-05-01", "Das Enddatum liegt vor dem Anfangsdatum."),
        ("from=2025-01-01&to=2026-01-02", "Das sind mehr als 366 Tage."),
        ("from=2026-05-01&to=2026-13-01", "Das ist kein Datum."),
    ],
)
def test_dates_that_make_no_report_are_explained(season: Api, query: str, explained: str) -> None:
    sign_in(season.client, MANAGER_EMAIL)

    page = _page(season, query=query)

    assert page.status_code == 400
    assert explained in page.text
    assert 'id="resources"' not in page.text


def test_the_desk_is_refused_and_offered_no_link_while_the_manager_is(season: Api) -> None:
    sign_in(season.client, DESK_EMAIL)
    refused = _page(season)
    assert refused.status_code == 403
    assert "Ihre Rolle erlaubt das nicht." in refused.text
    link = f'href="/console/venues/{season.venues["center-court"]}/report"'
    assert link not in season.client.get("/console/").text
    assert link not in season.client.get(f"/console/venues/{season.venues['center-court']}/day").text
    season.client.cookies.clear()  # signed out

    sign_in(season.client, MANAGER_EMAIL)
    assert link in season.client.get("/console/").text
    assert link in season.client.get(f"/console/venues/{season.venues['center-court']}/day").text
    assert _page(season, venue="harbour-padel").status_code == 404  # another venue
