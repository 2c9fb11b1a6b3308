"""The console in a real browser (CONTRACT 8): Chromium from the operating system's packages, driven by
Playwright, against a live ``booking serve`` (two workers) on SQLite and on PostgreSQL.

A member of staff signs in, sees their venues, opens a day sheet, switches the pages to German, is
refused a form whose CSRF token was taken away, signs out and is refused the day sheet; a customer
is told they have no console. Every page passes axe-core with no serious or critical finding.

Playwright's own browser downloads are never used: the browser is ``/usr/bin/chromium`` (Debian's
``chromium``, which ``.ci/run`` installs), or ``BOOKING_TEST_CHROMIUM``. With
``BOOKING_SCREENSHOTS=1`` the SQLite run writes the pages' pictures into ``docs/console/``.
"""

from __future__ import annotations

import csv
import datetime as dt
import itertools
import json
import os
import random
import secrets
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from adapters.payments.sandbox import sign
from adapters.sqla import make_engine
from adapters.sqla.unit_of_work import SqlaUnitOfWork
from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.payments import Payment, PaymentStatus
from booking_core.ports.repositories import ResourceQuery
from entrypoints.console.i18n import Formats
from entrypoints.sandbox import WEBHOOK_PATH
from tests.support.console_fixtures import (
    ADMIN_EMAIL,
    COMMISSION_MONTH,
    CUSTOMER_EMAIL,
    CUSTOMER_PASSWORD,
    DESK_EMAIL,
    MANAGER_EMAIL,
    STAFF_PASSWORD,
    load_console_catalog,
    store_commissions,
    store_started_booking,
)
from tests.support.http_fixtures import ANNA, DESK, PARTNER, auth
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import free_port, running

playwright_api = pytest.importorskip("playwright.sync_api")
axe_api = pytest.importorskip("axe_playwright_python.sync_playwright")

BERLIN = ZoneInfo("Europe/Berlin")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "console"
_BLOCKING = {"serious", "critical"}


def _chromium() -> str:
    """The operating system's Chromium; missing, the test is skipped (failed under ``CI=true``)."""
    path = os.environ.get("BOOKING_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if Path(path).is_file():
        return path
    message = "no Chromium at /usr/bin/chromium (apt-get install chromium, or set BOOKING_TEST_CHROMIUM)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module's tests."""
    executable = _chromium()
    with playwright_api.sync_playwright() as playwright:
        # as root (CI) Chromium's sandbox cannot start; the pages are the service's own
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox"]
        )
        try:
            yield launched
        finally:
            launched.close()


def _serve(url: str, tmp: Path) -> Iterator[str]:
    load_console_catalog(url)  # here rather than by the command line: two interpreters fewer to start
    environment = {
        **os.environ,
        "BOOKING_DATABASE_URL": url,
        "BOOKING_PORT": str(free_port()),
        # two processes: a session or form signed by one is accepted by the other (one kept key)
        "BOOKING_WORKERS": "2",
        "BOOKING_SECRET_KEY_FILE": str(tmp / "secret_key"),
        "BOOKING_INPROCESS_WORKER": "false",
        "BOOKING_MAIL_DIR": str(tmp / "mail"),
    }
    with running(environment, tmp) as server:
        # made once by `booking serve` before its workers started, readable by the service alone
        assert (tmp / "secret_key").stat().st_mode & 0o777 == 0o600
        yield server.base


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, str]]:
    """``booking serve`` on a migrated database with the console's catalog: its URL, the backend and
    the database's URL (one per backend for the module's tests)."""
    tmp_path = tmp_path_factory.mktemp(f"console-{request.param}")
    if request.param == "postgres":
        require_postgres()
        with temporary_database() as url:
            for base in _serve(url, tmp_path):
                yield base, "postgres", url
        return
    url = f"sqlite:///{tmp_path / 'booking.sqlite3'}"
    for base in _serve(url, tmp_path):
        yield base, "sqlite", url


