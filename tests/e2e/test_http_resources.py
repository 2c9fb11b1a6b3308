"""Browsing over HTTP: resource list and detail, raw and calculated availability."""

from __future__ import annotations

from datetime import datetime

import pytest

from booking_core.ports import ResourceQuery
from booking_core.usecases.browse import list_resources
from tests.support.http_fixtures import (
    ANNA,
    PARTNER,
    Api,
    api,
    auth,
    book,
    clone_postgres,
    database_url,
    postgres_template,
    sqlite_template,
)

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]

RESOURCES = "/api/v1/resources/"
LIST_FIELDS = {
    "id",
    "name",
    "description",
    "venue",
    "venue_name",
    "venue_slug",
    "capacity",
    "base_price",
    "currency",
    "price_unit",
    "booking_interval_minutes",
    "min_booking_duration_minutes",
    "max_booking_duration_minutes",
    "prevent_unbookable_gaps",
    "is_active",
    "is_bookable",
    "attributes",
}
DETAIL_FIELDS = (LIST_FIELDS - {"venue_name", "venue_slug"}) | {
    "activity_types",
    "dynamic_pricing_enabled",
    "min_price",
    "max_price",
    "current_demand_level",
    "min_advance_booking_minutes",
    "max_advance_booking_days",
    "availability_schedules",
    "created_at",
    "updated_at",
}
CONSTRAINT_FIELDS = {
    "resource_id",
    "resource_name",
    "start_date",
    "end_date",
    "timezone",
    "booking_interval_minutes",
    "min_duration_minutes",
    "max_duration_minutes",
    "prevent_unbookable_gaps",
    "min_advance_booking_minutes",
    "max_advance_booking_days",
}


def test_list_shows_active_bookable_resources_with_list_fields(api: Api) -> None:
    response = api.client.get(RESOURCES)
    assert response.status_code == 200
    items = response.json()
    assert {i["name"] for i in items} == {"Court 1", "Court 2", "Padel A"}
    court = next(i for i in items if i["name"] == "Court 1")
    assert set(court) == LIST_FIELDS
    assert court == court | {
        "venue": api.venues["center-court"],
        "venue_name": "Center Court Club",
        "venue_slug": "center-court",
        "capacity": 4,
        "base_price": "20.00",
        "currency": "EUR",
        "price_unit": "hour",
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 180,
        "prevent_unbookable_gaps": True,
        "is_active": True,
        "is_bookable": True,
        "attributes": {"surface": "clay"},
    }
    padel = next(i for i in items if i["name"] == "Padel A")
    assert padel["max_booking_duration_minutes"] is None


def test_list_filters(api: Api) -> None:
    def names(query: str) -> set[str]:
        response = api.client.get(f"{RESOURCES}?{query}")
        assert response.status_code == 200, response.text
        return {i["name"] for i in response.json()}

    padel_type = next(
        a.id
        for r in list_resources(api.services.deps, ResourceQuery()).items
        for a in r.activity_types
        if a.name == "padel"
    )
    assert names(f"venue={api.venues['harbour-padel']}") == {"Padel A"}
    assert names("venue_slug=center-court") == {"Court 1", "Court 2"}
    assert names(f"activity={padel_type}") == {"Padel A"}
    assert names("is_active=false") == {"Old Court"}
    assert names("venue_slug=nowhere") == set()


def test_detail_has_venue_object_schedules_and_time_slots(api: Api) -> None:
    response = api.client.get(f"{RESOURCES}{api.resources['Court 2']}/")
    assert response.status_code == 200
    detail = response.json()
    assert set(detail) == DETAIL_FIELDS
    assert detail["venue"] == {
        "id": api.venues["center-court"],
        "name": "Center Court Club",
        "slug": "center-court",
        "address": "Hauptstrasse 1, 10115 Berlin",
    }
    assert detail["activity_types"] == ["tennis"]
    assert detail["dynamic_pricing_enabled"] is True
    assert (detail["min_price"], detail["max_price"]) == ("15.00", "45.00")
    assert isinstance(detail["current_demand_level"], int | float)
    assert datetime.fromisoformat(detail["created_at"]).utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    schedules = detail["availability_schedules"]
    assert len(schedules) == 7
    monday = next(s for s in schedules if s["day_of_week"] == 1)
    assert monday == monday | {
        "schedule_type": "recurring",
        "day_of_week_display": "Monday",
        "specific_date": None,
        "start_date": None,
        "end_date": None,
        "priority": 0,
        "is_active": True,
    }
    assert isinstance(monday["id"], int)
    first, peak = monday["time_slots"]
    assert set(first) == {
        "id",
        "start_time",
        "end_time",
        "price_per_unit",
        "pricing_unit",
        "slot_duration_minutes",
        "capacity_override",
        "label",
        "is_bookable",
    }
    assert (first["start_time"], first["end_time"], first["price_per_unit"]) == (
        "08:00:00",
        "17:00:00",
        "20.00",
    )
    assert (peak["label"], peak["price_per_unit"], peak["pricing_unit"]) == ("Peak", "30.00", "hour")
    assert first["capacity_override"] is None
    assert first["slot_duration_minutes"] == 30


