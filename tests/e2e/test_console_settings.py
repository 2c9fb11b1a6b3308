"""A resource's settings in the console (CONTRACT 8), as a browser without JavaScript uses the page: the
form posts every field it shows, and the venue catalog's use case of the operator API (CONTRACT 7.5)
checks and saves the whole venue, so the operator API's catalog and the availability show the change.
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest

from tests.support.console_fixtures import (  # noqa: F401 - fixtures used by name
    ADMIN_EMAIL,
    DESK_EMAIL,
    console_sqlite_template,
    console_sqlite_url,
    csrf_of,
    sign_in,
)
from tests.support.http_fixtures import ANNA, MANAGER, OPERATOR, Api, auth, book, start

MANAGER_EMAIL = "manager@center-court.example"  # manager at Center Court, speaks German (the default)
TUESDAY = "2026-06-02"


@pytest.fixture
def console(request: pytest.FixtureRequest) -> Iterator[Api]:
    """The app on a fresh SQLite database with the console's catalog (the page acts through the catalog's
    use case, whose storage tests run on both backends)."""
    yield from start(request.getfixturevalue("console_sqlite_url"))


class _Form(HTMLParser):
    """The values a browser posts for the settings form: every named input, a checkbox only when ticked."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "form" and found.get("class") == "settings":
            self._inside = True
        elif tag == "input" and self._inside and "name" in found:
            if found.get("type") == "checkbox" and "checked" not in found:
                return
            self.values[found["name"]] = found.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._inside = False


def form_values(page: str) -> dict[str, str]:
    """What the settings form on ``page`` posts as it is shown."""
    parser = _Form()
    parser.feed(page)
    assert parser.values, "the page has no settings form"
    return parser.values


def settings_path(console: Api, resource: str = "Court 2") -> str:
    return (
        f"/console/venues/{console.venues['center-court']}/resources/{console.resources[resource]}/settings"
    )


def catalog_of(console: Api, resource: str = "Court 2") -> dict[str, Any]:
    """The resource's entry in the operator API's catalog of Center Court."""
    answer = console.client.get(
        f"{OPERATOR}/venues/{console.venues['center-court']}/catalog/", headers=auth(MANAGER)
    )
    assert answer.status_code == 200, answer.text
    (found,) = [r for r in answer.json()["resources"] if r["name"] == resource]
    return dict(found)


def windows_of(entry: dict[str, Any], day: int) -> list[tuple[str, str, str]]:
    (schedule,) = [s for s in entry["schedules"] if s.get("day_of_week") == day]
    return [(s["start_time"], s["end_time"], s["price_per_unit"]) for s in schedule["time_slots"]]


def test_a_manager_changes_a_window_a_price_and_a_rule_and_the_operator_api_shows_them(console: Api) -> None:
    sign_in(console.client, MANAGER_EMAIL)
    venues = console.client.get("/console/").text
    path = settings_path(console)
    assert f'href="{path}"' in venues  # the manager is offered the settings of each court
    page = console.client.get(path)
    assert page.status_code == 200
    assert "Einstellungen für Court 2" in page.text
    assert "<legend>Dienstag</legend>" in page.text  # the weekdays in the manager's German
    values = form_values(page.text)
    assert (values["d2w0_start"], values["d2w0_end"], values["d2w0_price"]) == ("08:00", "17:00", "20,00")

    # Tuesday: the peak starts an hour earlier and costs 35.50 (typed with a decimal comma); longer minimum
    changed = {**values, "d2w0_end": "16:00", "d2w1_start": "16:00", "d2w1_price": "35,50"}
    saved = console.client.post(path, data={**changed, "min_booking_duration_minutes": "90"})

    assert saved.status_code == 200, saved.text
    assert "Gespeichert" in saved.text
    assert "Keine Buchung liegt außerhalb der Öffnungszeiten." in saved.text
    assert 'name="d2w1_price" value="35,50"' in saved.text  # what is stored now, with German's comma
    entry = catalog_of(console)
    assert windows_of(entry, 2) == [("08:00:00", "16:00:00", "20.00"), ("16:00:00", "22:00:00", "35.50")]
    assert windows_of(entry, 3) == [("08:00:00", "17:00:00", "20.00"), ("17:00:00", "22:00:00", "30.00")]
    assert entry["min_booking_duration_minutes"] == 90
    assert entry["dynamic_pricing"]["enabled"]  # what the page does not show is kept
    raw = console.client.get(
        f"/api/v1/resources/{console.resources['Court 2']}/availability/",
        params={"start_date": TUESDAY, "end_date": TUESDAY},
    ).json()
    assert [(w["start_time"], w["end_time"], w["price_per_hour"]) for w in raw["windows"]] == [
        ("08:00:00", "16:00:00", "20.00"),
        ("16:00:00", "22:00:00", "35.50"),
    ]
    assert raw["min_duration_minutes"] == 90