def _seed(base: str, day: dt.date) -> None:
    """Through the JSON API: Anna books Court 2 from 10:00 to 11:30 on ``day``, and the front desk
    closes Court 1 from 14:00 to 15:00 for an event."""
    at = day.isoformat()
    with httpx.Client(base_url=f"{base}/api/v1", timeout=30) as api:
        courts = {r["name"]: r["id"] for r in api.get("/resources/", params={"is_active": "true"}).json()}
        booked = api.post(
            "/bookings/",
            json={
                "resource": courts["Court 2"],
                "start_datetime": f"{at}T10:00:00+{_offset(day)}",
                "end_datetime": f"{at}T11:30:00+{_offset(day)}",
            },
            headers=auth(ANNA),
        )
        assert booked.status_code == 201, booked.text
        venue = api.get("/operator/venues/", headers=auth(DESK)).json()[0]["id"]
        closed = api.post(
            f"/operator/venues/{venue}/blocks/",
            json={
                "resource_ids": [courts["Court 1"]],
                "start_datetime": f"{at}T14:00:00+{_offset(day)}",
                "end_datetime": f"{at}T15:00:00+{_offset(day)}",
                "reason": "event",
                "note": "Club final",
            },
            headers=auth(DESK),
        )
        assert closed.status_code == 201, closed.text


def _offset(day: dt.date) -> str:
    """Berlin's UTC offset at noon of ``day`` (``01:00`` or ``02:00``)."""
    offset = dt.datetime.combine(day, dt.time(12), BERLIN).utcoffset() or dt.timedelta()
    return f"{offset.seconds // 3600:02d}:00"


class Visit:
    """One browser tab: each page it reaches is checked with axe-core, and pictured on request."""

    def __init__(self, page: Any, base: str, *, pictures: bool) -> None:
        self.page = page
        self.base = base
        self.pictures = pictures
        self.axe = axe_api.Axe()

    def check(self, name: str) -> None:
        """No serious or critical accessibility finding on the page shown now."""
        results = self.axe.run(self.page)
        blocking = [v for v in results.response["violations"] if v.get("impact") in _BLOCKING]
        assert blocking == [], f"{name}: {[(v['id'], v['help'], v['nodes'][0]['target']) for v in blocking]}"
        if self.pictures:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    def sign_in(self, email: str, password: str) -> None:
        self.page.goto(f"{self.base}/console/login")
        self.page.get_by_label("Email address").fill(email)
        self.page.get_by_label("Password").fill(password)
        self.page.get_by_role("button", name="Sign in").click()


@contextmanager
def _tab(browser: Any, base: str, backend: str, **options: Any) -> Iterator[Visit]:
    """One checked tab in a browser context of its own, 1280 x 900 in English unless ``options`` say
    otherwise; its pages are pictured for the docs on SQLite when ``BOOKING_SCREENSHOTS=1``."""
    pictures = os.environ.get("BOOKING_SCREENSHOTS") == "1" and backend == "sqlite"
    context = browser.new_context(
        **{"locale": "en-US", "viewport": {"width": 1280, "height": 900}, **options}
    )
    try:
        yield Visit(context.new_page(), base, pictures=pictures)
    finally:
        context.close()