def test_specific_date_schedule_is_reported_as_such(api: Api) -> None:
    detail = api.client.get(f"{RESOURCES}{api.resources['Padel A']}/").json()
    override = next(s for s in detail["availability_schedules"] if s["specific_date"])
    assert override["schedule_type"] == "specific_date"
    assert override["specific_date"] == "2026-06-10"
    assert override["day_of_week"] == 3
    assert override["time_slots"] == []


@pytest.mark.parametrize("name", ["Old Court", None])
def test_detail_of_unknown_or_inactive_resource_is_404(api: Api, name: str | None) -> None:
    resource_id = api.resources[name] if name else 999_999
    response = api.client.get(f"{RESOURCES}{resource_id}/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_raw_availability_lists_windows_bookings_and_closures(api: Api) -> None:
    booking = book(api, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
    court = api.resources["Court 1"]
    response = api.client.get(f"{RESOURCES}{court}/availability/?start_date=2026-06-05&end_date=2026-06-05")
    assert response.status_code == 200, response.text
    raw = response.json()
    assert set(raw) == CONSTRAINT_FIELDS | {"windows", "booked_slots", "unavailable_periods"}
    assert raw["timezone"] == "Europe/Berlin"
    assert (raw["start_date"], raw["end_date"]) == ("2026-06-05", "2026-06-05")
    assert [(w["start_time"], w["end_time"], w["price_per_hour"], w["label"]) for w in raw["windows"]] == [
        ("08:00:00", "17:00:00", "20.00", ""),
        ("17:00:00", "22:00:00", "30.00", "Peak"),
    ]
    assert set(raw["windows"][0]) == {
        "date",
        "start_time",
        "end_time",
        "price_per_hour",
        "currency",
        "label",
        "booking_interval_minutes",
        "min_duration_minutes",
        "max_duration_minutes",
        "prevent_unbookable_gaps",
    }
    assert raw["booked_slots"] == [
        {
            "start_datetime": "2026-06-05T14:00:00+02:00",
            "end_datetime": "2026-06-05T15:00:00+02:00",
            "booking_id": booking["id"],
        }
    ]
    assert raw["unavailable_periods"] == [
        {
            "start_datetime": "2026-06-05T08:00:00+02:00",
            "end_datetime": "2026-06-05T12:00:00+02:00",
            "reason": "maintenance",
        }
    ]


@pytest.mark.parametrize(
    "query",
    [
        "",
        "start_date=2026-06-05",
        "start_date=2026-06-05&end_date=junk",
        "start_date=2026-06-05&end_date=2026-06-04",
        "start_date=2026-06-01&end_date=2026-07-03",
    ],
)
def test_availability_with_missing_or_invalid_dates_is_400(api: Api, query: str) -> None:
    court = api.resources["Court 1"]
    for path in (
        f"{RESOURCES}{court}/availability/?{query}",
        f"{RESOURCES}availability/?resource_id={court}&{query}",
    ):
        response = api.client.get(path)
        assert response.status_code == 400, path
        assert set(response.json()) == {"error"}


def test_thirty_one_days_are_allowed(api: Api) -> None:
    court = api.resources["Court 1"]
    response = api.client.get(f"{RESOURCES}{court}/availability/?start_date=2026-06-01&end_date=2026-07-02")
    assert response.status_code == 200


def test_raw_availability_of_unknown_resource_is_404(api: Api) -> None:
    response = api.client.get(f"{RESOURCES}999999/availability/?start_date=2026-06-05&end_date=2026-06-05")
    assert response.status_code == 404


def _ranges(api: Api, query: str, token: str | None = None) -> list[dict[str, object]]:
    response = api.client.get(f"{RESOURCES}availability/?{query}", headers=auth(token))
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == CONSTRAINT_FIELDS | {"available_ranges"}
    ranges: list[dict[str, object]] = body["available_ranges"]
    return ranges


def test_available_ranges_are_split_by_bookings_and_price(api: Api) -> None:
    court = api.resources["Court 1"]
    query = f"resource_id={court}&start_date=2026-06-03&end_date=2026-06-03"
    before = _ranges(api, query)
    assert [(r["start_time"], r["end_time"], r["label"]) for r in before] == [
        ("08:00:00", "17:00:00", ""),
        ("17:00:00", "22:00:00", "Peak"),
    ]
    assert set(before[0]) == {
        "date",
        "start_time",
        "end_time",
        "price_per_hour",
        "currency",
        "label",
        "slot_prices",
    }
    assert before[0]["slot_prices"] is None
    assert (before[0]["price_per_hour"], before[0]["currency"], before[0]["date"]) == (
        "20.00",
        "EUR",
        "2026-06-03",
    )
    book(api, ANNA, "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T12:00:00+02:00")
    after = _ranges(api, query)
    assert [(r["start_time"], r["end_time"]) for r in after] == [
        ("08:00:00", "10:00:00"),
        ("12:00:00", "17:00:00"),
        ("17:00:00", "22:00:00"),
    ]


def test_dynamic_pricing_lists_slot_prices(api: Api) -> None:
    ranges = _ranges(api, f"resource_id={api.resources['Court 2']}&start_date=2026-06-03&end_date=2026-06-03")
    prices = ranges[0]["slot_prices"]
    assert isinstance(prices, dict)
    assert "08:00" in prices
    assert "08:30" in prices
    assert all(isinstance(p, str) and "." in p for p in prices.values())


def test_availability_by_external_id_needs_a_client_token(api: Api) -> None:
    query = "resource_external_id=court-one&start_date=2026-06-03&end_date=2026-06-03"
    anonymous = api.client.get(f"{RESOURCES}availability/?{query}")
    assert anonymous.status_code == 401
    unmapped = api.client.get(f"{RESOURCES}availability/?{query}", headers=auth(PARTNER))
    assert unmapped.status_code == 400
    assert list(unmapped.json()) == ["resource_external_id"]
    assert isinstance(unmapped.json()["resource_external_id"][0], str)
    registered = api.client.post(
        "/api/v1/client/resources/register/",
        json={"external_id": "court-one", "resource_id": api.resources["Court 1"]},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201
    ranges = _ranges(api, query, PARTNER)
    assert len(ranges) == 2


def test_availability_without_a_resource_is_400(api: Api) -> None:
    response = api.client.get(f"{RESOURCES}availability/?start_date=2026-06-03&end_date=2026-06-03")
    assert response.status_code == 400


def test_availability_respects_the_venue_timezone(api: Api) -> None:
    padel = api.resources["Padel A"]
    response = api.client.get(
        f"{RESOURCES}availability/?resource_id={padel}&start_date=2026-06-03&end_date=2026-06-03"
    )
    body = response.json()
    assert body["timezone"] == "America/New_York"
    assert body["available_ranges"][0]["start_time"] == "08:00:00"
    assert body["available_ranges"][0]["currency"] == "USD"
    closed = _ranges(api, f"resource_id={padel}&start_date=2026-06-10&end_date=2026-06-10")
    assert closed == []


def test_the_resource_list_comes_a_page_at_a_time(api: Api) -> None:
    whole = api.client.get(RESOURCES)
    assert whole.status_code == 200
    assert "link" not in whole.headers
    assert len(whole.json()) >= 2
    first = api.client.get(f"{RESOURCES}?limit=1")
    assert [r["id"] for r in first.json()] == [whole.json()[0]["id"]]
    assert first.headers["link"].endswith('offset=1>; rel="next"'), first.headers["link"]
    rest = api.client.get(f"{RESOURCES}?limit=1000&offset=1")
    assert [r["id"] for r in rest.json()] == [r["id"] for r in whole.json()[1:]]
    assert api.client.get(f"{RESOURCES}?limit=0").status_code == 400
