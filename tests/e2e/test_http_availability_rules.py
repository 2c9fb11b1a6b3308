"""The availability endpoints and ``POST /bookings/`` agree (CONTRACT 4.1: availability offers exactly
what the booking rules accept), on the cases of issue 12, on SQLite and PostgreSQL.

Each test loads a venue of its own beside the shared catalog: one resource per case.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from adapters.catalog import validate_catalog, write_catalog
from adapters.passwords import Argon2Passwords
from adapters.sqla import make_engine
from tests.support.http_fixtures import (
    ANNA,
    NOW,
    Api,
    book,
    clone_postgres,
    database_url,
    postgres_template,
    sqlite_template,
    start,
)
from tests.support.http_fixtures import _resource as catalog_resource

__all__ = ["clone_postgres", "database_url", "postgres_template", "sqlite_template"]

TUESDAY, WEDNESDAY = "2026-06-02", "2026-06-03"


def _slot(start: str, end: str) -> dict[str, str]:
    return {"start_time": f"{start}:00", "end_time": f"{end}:00", "price_per_unit": "20.00"}


def _resource(name: str, slots: list[tuple[str, str]], **rules: Any) -> dict[str, Any]:
    """A resource of the shared catalog's kind, open every day in ``slots``, without the gap rule."""
    schedules = [{"day_of_week": day, "time_slots": [_slot(a, b) for a, b in slots]} for day in range(1, 8)]
    return catalog_resource(name, schedules=schedules, prevent_unbookable_gaps=False) | rules


def _closure(day: str, start: str, end: str) -> dict[str, str]:
    return {
        "start_datetime": f"{day}T{start}:00+02:00",
        "end_datetime": f"{day}T{end}:00+02:00",
        "reason": "maintenance",
    }


CATALOG = {
    "venues": [
        {
            "slug": "rules-club",
            "name": "Rules Club",
            "venue_type": "tennis_club",
            "street_address": "Nebenstrasse 2",
            "city": "Berlin",
            "postal_code": "10115",
            "country": "DE",
            "latitude": "52.5",
            "longitude": "13.4",
            "timezone": "Europe/Berlin",
            "operator_email": "ops@rules.example",
            "resources": [
                # Tuesday 20:00-24:00 and Wednesday 00:00-02:00: one block across midnight
                {
                    **_resource("Midnight", [], min_booking_duration_minutes=120),
                    "schedules": [
                        {"day_of_week": 2, "time_slots": [_slot("20:00", "00:00")]},
                        {"day_of_week": 3, "time_slots": [_slot("00:00", "02:00")]},
                    ],
                },
                _resource("Plain", [("08:00", "22:00")]),
                _resource(
                    "Near the limit",
                    [("08:00", "22:00")],
                    min_booking_duration_minutes=120,
                    max_advance_booking_days=1,
                    unavailable_periods=[
                        _closure(TUESDAY, "08:00", "15:00"),
                        _closure(TUESDAY, "17:00", "22:00"),
                    ],
                ),
                _resource(
                    "Two hours or nothing",
                    [("08:00", "11:00")],
                    min_booking_duration_minutes=120,
                    max_booking_duration_minutes=120,
                    prevent_unbookable_gaps=True,
                ),
                _resource(
                    "Quarter past",
                    [("10:15", "12:45")],
                    booking_interval_minutes=60,
                    min_booking_duration_minutes=60,
                    prevent_unbookable_gaps=True,
                ),
                _resource("Uneven end", [("08:00", "12:40")]),
                # the shared catalog's court: gap rule, 60-minute minimum, 17:00-22:00 Peak
                catalog_resource("Peak after a gap"),
            ],
        }
    ]
}


@pytest.fixture
def api(database_url: str) -> Iterator[Api]:
    """The app on a fresh database of each backend, with the resources above."""
    engine = make_engine(database_url)
    try:
        write_catalog(engine, validate_catalog(CATALOG), Argon2Passwords(), now=NOW)
    finally:
        engine.dispose()
    yield from start(database_url)


def offered(api: Api, name: str, first: str, last: str | None = None) -> list[tuple[str, str, str]]:
    """The free ranges of the calculated endpoint: (date, start, end)."""
    query = f"resource_id={api.resources[name]}&start_date={first}&end_date={last or first}"
    response = api.client.get(f"/api/v1/resources/availability/?{query}")
    assert response.status_code == 200, response.text
    return [(r["date"], r["start_time"][:5], r["end_time"][:5]) for r in response.json()["available_ranges"]]


def refused(api: Api, name: str, start: str, end: str) -> dict[str, list[str]]:
    """The 400 answer to a booking the rules refuse."""
    answer: dict[str, list[str]] = book(api, ANNA, name, start, end, expect=400)
    return answer


def test_a_block_across_midnight_is_offered_whatever_dates_are_asked(api: Api) -> None:
    book(api, ANNA, "Midnight", f"{TUESDAY}T20:00:00+02:00", f"{TUESDAY}T23:00:00+02:00")
    tuesday, wednesday = (TUESDAY, "23:00", "00:00"), (WEDNESDAY, "00:00", "02:00")

    assert offered(api, "Midnight", TUESDAY) == [tuesday]
    assert offered(api, "Midnight", TUESDAY, WEDNESDAY) == [tuesday, wednesday]
    assert offered(api, "Midnight", WEDNESDAY) == [wednesday]
    book(api, ANNA, "Midnight", f"{TUESDAY}T23:00:00+02:00", f"{WEDNESDAY}T01:00:00+02:00")
    assert offered(api, "Midnight", TUESDAY, WEDNESDAY) == []