def test_a_member_of_staff_runs_through_the_console(browser: Any, server: tuple[str, str, str]) -> None:
    base, backend, _url = server
    today = dt.datetime.now(BERLIN).date()
    tomorrow = today + dt.timedelta(days=1)
    _seed(base, tomorrow)
    expect = playwright_api.expect
    with _tab(browser, base, backend) as visit:
        page = visit.page

        # not signed in: the console sends you to its sign-in page
        page.goto(f"{base}/console/")
        expect(page).to_have_url(f"{base}/console/login")
        expect(page.get_by_role("heading", level=1)).to_have_text("Sign in")
        visit.check("sign-in")

        # a customer has no console, and gets no session
        visit.sign_in(CUSTOMER_EMAIL, CUSTOMER_PASSWORD)
        expect(page.get_by_role("alert")).to_contain_text("You have no console")
        visit.check("no-console")
        page.goto(f"{base}/console/")
        expect(page).to_have_url(f"{base}/console/login")

        # the administrator (English) sees every venue
        visit.sign_in(ADMIN_EMAIL, STAFF_PASSWORD)
        expect(page).to_have_url(f"{base}/console/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Your venues")
        expect(page.get_by_role("row", name="Center Court Club")).to_contain_text("Administrator")
        expect(page.get_by_role("row", name="Harbour Padel")).to_be_visible()
        visit.check("venues")

        # the day sheet: resources as columns, the hours as rows, the line at now
        page.get_by_role("link", name="Today at Center Court Club").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Center Court Club")
        expect(page.get_by_role("heading", level=2, name="Court 1")).to_be_visible()
        expect(page.get_by_role("heading", level=2, name="Court 2")).to_be_visible()
        expect(page.locator(".day")).to_contain_text(Formats("en").date(today))
        if dt.time(8) <= dt.datetime.now(BERLIN).time() < dt.time(22):
            expect(page.locator(".now")).to_contain_text("Now")
        visit.check("day-sheet-today")

        # tomorrow by the date picker: Anna's booking on Court 2, the event closing Court 1 hatched
        page.get_by_label("Date").fill(tomorrow.isoformat())
        page.get_by_role("button", name="Show day").click()
        expect(page.locator(".day")).to_contain_text(Formats("en").date(tomorrow))
        booking = page.locator(".booking")
        expect(booking).to_have_count(1)
        expect(booking).to_contain_text("Anna Schmidt")
        expect(booking).to_contain_text("Awaiting payment")
        assert "grid-column: 3" in (booking.get_attribute("style") or "")  # Court 2
        expect(page.locator(".closed")).to_contain_text("Event")
        expect(page.locator(".closed")).to_contain_text("Club final")
        visit.check("day-sheet")
        page.get_by_role("link", name="Next day").click()
        expect(page.locator(".day")).to_contain_text(Formats("en").date(tomorrow + dt.timedelta(days=1)))
        page.get_by_role("link", name="Previous day").click()
        expect(page.locator(".booking")).to_have_count(1)

        # German: every label, and the date as German writes it
        page.get_by_label("Language").select_option("de")
        page.get_by_role("button", name="Change language").click()
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator(".day")).to_contain_text(f"Tagesplan für {Formats('de').date(tomorrow)}")
        expect(page.locator(".closed")).to_contain_text("Veranstaltung")
        expect(page.locator(".booking")).to_contain_text("Zahlung offen")
        expect(page.get_by_role("button", name="Abmelden")).to_be_visible()
        visit.check("day-sheet-de")

        # a form whose CSRF token was taken away is refused, and nothing changes
        page.evaluate("document.querySelectorAll('input[name=_csrf_token]').forEach(e => e.remove())")
        with page.expect_response(f"{base}/console/logout") as refused:
            page.get_by_role("button", name="Abmelden").click()
        assert refused.value.status == 403
        expect(page.get_by_role("alert")).to_contain_text("Sicherheitsschlüssel")
        visit.check("csrf-refused")
        page.goto(f"{base}/console/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Ihre Anlagen")  # still signed in

        # sign out: the day sheet is refused from then on (the pages keep their language)
        page.get_by_role("button", name="Abmelden").click()
        expect(page).to_have_url(f"{base}/console/login")
        page.goto(f"{base}/console/venues/1/day")
        expect(page).to_have_url(f"{base}/console/login")
        expect(page.get_by_role("heading", level=1)).to_have_text("Anmelden")


def test_the_console_works_with_javascript_switched_off(browser: Any, server: tuple[str, str, str]) -> None:
    base, _backend, _url = server
    context = browser.new_context(locale="de-DE", java_script_enabled=False)
    expect = playwright_api.expect
    try:
        page = context.new_page()
        page.goto(f"{base}/console/login")
        page.get_by_label("E-Mail-Adresse").fill(DESK_EMAIL)
        page.get_by_label("Passwort").fill(STAFF_PASSWORD)
        page.get_by_role("button", name="Anmelden").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Ihre Anlagen")
        page.get_by_role("link", name="Heute bei Center Court Club").click()
        expect(page.get_by_role("heading", level=2, name="Court 1")).to_be_visible()
        page.get_by_label("Datum").fill("2026-06-05")
        page.get_by_role("button", name="Tag anzeigen").click()
        expect(page.locator(".day")).to_contain_text("Freitag, 5. Juni 2026")
        # the forms of the new pages post without a script: closing time with no court is refused
        page.get_by_role("link", name="Zeit sperren").click()
        page.get_by_label("Von", exact=True).fill("2026-06-05T09:00")
        page.get_by_label("Bis", exact=True).fill("2026-06-05T10:00")
        page.get_by_role("button", name="Zeit sperren").click()
        expect(page.get_by_role("alert")).to_contain_text("nichts wurde geändert")
        page.get_by_role("link", name="Zurück zum Tagesplan").click()
        page.get_by_role("link", name="Buchungen", exact=True).click()
        page.get_by_label("Suchen", exact=True).fill("nobody-at-all")
        page.get_by_role("button", name="Suchen").click()
        expect(page.get_by_role("main")).to_contain_text("Keine Buchung passt.")
        page.get_by_role("button", name="Abmelden").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Anmelden")
    finally:
        context.close()


