"""The operator console over HTTP, as a browser without JavaScript uses it (CONTRACT 8): sign-in with
the login throttle, the session cookie's flags and idle expiry, CSRF on every form, the language of
the pages, the venue list and the day sheet with the permissions of the operator API.

The browser tests (``test_console_browser``) drive the same pages in Chromium.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator
from decimal import Decimal
from http.cookies import SimpleCookie
from typing import Any

import pytest
from litestar.middleware.session import client_side

from booking_core.audit import AuditQuery
from booking_core.usecases.staff import remove_staff
from entrypoints.console.i18n import Formats
from tests.support.console_fixtures import (  # noqa: F401 - fixtures used by name
    ADMIN_EMAIL,
    CUSTOMER_EMAIL,
    CUSTOMER_PASSWORD,
    DESK_EMAIL,
    STAFF_PASSWORD,
    console_sqlite_template,
    console_sqlite_url,
    csrf_of,
    sign_in,
)
from tests.support.http_fixtures import ANNA, DESK, OPERATOR, Api, auth, book, pay, start

SESSION = "booking_console"


@pytest.fixture
def url(request: pytest.FixtureRequest) -> str:
    """A fresh SQLite database with the console's catalog (the pages read through the same use cases as
    the operator API, whose storage tests run on both backends)."""
    found: str = request.getfixturevalue("console_sqlite_url")
    return found


@pytest.fixture
def console(url: str) -> Iterator[Api]:
    """The app on that database."""
    yield from start(url)


def _cookies(response: Any) -> dict[str, Any]:
    jar: dict[str, Any] = {}
    for header in response.headers.get_list("set-cookie"):
        parsed = SimpleCookie()
        parsed.load(header)
        jar.update(parsed)
    return jar


def test_the_sign_in_page_speaks_the_browsers_language_and_sets_a_csrf_cookie(console: Api) -> None:
    page = console.client.get("/console/login", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})

    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<html lang="de">' in page.text
    assert "Anmelden" in page.text
    csrf = _cookies(page)["booking_console_csrf"]
    assert csrf["httponly"]
    assert csrf["samesite"].lower() == "lax"
    assert csrf["path"] == "/console"


def test_the_pages_load_nothing_from_elsewhere_and_are_framed_by_nobody(console: Api) -> None:
    page = console.client.get("/console/login")

    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'none'" in policy
    assert "frame-ancestors 'none'" in policy
    assert "http" not in page.text.replace('action="/console', "")  # no address of another site
    styles = console.client.get("/console/static/console.css")
    assert styles.status_code == 200
    assert styles.headers["content-type"].startswith("text/css")


def test_staff_sign_in_opens_a_session_with_the_cookie_the_contract_names(console: Api) -> None:
    answer = sign_in(console.client, DESK_EMAIL)

    assert answer.status_code == 303
    assert answer.headers["location"] == "/console/"
    session = _cookies(answer)[SESSION]
    assert session["httponly"]
    assert session["samesite"].lower() == "lax"
    assert not session["secure"]  # the public URL is http here
    assert session["max-age"] == str(12 * 60 * 60)
    assert session["path"] == "/console"
    venues = console.client.get("/console/")
    assert venues.status_code == 200
    assert "Center Court Club" in venues.text
    assert "Harbour Padel" not in venues.text  # the desk works at Center Court only
    assert "Ihre Anlagen" in venues.text  # the desk's language is German
    assert "Empfang" in venues.text  # their role


def test_the_session_cookie_is_secure_under_an_https_public_url(url: str) -> None:
    for api in start(url, public_url="https://booking.example.com"):
        form = api.client.get("/console/login")
        csrf = _cookies(form)["booking_console_csrf"]
        assert csrf["secure"]
        # the test client speaks http, so it would keep a Secure cookie to itself: hand it over
        answer = api.client.post(
            "/console/login",
            data={"email": DESK_EMAIL, "password": STAFF_PASSWORD, "_csrf_token": csrf_of(form.text)},
            headers={"Cookie": f"booking_console_csrf={csrf.value}"},
            follow_redirects=False,
        )
        assert answer.status_code == 303
        assert _cookies(answer)[SESSION]["secure"]


@pytest.mark.parametrize(
    ("email", "password", "status", "message"),
    [
        (DESK_EMAIL, "not-the-password", 400, "do not match"),
        ("nobody@example.com", "not-the-password", 400, "do not match"),
        (CUSTOMER_EMAIL, CUSTOMER_PASSWORD, 403, "You have no console"),
    ],
)
def test_a_refused_sign_in_says_why_and_opens_no_session(
    console: Api, email: str, password: str, status: int, message: str
) -> None:
    answer = sign_in(console.client, email, password)

    assert answer.status_code == status
    assert message in answer.text.replace("&#39;", "'")
    assert SESSION not in _cookies(answer)
    assert console.client.get("/console/", follow_redirects=False).headers["location"] == "/console/login"


def test_sign_in_is_throttled_as_the_apis_login(url: str) -> None:
    for api in start(url, login_rate_limit_per_minute=2):
        assert sign_in(api.client, DESK_EMAIL, "wrong-password-1").status_code == 400
        assert sign_in(api.client, DESK_EMAIL, "wrong-password-2").status_code == 400
        refused = sign_in(api.client, DESK_EMAIL)  # the right password, but no attempt left
        assert refused.status_code == 429
        assert "Retry-After" in refused.headers
        assert SESSION not in _cookies(refused)
        # the same counter as POST /auth/token/: the API refuses that email too
        token = api.client.post("/api/v1/auth/token/", json={"email": DESK_EMAIL, "password": "x" * 12})
        assert token.status_code == 429


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(console: Api) -> None:
    without = console.client.post(
        "/console/login", data={"email": DESK_EMAIL, "password": STAFF_PASSWORD}, follow_redirects=False
    )
    assert without.status_code == 403
    assert "security token" in without.text
    assert SESSION not in _cookies(without)

    sign_in(console.client, DESK_EMAIL)
    forged = console.client.post("/console/logout", data={"_csrf_token": "forged"}, follow_redirects=False)
    assert forged.status_code == 403
    assert console.client.get("/console/").status_code == 200  # still signed in


def test_the_json_api_needs_no_csrf_token(console: Api) -> None:
    answer = console.client.post(
        "/api/v1/auth/token/", json={"email": DESK_EMAIL, "password": STAFF_PASSWORD}
    )
    assert answer.status_code == 200


def test_sign_out_ends_the_session(console: Api) -> None:
    sign_in(console.client, DESK_EMAIL)
    venue = console.venues["center-court"]
    assert console.client.get(f"/console/venues/{venue}/day").status_code == 200

    token = csrf_of(console.client.get("/console/").text)
    out = console.client.post("/console/logout", data={"_csrf_token": token}, follow_redirects=False)

    assert out.status_code == 303
    assert out.headers["location"] == "/console/login"
    refused = console.client.get(f"/console/venues/{venue}/day", follow_redirects=False)
    assert refused.status_code == 303
    assert refused.headers["location"] == "/console/login"


def test_the_session_expires_after_twelve_idle_hours_and_each_page_renews_it(
    console: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    sign_in(console.client, DESK_EMAIL)
    start_at = time.time()
    monkeypatch.setattr(client_side.time, "time", lambda: start_at + 11 * 3600)
    assert console.client.get("/console/").status_code == 200  # eleven idle hours: still in, and renewed
    monkeypatch.setattr(client_side.time, "time", lambda: start_at + 22 * 3600)
    assert console.client.get("/console/").status_code == 200  # eleven hours after the last page
    monkeypatch.setattr(client_side.time, "time", lambda: start_at + 34 * 3600 + 1)
    late = console.client.get("/console/", follow_redirects=False)
    assert late.status_code == 303
    assert late.headers["location"] == "/console/login"


def test_the_language_switch_changes_every_label_and_the_dates(console: Api) -> None:
    sign_in(console.client, DESK_EMAIL)
    venue = console.venues["center-court"]
    path = f"/console/venues/{venue}/day?date=2026-06-05"
    german = console.client.get(path).text
    assert "Tagesplan für Freitag, 5. Juni 2026" in german
    assert ">08:00<" in german

    switched = console.client.post(
        "/console/language",
        data={"language": "en", "next": path, "_csrf_token": csrf_of(german)},
        follow_redirects=False,
    )
    assert switched.status_code == 303
    assert switched.headers["location"] == path
    english = console.client.get(path).text
    assert '<html lang="en">' in english
    assert "Day sheet of Friday, June 5, 2026" in english
    assert ">8:00\u202fAM<" in english


def test_the_language_switch_goes_back_to_console_pages_only(console: Api) -> None:
    token = csrf_of(console.client.get("/console/login").text)
    answer = console.client.post(
        "/console/language",
        data={"language": "de", "next": "https://evil.example/", "_csrf_token": token},
        follow_redirects=False,
    )
    assert answer.headers["location"] == "/console/"


def test_the_day_sheet_shows_the_resources_their_hours_and_closed_time(console: Api) -> None:
    sign_in(console.client, ADMIN_EMAIL)
    venue = console.venues["center-court"]
    page = console.client.get(f"/console/venues/{venue}/day?date=2026-06-05").text

    assert "Court 1" in page
    assert "Court 2" in page
    assert "Old Court" not in page  # inactive
    assert page.count('class="closed"') == 1  # the catalog's maintenance of Court 1, 08:00-12:00
    assert "Maintenance" in page
    assert "Open 8:00\u202fAM\u20135:00\u202fPM" in page  # an en dash between the times
    assert 'href="?date=2026-06-04"' in page
    assert 'href="?date=2026-06-06"' in page
    assert 'href="?date=2026-06-01"' in page  # today, by the test clock
    assert 'class="now"' not in page  # not today


def test_the_day_sheet_draws_the_line_at_now_today(console: Api) -> None:
    sign_in(console.client, ADMIN_EMAIL)
    page = console.client.get(f"/console/venues/{console.venues['center-court']}/day").text  # 08:00 in Berlin

    assert 'class="now"' in page
    assert "Now 8:00\u202fAM" in page


def test_another_venues_day_sheet_is_not_found_and_a_bad_date_is_explained(console: Api) -> None:
    sign_in(console.client, DESK_EMAIL)

    other = console.client.get(f"/console/venues/{console.venues['harbour-padel']}/day")
    assert other.status_code == 404
    assert "Anlage" in other.text
    bad = console.client.get(f"/console/venues/{console.venues['center-court']}/day?date=tomorrow")
    assert bad.status_code == 400
    assert "kein Datum" in bad.text


def test_the_day_sheet_places_bookings_and_staff_blocks_in_their_columns_and_rows(console: Api) -> None:
    book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    closed = console.client.post(
        f"{OPERATOR}/venues/{console.venues['center-court']}/blocks/",
        json={
            "resource_ids": [console.resources["Court 1"]],
            "start_datetime": "2026-06-02T14:00:00+02:00",
            "end_datetime": "2026-06-02T15:00:00+02:00",
            "reason": "event",
            "note": "Club final",
        },
        headers=auth(DESK),
    )
    assert closed.status_code == 201, closed.text
    sign_in(console.client, DESK_EMAIL)

    page = console.client.get(f"/console/venues/{console.venues['center-court']}/day?date=2026-06-02").text

    # the grid starts at 08:00 with header row 1: 10:00 is line 2 + 24, 11:30 line 2 + 42; Court 2 is column 3
    assert 'class="booking status-pending" style="grid-row: 26 / 44; grid-column: 3"' in page
    assert "Anna Schmidt" in page
    assert "Zahlung offen" in page  # pending, in the desk's German
    # 14:00-15:00 on Court 1 (column 2): hatched, with its reason and note
    assert 'class="closed" style="grid-row: 74 / 86; grid-column: 2"' in page
    assert "Veranstaltung" in page
    assert "Club final" in page


def test_a_role_taken_away_ends_the_session_at_the_next_page(console: Api) -> None:
    sign_in(console.client, DESK_EMAIL)
    assert console.client.get("/console/").status_code == 200
    with console.services.deps.read() as uow:
        desk = uow.users.get_by_email(DESK_EMAIL)
    assert desk is not None

    remove_staff(console.services.deps, None, desk.id)

    refused = console.client.get("/console/", follow_redirects=False)
    assert refused.status_code == 303
    assert refused.headers["location"] == "/console/login"


def _audit_count(console: Api, booking_id: str) -> int:
    with console.services.deps.read() as uow:
        return len(uow.audit.list(AuditQuery(object_id=booking_id), limit=100, offset=0))


def _status(console: Api, booking_id: str) -> str:
    with console.services.deps.read() as uow:
        found = uow.bookings.get(booking_id)
    assert found is not None
    return found.status.value


def test_the_day_sheet_links_to_the_bookings_page_with_customer_payment_and_history(console: Api) -> None:
    made = book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    sign_in(console.client, ADMIN_EMAIL)
    venue = console.venues["center-court"]
    sheet = console.client.get(f"/console/venues/{venue}/day?date=2026-06-02").text
    assert f'href="/console/bookings/{made["id"]}"' in sheet

    confirmed = console.client.post(
        f"/console/bookings/{made['id']}/confirm",
        data={"_csrf_token": csrf_of(sheet)},
        follow_redirects=False,
    )
    assert confirmed.status_code == 303
    page = console.client.get(confirmed.headers["location"])

    assert page.status_code == 200
    assert "Anna Schmidt" in page.text
    assert CUSTOMER_EMAIL in page.text
    assert made["reference_code"] in page.text
    assert 'id="status">Confirmed<' in page.text
    assert "admin@platform.example" in page.text  # the history: who confirmed it
    assert 'value="amount"' in page.text  # an admin may choose any refund
    assert "By the cancellation policy: €0.00" in page.text  # nothing paid yet


def test_a_refused_action_shows_the_use_cases_reason_and_changes_nothing(console: Api) -> None:
    made = book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    sign_in(console.client, ADMIN_EMAIL)
    path = f"/console/bookings/{made['id']}"
    token = csrf_of(console.client.get(path).text)
    cancel = {"_csrf_token": token, "refund": "policy", "reason": "other"}
    assert console.client.post(f"{path}/cancel", data=cancel, follow_redirects=False).status_code == 303
    entries = _audit_count(console, made["id"])

    again = console.client.post(f"{path}/cancel", data=cancel)
    assert again.status_code == 409
    assert "nothing was changed" in again.text
    assert "cancelled" in again.text  # the state machine names the status
    too_much = console.client.post(f"{path}/cancel", data={**cancel, "refund": "amount", "amount": "5.00"})
    assert too_much.status_code == 409
    assert _audit_count(console, made["id"]) == entries
    assert _status(console, made["id"]) == "cancelled"


def test_the_desk_is_offered_only_the_policy_and_the_full_refund(console: Api) -> None:
    made = book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    sign_in(console.client, DESK_EMAIL)
    page = console.client.get(f"/console/bookings/{made['id']}").text

    assert 'value="policy"' in page
    assert 'value="full"' in page
    assert 'value="none"' not in page
    assert 'value="amount"' not in page
    assert "Stornieren" in page


def test_an_action_without_the_csrf_token_is_refused_and_changes_nothing(console: Api) -> None:
    made = book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    sign_in(console.client, ADMIN_EMAIL)

    refused = console.client.post(f"/console/bookings/{made['id']}/confirm", data={})

    assert refused.status_code == 403
    assert _status(console, made["id"]) == "pending"
    assert _audit_count(console, made["id"]) == 0


def test_a_move_goes_through_the_use_case_and_a_taken_time_is_refused(console: Api) -> None:
    made = book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    other = book(console, ANNA, "Court 1", "2026-06-02T13:00:00+02:00", "2026-06-02T14:00:00+02:00")
    sign_in(console.client, ADMIN_EMAIL)
    path = f"/console/bookings/{made['id']}"
    token = csrf_of(console.client.get(path).text)
    court1 = console.resources["Court 1"]

    taken = console.client.post(
        f"{path}/move",
        data={
            "_csrf_token": token,
            "resource": court1,
            "start": "2026-06-02T13:00",
            "end": "2026-06-02T14:30",
        },
    )
    assert taken.status_code == 409
    assert "That time was just taken" in taken.text
    moved = console.client.post(
        f"{path}/move",
        data={
            "_csrf_token": token,
            "resource": court1,
            "start": "2026-06-02T15:00",
            "end": "2026-06-02T16:30",
        },
        follow_redirects=False,
    )
    assert moved.status_code == 303, moved.text
    with console.services.deps.read() as uow:
        found = uow.bookings.get(made["id"])
    assert found is not None
    assert found.resource_id == court1
    assert found.start.isoformat() == "2026-06-02T13:00:00+00:00"
    assert other["id"] != made["id"]


def test_a_free_cell_links_to_a_new_booking_that_the_staff_booking_use_case_makes(console: Api) -> None:
    sign_in(console.client, ADMIN_EMAIL)
    venue, court2 = console.venues["center-court"], console.resources["Court 2"]
    sheet = console.client.get(f"/console/venues/{venue}/day?date=2026-06-02").text
    link = f"/console/venues/{venue}/bookings/new?resource={court2}&amp;start=2026-06-02T08:00"
    assert link in sheet

    form = console.client.get(link.replace("&amp;", "&")).text
    assert 'value="2026-06-02T09:00"' in form  # the end, an hour later
    data = {
        "_csrf_token": csrf_of(form),
        "resource": str(court2),
        "start": "2026-06-02T10:00",
        "end": "2026-06-02T11:00",
        "email": "walk-in@example.com",
        "first_name": "Walter",
        "last_name": "Inn",
        "language": "en",
        "payment": "at_venue",
    }
    made = console.client.post(f"/console/venues/{venue}/bookings/new", data=data, follow_redirects=False)
    assert made.status_code == 303, made.text
    page = console.client.get(made.headers["location"]).text
    assert "Walter Inn" in page
    assert 'id="status">Confirmed<' in page

    taken = console.client.post(f"/console/venues/{venue}/bookings/new", data=data)
    assert taken.status_code == 409
    assert "nothing was booked" in taken.text
    assert "That time was just taken" in taken.text
    assert 'value="walk-in@example.com"' in taken.text  # what was typed stays
    no_token = console.client.post(
        f"/console/venues/{venue}/bookings/new", data={**data, "_csrf_token": "", "start": "2026-06-02T12:00"}
    )
    assert no_token.status_code == 403
    with console.services.deps.read() as uow:
        assert uow.users.get_by_email("walk-in@example.com") is not None


def test_closing_time_over_a_paid_booking_lists_it_then_cancels_and_refunds_it(console: Api) -> None:
    made = book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    pay(console, ANNA, made["id"])
    sign_in(console.client, DESK_EMAIL)
    booking_page = console.client.get(f"/console/bookings/{made['id']}").text
    total = Formats("de").money(Decimal(made["total_price"]), made["currency"])
    assert f"Alles: {total}" in booking_page  # the refund of each choice, for what was paid
    venue, court2 = console.venues["center-court"], console.resources["Court 2"]
    path = f"/console/venues/{venue}/blocks/new"
    data = {
        "_csrf_token": csrf_of(console.client.get(path).text),
        "resources": [str(court2)],
        "start": "2026-06-02T09:00",
        "end": "2026-06-02T12:00",
        "reason": "weather",
        "note": "Rain",
    }

    refused = console.client.post(path, data=data)
    assert refused.status_code == 409
    assert made["reference_code"] in refused.text
    assert 'name="on_conflict" value="cancel"' in refused.text
    assert _status(console, made["id"]) == "paid"

    closed = console.client.post(path, data={**data, "on_conflict": "cancel"}, follow_redirects=False)
    assert closed.status_code == 303, closed.text
    assert closed.headers["location"] == f"/console/venues/{venue}/day?date=2026-06-02"
    assert _status(console, made["id"]) in {"cancelled", "refunded"}
    with console.services.deps.read() as uow:
        (payment,) = uow.payments.for_booking(made["id"])
        refund = uow.refunds.get(payment.id)
    assert refund is not None  # one refund request, of all of it
    assert refund.amount in {None, payment.amount}
    sheet = console.client.get(closed.headers["location"]).text
    assert "Rain" in sheet
    assert "Wetter" in sheet


def test_the_bookings_list_searches_and_downloads_the_same_rows_as_csv(console: Api) -> None:
    made = book(console, ANNA, "Court 2", "2026-06-02T10:00:00+02:00", "2026-06-02T11:30:00+02:00")
    book(console, ANNA, "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")
    sign_in(console.client, DESK_EMAIL)
    path = f"/console/venues/{console.venues['center-court']}/bookings"

    found = console.client.get(path, params={"q": made["reference_code"].lower(), "from": "2026-06-02"}).text
    assert f'href="/console/bookings/{made["id"]}"' in found
    assert found.count('href="/console/bookings/') == 1
    assert "bookings.csv?q=" in found
    csv_file = console.client.get(f"{path}.csv", params={"from": "2026-06-02", "to": "2026-06-02"})
    assert csv_file.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(csv_file.text)))
    assert [r["reference_code"] for r in rows] == [made["reference_code"]]
    bad = console.client.get(path, params={"from": "soon"})
    assert bad.status_code == 400
    assert 'role="alert"' in bad.text