def test_no_range_starts_at_now(api: Api) -> None:
    api.clock.current = NOW.replace(hour=8, minute=30)  # 10:30 in Berlin, on an aligned minute

    assert offered(api, "Plain", "2026-06-01")[0] == ("2026-06-01", "11:00", "22:00")
    assert refused(api, "Plain", "2026-06-01T10:30:00+02:00", "2026-06-01T11:30:00+02:00") == {
        "start_datetime": ["Start time must be in the future."]
    }
    book(api, ANNA, "Plain", "2026-06-01T11:00:00+02:00", "2026-06-01T12:00:00+02:00")


def test_starts_up_to_the_advance_limit_are_offered(api: Api) -> None:
    api.clock.current = NOW.replace(hour=13, minute=10)  # 15:10 in Berlin: the limit is Tuesday 15:10

    assert offered(api, "Near the limit", TUESDAY) == [(TUESDAY, "15:00", "17:00")]
    book(api, ANNA, "Near the limit", f"{TUESDAY}T15:00:00+02:00", f"{TUESDAY}T17:00:00+02:00")
    assert offered(api, "Near the limit", TUESDAY) == []


def test_beyond_the_advance_limit_nothing_is_offered_or_accepted(api: Api) -> None:
    api.clock.current = NOW.replace(hour=12, minute=50)  # the limit is Tuesday 14:50, before the block

    assert offered(api, "Near the limit", TUESDAY) == []
    assert refused(api, "Near the limit", f"{TUESDAY}T15:00:00+02:00", f"{TUESDAY}T17:00:00+02:00") == {
        "start_datetime": ["Bookings can be made at most 1 days in advance."]
    }


def test_nothing_is_offered_where_the_gap_rule_and_the_maximum_leave_nothing(api: Api) -> None:
    assert offered(api, "Two hours or nothing", TUESDAY) == []
    gap = ["This booking would leave a 60-minute gap; the minimum booking is 120 minutes."]
    assert refused(api, "Two hours or nothing", f"{TUESDAY}T08:00:00+02:00", f"{TUESDAY}T10:00:00+02:00") == {
        "non_field_errors": gap
    }
    assert refused(api, "Two hours or nothing", f"{TUESDAY}T09:00:00+02:00", f"{TUESDAY}T11:00:00+02:00") == {
        "non_field_errors": gap
    }


def test_nothing_is_offered_where_alignment_and_the_gap_rule_leave_nothing(api: Api) -> None:
    assert offered(api, "Quarter past", TUESDAY) == []
    assert refused(api, "Quarter past", f"{TUESDAY}T11:00:00+02:00", f"{TUESDAY}T12:00:00+02:00") == {
        "non_field_errors": ["This booking would leave a 45-minute gap; the minimum booking is 60 minutes."]
    }


def test_ends_align_in_what_is_offered_and_in_what_is_accepted(api: Api) -> None:
    assert offered(api, "Uneven end", TUESDAY) == [(TUESDAY, "08:00", "12:30")]
    assert refused(api, "Uneven end", f"{TUESDAY}T11:40:00+02:00", f"{TUESDAY}T12:40:00+02:00") == {
        "non_field_errors": ["Start time must align to the booking interval of 30 minutes."]
    }
    assert refused(api, "Uneven end", f"{TUESDAY}T11:30:00+02:00", f"{TUESDAY}T12:40:00+02:00") == {
        "non_field_errors": ["End time must align to the 30-minute booking interval."]
    }
    book(api, ANNA, "Uneven end", f"{TUESDAY}T11:30:00+02:00", f"{TUESDAY}T12:30:00+02:00")


def test_every_offered_range_can_be_booked_from_its_start(api: Api) -> None:
    book(api, ANNA, "Peak after a gap", f"{TUESDAY}T14:30:00+02:00", f"{TUESDAY}T16:30:00+02:00")

    # from 17:00 a booking would leave a 30-minute gap, so the Peak range starts at 17:30
    ranges = offered(api, "Peak after a gap", TUESDAY)
    assert ranges == [(TUESDAY, "08:00", "14:30"), (TUESDAY, "16:30", "17:00"), (TUESDAY, "17:30", "22:00")]
    assert refused(api, "Peak after a gap", f"{TUESDAY}T17:00:00+02:00", f"{TUESDAY}T18:00:00+02:00") == {
        "non_field_errors": ["This booking would leave a 30-minute gap; the minimum booking is 60 minutes."]
    }
    for _date, begin, _end in ranges:
        start = datetime.fromisoformat(f"{TUESDAY}T{begin}:00+02:00")
        book(api, ANNA, "Peak after a gap", start.isoformat(), (start + timedelta(hours=1)).isoformat())


def test_raw_availability_still_shows_the_windows_as_published(api: Api) -> None:
    court = api.resources["Quarter past"]
    response = api.client.get(
        f"/api/v1/resources/{court}/availability/?start_date={TUESDAY}&end_date={TUESDAY}"
    )
    assert response.status_code == 200, response.text
    windows = response.json()["windows"]
    assert [(w["start_time"], w["end_time"]) for w in windows] == [("10:15:00", "12:45:00")]