def test_a_window_added_in_the_empty_row_opens_a_closed_evening(console: Api) -> None:
    sign_in(console.client, ADMIN_EMAIL)
    path = settings_path(console, "Court 1")
    values = form_values(console.client.get(path).text)
    assert values["d7w2_start"] == ""  # Sunday's empty row, for a new window

    added = {
        **values,
        "d7w2_start": "22:00",
        "d7w2_end": "23:00",
        "d7w2_price": "15.00",
        "d7w2_label": "Late",
    }
    saved = console.client.post(path, data=added)

    assert saved.status_code == 200, saved.text
    assert "Saved." in saved.text
    assert windows_of(catalog_of(console, "Court 1"), 7)[-1] == ("22:00:00", "23:00:00", "15.00")


def test_a_bad_value_is_explained_on_its_field_with_what_was_typed_and_nothing_changes(console: Api) -> None:
    sign_in(console.client, MANAGER_EMAIL)
    path = settings_path(console)
    before = catalog_of(console)
    values = form_values(console.client.get(path).text)

    refused = console.client.post(path, data={**values, "d2w1_price": "99.00", "d3w0_end": "07:00"})

    assert refused.status_code == 400
    assert "Die Einstellungen wurden nicht gespeichert; nichts wurde geändert." in refused.text
    assert (
        '<a href="#d3w0_end">Mittwoch, Zeitfenster 1: schließt</a>: must be after start_time' in refused.text
    )
    assert 'name="d3w0_end" value="07:00" aria-invalid="true"' in refused.text
    assert 'name="d2w1_price" value="99.00"' in refused.text  # every typed value stays
    assert catalog_of(console) == before


def test_a_bad_rule_is_named_in_the_staff_members_words(console: Api) -> None:
    sign_in(console.client, ADMIN_EMAIL)
    path = settings_path(console)
    before = catalog_of(console)
    values = form_values(console.client.get(path).text)

    refused = console.client.post(path, data={**values, "booking_interval_minutes": "ten"})

    assert refused.status_code == 400
    assert (
        '<a href="#booking_interval_minutes">Booking interval in minutes</a>: must be a positive integer'
        in (refused.text)
    )
    assert 'value="ten"' in refused.text
    assert catalog_of(console) == before


def test_the_front_desk_is_refused_the_page_and_the_save_and_offered_no_link(console: Api) -> None:
    sign_in(console.client, DESK_EMAIL)
    path = settings_path(console)
    before = catalog_of(console)
    venues = console.client.get("/console/").text
    assert "/settings" not in venues

    page = console.client.get(path)
    assert page.status_code == 403
    assert "Ihre Rolle erlaubt das nicht." in page.text
    posted = console.client.post(
        path,
        data={"_csrf_token": csrf_of(venues), "d2w0_start": "09:00", "d2w0_end": "17:00", "d2w0_price": "1"},
    )
    assert posted.status_code == 403
    assert "Ihre Rolle erlaubt das nicht." in posted.text
    assert catalog_of(console) == before


def test_another_venues_resource_reads_as_not_found(console: Api) -> None:
    sign_in(console.client, MANAGER_EMAIL)
    harbour = (
        f"/console/venues/{console.venues['harbour-padel']}/resources/{console.resources['Padel A']}/settings"
    )

    assert console.client.get(harbour).status_code == 404
    other_court = (
        f"/console/venues/{console.venues['center-court']}/resources/{console.resources['Padel A']}/settings"
    )
    assert console.client.get(other_court).status_code == 404


def test_a_save_without_the_csrf_token_is_refused_and_changes_nothing(console: Api) -> None:
    sign_in(console.client, MANAGER_EMAIL)
    path = settings_path(console)
    before = catalog_of(console)
    values = form_values(console.client.get(path).text)
    del values["_csrf_token"]

    refused = console.client.post(path, data={**values, "d2w0_price": "1.00"})

    assert refused.status_code == 403
    assert "Sicherheitsschlüssel" in refused.text
    assert catalog_of(console) == before


def test_a_booking_left_outside_the_new_hours_is_listed_with_a_link_to_move_or_cancel_it(
    console: Api,
) -> None:
    made = book(console, ANNA, "Court 2", f"{TUESDAY}T18:00:00+02:00", f"{TUESDAY}T19:00:00+02:00")
    sign_in(console.client, ADMIN_EMAIL)
    path = settings_path(console)
    values = form_values(console.client.get(path).text)

    # Tuesday closes at 17:00: the evening window is emptied
    closed = {**values, "d2w1_start": "", "d2w1_end": "", "d2w1_price": "", "d2w1_label": ""}
    saved = console.client.post(path, data=closed)

    assert saved.status_code == 200, saved.text
    assert "Saved." in saved.text
    assert "Bookings now outside the opening hours" in saved.text
    assert f'<a href="/console/bookings/{made["id"]}">{made["reference_code"]}</a>' in saved.text
    assert "6:00\u202fPM\u20137:00\u202fPM" in saved.text
    assert windows_of(catalog_of(console), 2) == [("08:00:00", "17:00:00", "20.00")]
    with console.services.deps.read() as uow:
        kept = uow.bookings.get(made["id"])
    assert kept is not None
    assert kept.status.value == "pending"  # the catalog never changes a booking: staff decide