def _paid_booking(base: str, day: dt.date) -> dict[str, Any]:
    """Through the JSON API: Anna books Court 2 from 10:00 to 11:00 on ``day`` and pays it (the sandbox
    provider's signed webhook, as ``booking sandbox pay`` posts it)."""
    at, offset = day.isoformat(), _offset(day)
    with httpx.Client(base_url=base, timeout=30) as client:
        courts = {
            r["name"]: r["id"] for r in client.get("/api/v1/resources/", params={"is_active": "true"}).json()
        }
        booked = client.post(
            "/api/v1/bookings/",
            json={
                "resource": courts["Court 2"],
                "start_datetime": f"{at}T10:00:00+{offset}",
                "end_datetime": f"{at}T11:00:00+{offset}",
            },
            headers=auth(ANNA),
        )
        assert booked.status_code == 201, booked.text
        made: dict[str, Any] = booked.json()
        intent = client.post(f"/api/v1/bookings/{made['id']}/create-payment-intent/", headers=auth(ANNA))
        assert intent.status_code == 200, intent.text
        found = intent.json()
        event = {
            "id": f"evt_{secrets.token_hex(8)}",
            "type": "payment_intent.succeeded",
            "created": int(time.time()),
            "data": {
                "object": {
                    "id": found["payment_intent_id"],
                    "object": "payment_intent",
                    "amount": int(Decimal(found["amount"]) * 100),
                    "currency": found["currency"].lower(),
                    "metadata": {"booking_id": made["id"]},
                }
            },
        }
        payload = json.dumps(event).encode()
        signature = sign(payload, "whsec_dev", int(time.time()))
        delivered = client.post(
            WEBHOOK_PATH,
            content=payload,
            headers={"Stripe-Signature": signature, "Content-Type": "application/json"},
        )
        assert delivered.status_code == 200, delivered.text
    return made


def _op_booking(base: str, reference: str) -> dict[str, Any]:
    with httpx.Client(base_url=f"{base}/api/v1", timeout=30) as api:
        found = api.get("/operator/bookings/", params={"q": reference}, headers=auth(DESK)).json()
    (booking,) = found
    result: dict[str, Any] = booking
    return result


def test_the_front_desk_books_checks_in_moves_closes_and_downloads(
    browser: Any, server: tuple[str, str, str], tmp_path: Path
) -> None:
    base, backend, url = server
    now = dt.datetime.now(BERLIN)
    later = (now + dt.timedelta(minutes=15)).replace(second=0, microsecond=0)
    later -= dt.timedelta(minutes=later.minute % 5)
    rain_day = now.date() + dt.timedelta(days=2)
    paid = _paid_booking(base, rain_day)
    # on Court 2 from a quarter of an hour ago, ended before the walk-in moves there
    began = (now - dt.timedelta(minutes=15)).replace(second=0, microsecond=0)
    started = store_started_booking(url, "Court 2", began, 20)
    expect = playwright_api.expect
    with _tab(browser, base, backend, accept_downloads=True) as visit:
        page = visit.page
        visit.sign_in(ADMIN_EMAIL, STAFF_PASSWORD)
        page.get_by_role("link", name="Today at Center Court Club").click()

        # a walk-in from a free cell of Court 1 (the rules overridden: it starts in a few minutes; with a
        # price of its own, as the time may lie outside the opening hours when the test runs late)
        # (tomorrow's cell: late in the evening today has none left, and the form takes any time)
        page.get_by_role("link", name="Next day").click()
        page.locator(".free", has_text="Book Court 1").first.click()
        expect(page.get_by_role("heading", level=1)).to_contain_text("New booking")
        visit.check("new-booking")
        page.get_by_label("From", exact=True).fill(later.strftime("%Y-%m-%dT%H:%M"))
        page.get_by_label("To", exact=True).fill((later + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"))
        page.get_by_label("Email address").fill(f"walk-in-{backend}@example.com")
        page.get_by_label("First name").fill("Walter")
        page.get_by_label("Last name").fill("Inn")
        page.get_by_label("Override the booking rules").check()
        page.get_by_label("Price (leave empty for the quoted price)").fill("25.00")
        page.get_by_role("button", name="Book", exact=True).click()

        # the booking's page: check in; a no-show before the start is refused with the reason
        expect(page.get_by_role("heading", level=1)).to_contain_text("Booking")
        expect(page.locator("#status")).to_have_text("Confirmed")
        expect(page.get_by_role("main")).to_contain_text("Walter Inn")
        visit.check("booking")
        page.get_by_role("button", name="Check in").click()
        expect(page.get_by_role("status")).to_have_text("Done.")
        expect(page.get_by_role("row", name="Checked in")).to_be_visible()
        page.get_by_role("button", name="Mark as no-show").click()
        expect(page.get_by_role("alert")).to_contain_text("nothing was changed")
        visit.check("booking-refused")
        reference = page.get_by_role("heading", level=1).inner_text().removeprefix("Booking ").strip()

        # move it to Court 2, same time
        page.get_by_label("Resource", exact=True).select_option(label="Court 2")
        page.get_by_label("Override the booking rules").check()  # it starts off the half-hour grid
        page.get_by_role("button", name="Move the booking").click()
        expect(page.get_by_role("status")).to_have_text("Done.")
        assert _op_booking(base, reference)["resource"]["name"] == "Court 2"

        # a booking that started a quarter of an hour ago and nobody came: a no-show
        page.goto(f"{base}/console/bookings/{started.id}")
        page.get_by_role("button", name="Mark as no-show").click()
        expect(page.get_by_role("status")).to_have_text("Done.")
        expect(page.locator("#status")).to_have_text("No-show")
        assert _op_booking(base, started.reference_code)["status"] == "no_show"

        # rain: close Court 2 over Anna's paid booking, cancelling and refunding it
        page.get_by_role("link", name="Back to the day sheet").click()
        page.get_by_role("link", name="Close time").click()
        visit.check("close-time")
        page.get_by_label("Court 2").check()
        page.get_by_label("From", exact=True).fill(f"{rain_day.isoformat()}T09:00")
        page.get_by_label("To", exact=True).fill(f"{rain_day.isoformat()}T12:00")
        page.get_by_label("Reason", exact=True).select_option("weather")
        page.get_by_label("Note", exact=True).fill("Rain")
        page.get_by_role("button", name="Close the time").click()
        expect(page.get_by_role("alert")).to_be_visible()
        expect(page.get_by_role("table")).to_contain_text(paid["reference_code"])
        visit.check("close-time-conflict")
        page.get_by_role("button", name="Cancel and refund them, and close the time").click()
        expect(page.locator(".closed", has_text="Rain")).to_be_visible()
        refunded = _op_booking(base, paid["reference_code"])
        assert refunded["status"] in {"cancelled", "refunded"}, refunded
        with httpx.Client(base_url=f"{base}/api/v1", timeout=30) as api:
            entries = api.get(
                "/operator/audit/",
                params={"object_id": paid["id"], "action": "booking.cancel"},
                headers=auth(DESK),
            ).json()
        (cancelled,) = entries  # one cancellation, refunding all that was paid
        assert cancelled["details"]["refund_amount"] == refunded["total_price"], cancelled

        # the bookings list and its CSV
        page.get_by_role("link", name="Bookings", exact=True).click()
        page.get_by_label("Search", exact=True).fill(reference)
        page.get_by_role("button", name="Search").click()
        expect(page.get_by_role("link", name=reference)).to_be_visible()
        visit.check("bookings")
        with page.expect_download() as download:
            page.get_by_role("link", name="Download as CSV").click()
        saved = tmp_path / "bookings.csv"
        download.value.save_as(saved)
        rows = list(csv.DictReader(saved.open(encoding="utf-8")))
        assert [r["reference_code"] for r in rows] == [reference]


def test_an_admin_approves_a_mapping_sees_the_commissions_and_adds_staff(
    browser: Any, server: tuple[str, str, str]
) -> None:
    base, backend, url = server
    store_commissions(url)
    with httpx.Client(base_url=f"{base}/api/v1", timeout=30) as api:
        venue = api.get("/operator/venues/", headers=auth(DESK)).json()[0]["id"]
        registered = api.post(
            "/client/venues/register/",
            json={"external_id": f"browser-{backend}", "venue_id": venue},
            headers=auth(PARTNER),
        )
        assert registered.status_code == 201, registered.text
    expect = playwright_api.expect
    with _tab(browser, base, backend) as visit:
        page = visit.page
        visit.sign_in(ADMIN_EMAIL, STAFF_PASSWORD)

        # venue mappings: the pending one, approved with its button
        page.get_by_role("link", name="Venue mappings").click()
        page.get_by_label("Approval").select_option("pending")
        page.get_by_role("button", name="Show").click()
        visit.check("admin-mappings")
        page.get_by_role("button", name=f"Approve the mapping browser-{backend} of PartnerApp").click()
        expect(page.get_by_role("status")).to_have_text("The mapping is approved.")
        visit.check("admin-mappings-approved")

        # the month's commissions, one row per client, the payout form beside them
        page.get_by_role("link", name="Commissions").click()
        page.get_by_label("Month").fill(COMMISSION_MONTH)
        page.get_by_role("button", name="Show").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Commissions of June 2026")
        expect(page.get_by_role("row", name="PartnerApp")).to_contain_text("€12.50")
        expect(page.get_by_role("button", name="Download payout file")).to_be_visible()
        visit.check("admin-commissions")

        # staff: a new front desk member at Center Court
        page.get_by_role("link", name="Staff", exact=True).click()
        page.get_by_label("Email address").fill(f"browser-desk-{backend}@example.com")
        page.get_by_label("Role", exact=True).select_option("desk")
        page.get_by_role("checkbox", name="Center Court Club").check()
        page.get_by_role("button", name="Grant the role").click()
        expect(page.get_by_role("status")).to_contain_text("The role is granted.")
        added = page.get_by_role("row", name=f"browser-desk-{backend}@example.com")
        expect(added).to_contain_text("Front desk")
        visit.check("admin-staff")


def _past_months(url: str, first: dt.date, today: dt.date) -> int:
    """Store a season of played and paid hours on Courts 1 and 2 from ``first`` to yesterday, straight
    through the unit of work (bookings in the past cannot be made through the API): evenings and
    weekends fuller than weekday mornings, one in twenty-five refunded, drawn with a fixed seed.
    Returns how many months the dates touch."""
    chance = random.Random(7)
    engine = make_engine(url)
    try:
        with SqlaUnitOfWork.factory(engine)() as uow:
            anna = uow.users.get_by_email(CUSTOMER_EMAIL)
            assert anna is not None
            query = ResourceQuery(is_active=True, is_bookable=None)
            courts = [r for r in uow.resources.list(query) if r.name in {"Court 1", "Court 2"}]
            day = first
            while day < today:
                for court, hour in itertools.product(courts, range(8, 22)):
                    likely = 0.15 + 0.5 * (hour >= 17) + 0.3 * (day.isoweekday() >= 6) - 0.1 * (hour < 10)
                    if chance.random() < likely:
                        start = dt.datetime.combine(day, dt.time(hour), BERLIN)
                        _store_played(uow, anna.id, court.id, start, refunded=chance.random() < 0.04)
                day += dt.timedelta(days=1)
            uow.commit()
    finally:
        engine.dispose()
    return (today.year - first.year) * 12 + today.month - first.month + 1


def _store_played(uow: Any, user_id: str, resource_id: int, start: dt.datetime, *, refunded: bool) -> None:
    price = Decimal("30.00") if start.hour >= 17 else Decimal("20.00")
    booking = Booking(
        id=str(uuid.uuid4()),
        reference_code=f"SEASON{secrets.token_hex(4).upper()}",
        resource_id=resource_id,
        user_id=user_id,
        start=start,
        end=start + dt.timedelta(hours=1),
        price_per_unit=price,
        total_price=price,
        status=BookingStatus.REFUNDED if refunded else BookingStatus.COMPLETED,
        cancellation_reason=CancellationReason.USER_REQUEST if refunded else None,
        created_at=start - dt.timedelta(days=3),
        updated_at=start,
    )
    uow.bookings.add(booking)
    uow.payments.add(
        Payment(
            id=str(uuid.uuid4()),
            booking_id=booking.id,
            provider="sandbox",
            payment_intent_id=f"pi_season_{secrets.token_hex(8)}",
            client_secret="secret",
            amount=price,
            currency="EUR",
            status=PaymentStatus.REFUNDED if refunded else PaymentStatus.SUCCEEDED,
            refunded_amount=price if refunded else Decimal("0.00"),
            paid_at=booking.created_at,
            created_at=booking.created_at,
        )
    )


def test_an_admin_reads_the_venues_report(browser: Any, server: tuple[str, str, str]) -> None:
    base, backend, url = server
    today = dt.datetime.now(BERLIN).date()
    first = (today.replace(day=1) - dt.timedelta(days=140)).replace(day=1)  # five months back
    months = _past_months(url, first, today)
    expect = playwright_api.expect
    with _tab(browser, base, backend) as visit:
        page = visit.page
        visit.sign_in(ADMIN_EMAIL, STAFF_PASSWORD)
        page.get_by_role("link", name="Report of Center Court Club").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Report of Center Court Club")
        expect(page.locator("#revenue tbody tr")).to_have_count(12)  # the last twelve months

        # the months of the season, chosen with the form
        page.get_by_label("From", exact=True).fill(first.isoformat())
        page.get_by_label("To", exact=True).fill(today.isoformat())
        page.get_by_role("button", name="Show report").click()
        expect(page.get_by_role("img", name="Occupancy by weekday and hour")).to_be_visible()
        expect(page.get_by_role("img", name="Revenue by month")).to_be_visible()
        expect(page.locator("#revenue tbody tr")).to_have_count(months)
        expect(page.locator("rect.paid")).to_have_count(months)
        expect(page.locator("#occupancy tbody tr")).to_have_count(14)  # open from 08:00 to 22:00
        expect(page.get_by_role("row", name="Court 1")).to_contain_text("%")
        visit.check("report")

        # dates the wrong way round are explained, the form kept
        page.get_by_label("From", exact=True).fill(today.isoformat())
        page.get_by_label("To", exact=True).fill(first.isoformat())
        page.get_by_role("button", name="Show report").click()
        expect(page.get_by_role("alert")).to_contain_text("The last date lies before the first")
        expect(page.get_by_label("From", exact=True)).to_have_value(today.isoformat())


def test_a_manager_changes_a_price_in_a_resources_settings(
    browser: Any, server: tuple[str, str, str]
) -> None:
    base, backend, _url = server
    expect = playwright_api.expect
    with _tab(browser, base, backend) as visit:
        page = visit.page
        visit.sign_in(MANAGER_EMAIL, STAFF_PASSWORD)  # then the pages speak the manager's German
        page.get_by_role("link", name="Einstellungen für Court 1").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Einstellungen für Court 1")
        visit.check("resource-settings")

        # Saturday's evening costs 32.50 from now on
        price = page.get_by_label("Samstag, Zeitfenster 2: Preis")
        expect(price).to_have_value("30,00")  # German writes a decimal comma
        price.fill("32,50")
        page.get_by_role("button", name="Einstellungen speichern").click()
        expect(page.get_by_role("status")).to_contain_text("Gespeichert.")
        expect(page.get_by_label("Samstag, Zeitfenster 2: Preis")).to_have_value("32,50")
        visit.check("resource-settings-saved")
        with httpx.Client(base_url=f"{base}/api/v1", timeout=30) as api:
            venue = api.get("/operator/venues/", headers=auth(DESK)).json()[0]["id"]
            catalog = api.get(f"/operator/venues/{venue}/catalog/", headers=auth(DESK)).json()
        (court,) = [r for r in catalog["resources"] if r["name"] == "Court 1"]
        (saturday,) = [s for s in court["schedules"] if s.get("day_of_week") == 6]
        assert [s["price_per_unit"] for s in saturday["time_slots"]] == ["20.00", "32.50"]
