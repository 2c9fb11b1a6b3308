"""Every bound on input (CONTRACT section 4.8): the last value inside passes, the first outside is a 4xx.

Integers are checked on both databases (SQLite refuses integers beyond 64 bits outright); the other
bounds are checked before anything is stored, so SQLite is enough for them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.http_fixtures import (
    ANNA,
    BOOKINGS,
    PARTNER,
    Api,
    api,
    auth,
    book,
    clone_postgres,
    database_url,
    loaded_sqlite_url,
    postgres_template,
    sqlite_template,
    start,
)

__all__ = [
    "api",
    "clone_postgres",
    "database_url",
    "loaded_sqlite_url",
    "postgres_template",
    "sqlite_template",
]

CLIENT = "/api/v1/client"
INT64_MAX = 2**63 - 1
MORNING = {"start_datetime": "2026-06-03T10:00:00+02:00", "end_datetime": "2026-06-03T11:00:00+02:00"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def edge(loaded_sqlite_url: str) -> Iterator[Api]:
    """The app on SQLite, for bounds checked before storage is reached."""
    yield from start(loaded_sqlite_url)


def field_error(response: Any, field: str) -> str:
    """The one message of a 400 keyed by ``field`` alone."""
    assert response.status_code == 400, response.text
    body = response.json()
    assert list(body) == [field], body
    message: str = body[field][0]
    return message


def query_error(response: Any, parameter: str) -> str:
    """The message of a 400 ``{"error": ...}`` about the query parameter ``parameter`` (CONTRACT 4.8)."""
    assert response.status_code == 400, response.text
    body = response.json()
    assert list(body) == ["error"], body
    message: str = body["error"]
    assert message.startswith(f"{parameter}: "), message
    return message


def _booking(api: Api, **fields: Any) -> dict[str, Any]:
    return {"resource": api.resources["Court 1"], **MORNING, **fields}


# --------------------------------------------------------------------------- strings


def test_booking_notes_at_most_1000_characters(edge: Api) -> None:
    refused = edge.client.post(BOOKINGS, json=_booking(edge, notes="n" * 1001), headers=auth(ANNA))
    assert "1000" in field_error(refused, "notes")
    created = edge.client.post(BOOKINGS, json=_booking(edge, notes="n" * 1000), headers=auth(ANNA))
    assert created.status_code == 201, created.text
    assert created.json()["notes"] == "n" * 1000


def test_cancel_notes_at_most_1000_characters(edge: Api) -> None:
    booking = book(edge, ANNA, "Court 1", *MORNING.values())
    cancel = f"{BOOKINGS}{booking['id']}/cancel/"
    field_error(edge.client.post(cancel, json={"notes": "n" * 1001}, headers=auth(ANNA)), "notes")
    assert edge.client.get(f"{BOOKINGS}{booking['id']}/", headers=auth(ANNA)).json()["status"] == "pending"
    assert edge.client.post(cancel, json={"notes": "n" * 1000}, headers=auth(ANNA)).status_code == 200


def _registration(**fields: Any) -> dict[str, Any]:
    return {"email": "carla@example.com", "password": "ten-chars-or-more", **fields}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"first_name": "a" * 151}, "first_name"),
        ({"last_name": "a" * 151}, "last_name"),
        ({"email": "a" * 243 + "@example.com"}, "email"),  # 255 characters
        ({"password": "p" * 9}, "password"),
        ({"password": "p" * 1025}, "password"),
        ({"language": "english"}, "language"),
    ],
)
def test_registration_bounds(edge: Api, fields: dict[str, Any], field: str) -> None:
    field_error(edge.client.post("/api/v1/auth/register/", json=_registration(**fields)), field)


def test_registration_at_the_bounds_is_accepted(edge: Api) -> None:
    email = "a" * 242 + "@example.com"  # 254 characters
    body = _registration(email=email, password="p" * 1024, first_name="f" * 150, last_name="l" * 150)
    response = edge.client.post("/api/v1/auth/register/", json=body)
    assert response.status_code == 201, response.text
    login = edge.client.post("/api/v1/auth/token/", json={"email": email, "password": "p" * 1024})
    assert login.status_code == 200


def test_login_password_at_most_1024_characters(edge: Api) -> None:
    body = {"email": "anna@example.com", "password": "p" * 1025}
    field_error(edge.client.post("/api/v1/auth/token/", json=body), "password")


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/users/register/", {"external_id": "x" * 256, "email": "eva@example.com"}, "external_id"),
        ("/users/register/", {"external_id": "", "email": "eva@example.com"}, "external_id"),
        (
            "/users/register/",
            {"external_id": "u", "email": "eva@example.com", "first_name": "f" * 151},
            "first_name",
        ),
        ("/resources/register/", {"external_id": "x" * 256, "resource_id": 1}, "external_id"),
        ("/venues/register/", {"external_id": "x" * 256, "venue_id": 1}, "external_id"),
    ],
)
def test_client_registration_bounds(edge: Api, path: str, body: dict[str, Any], field: str) -> None:
    field_error(edge.client.post(f"{CLIENT}{path}", json=body, headers=auth(PARTNER)), field)


def test_external_ids_of_255_characters_are_accepted(edge: Api) -> None:
    external = "x" * 255
    body = {"external_id": external, "resource_id": edge.resources["Court 1"]}
    assert (
        edge.client.post(f"{CLIENT}/resources/register/", json=body, headers=auth(PARTNER)).status_code == 201
    )
    found = edge.client.get(f"{CLIENT}/resources/lookup/?external_id={external}", headers=auth(PARTNER))
    assert found.status_code == 200


@pytest.mark.parametrize(
    ("path", "field"),
    [
        (f"{CLIENT}/users/lookup/?external_id={'x' * 256}", "external_id"),
        (f"{CLIENT}/resources/lookup/?external_id={'x' * 256}", "external_id"),
        (f"{CLIENT}/venues/lookup/?external_id={'x' * 256}", "external_id"),
        (f"{CLIENT}/venues/resources/?venue_external_id={'x' * 256}", "venue_external_id"),
        (
            f"/api/v1/resources/availability/?resource_external_id={'x' * 256}"
            "&start_date=2026-06-02&end_date=2026-06-02",
            "resource_external_id",
        ),
    ],
)
def test_external_ids_in_queries_at_most_255(edge: Api, path: str, field: str) -> None:
    query_error(edge.client.get(path, headers=auth(PARTNER)), field)


def test_user_headers_at_most_255(edge: Api) -> None:
    headers = auth(PARTNER, X_User_External_ID="x" * 256)
    field_error(edge.client.get(BOOKINGS, headers=headers), "X-User-External-ID")
    body = {"resource_external_id": "x" * 256, **MORNING}
    field_error(
        edge.client.post(BOOKINGS, json=body, headers=auth(PARTNER, X_User_ID="u")), "resource_external_id"
    )


# --------------------------------------------------------------------------- Idempotency-Key


def test_idempotency_key_longer_than_255_is_refused_not_cut(edge: Api) -> None:
    long_key = "k" * 255
    first = edge.client.post(
        BOOKINGS, json=_booking(edge), headers={**auth(ANNA), "Idempotency-Key": long_key}
    )
    assert first.status_code == 201
    # once keys were cut to 255 characters, and this one replayed the booking above
    longer = edge.client.post(
        BOOKINGS,
        json=_booking(
            edge, start_datetime="2026-06-03T12:00:00+02:00", end_datetime="2026-06-03T13:00:00+02:00"
        ),
        headers={**auth(ANNA), "Idempotency-Key": long_key + "-other"},
    )
    assert "255" in field_error(longer, "Idempotency-Key")
    assert "idempotent-replayed" not in longer.headers
    assert len(edge.client.get(BOOKINGS, headers=auth(ANNA)).json()) == 1


@pytest.mark.parametrize("key", ["", "tab\there", " leading-space"])
def test_idempotency_key_must_be_printable_ascii(edge: Api, key: str) -> None:
    response = edge.client.post(BOOKINGS, json=_booking(edge), headers={**auth(ANNA), "Idempotency-Key": key})
    field_error(response, "Idempotency-Key")
    assert edge.client.get(BOOKINGS, headers=auth(ANNA)).json() == []


# --------------------------------------------------------------------------- date-times, dates, months

REFUSED_DATETIMES = [
    "2026-06-03T10:00:00+14:30",  # beyond the real offsets
    "2026-06-03T10:00:00+23:59",
    "2026-06-03T10:00:00-12:30",
    "2026-06-03T10:00:00+01:00:30",  # seconds in the offset
    "2026-W23-3T10:00:00+02:00",  # week date
    "20260603T100000+0200",  # basic format
    "2026-06-03",  # a date alone
    "2026-06-03T10:00:00",  # no offset
    "2026-06-03 10:00:00+02:00",
    "2026-02-30T10:00:00+01:00",  # no such day
    "0001-01-01T00:00:00+01:00",  # absurd years: once an overflow (500)
    "9999-12-31T23:00:00-01:00",
    "1999-12-31T23:00:00Z",
    "2101-01-01T00:00:00Z",
    "2026-06-03T10:00:00+02:00\n",
]


@pytest.mark.parametrize("value", REFUSED_DATETIMES)
def test_datetimes_must_be_strict_iso_8601_with_an_offset(edge: Api, value: str) -> None:
    for field in ("start_datetime", "end_datetime"):
        response = edge.client.post(BOOKINGS, json=_booking(edge, **{field: value}), headers=auth(ANNA))
        assert "ISO 8601" in field_error(response, field)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("2026-06-03T08:00:00Z", "2026-06-03T09:00:00Z"),
        ("2026-06-03T10:00+02:00", "2026-06-03T11:00+02:00"),
        ("2026-06-03T10:00:00.000+02:00", "2026-06-03T11:00:00.000000+02:00"),
        ("2026-06-03T22:00:00+14:00", "2026-06-03T23:00:00+14:00"),
        ("2026-06-02T20:00:00-12:00", "2026-06-02T21:00:00-12:00"),
    ],
)
def test_datetimes_in_every_accepted_form(edge: Api, start: str, end: str) -> None:
    response = edge.client.post(
        BOOKINGS, json=_booking(edge, start_datetime=start, end_datetime=end), headers=auth(ANNA)
    )
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    "value",
    [
        "0001-01-01",
        "9999-12-31",
        "1999-12-31",
        "2101-01-01",
        "20260602",
        "2026-W23-2",
        "2026-02-30",
        "2026-6-2",
    ],
)
@pytest.mark.parametrize("raw", [True, False])
def test_availability_dates_are_strict_and_in_the_supported_years(edge: Api, value: str, raw: bool) -> None:
    court = edge.resources["Court 1"]
    query = f"start_date={value}&end_date={value}"
    path = (
        f"/api/v1/resources/{court}/availability/?{query}"
        if raw
        else f"/api/v1/resources/availability/?resource_id={court}&{query}"
    )
    response = edge.client.get(path)
    assert response.status_code == 400, response.text
    assert "YYYY-MM-DD" in response.json()["error"]


@pytest.mark.parametrize("month", ["0000-01", "1999-12", "2026-13", "2026-00", "2026-1", "202606", "2101-01"])
def test_commission_months_are_strict(edge: Api, month: str) -> None:
    response = edge.client.get(f"{CLIENT}/commissions/?month={month}", headers=auth(PARTNER))
    assert response.status_code == 400
    assert "YYYY-MM" in response.json()["error"]
    assert edge.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(PARTNER)).status_code == 200


def test_availability_names_the_parameter_it_lacks(edge: Api) -> None:
    response = edge.client.get("/api/v1/resources/availability/?start_date=2026-06-02&end_date=2026-06-02")
    assert response.status_code == 400
    assert response.json() == {
        "non_field_errors": ["Provide exactly one of resource_id or resource_external_id."]
    }


# --------------------------------------------------------------------------- integers (both databases)


@pytest.mark.parametrize("resource_id", [INT64_MAX + 1, INT64_MAX, -(2**63) - 1, 10**30])
def test_ids_beyond_the_range_in_a_path_are_404(api: Api, resource_id: int) -> None:
    for path in (f"/api/v1/resources/{resource_id}/", f"/api/v1/resources/{resource_id}/availability/"):
        response = api.client.get(f"{path}?start_date=2026-06-02&end_date=2026-06-02")
        assert response.status_code == 404, response.text
        assert response.json() == {"detail": "Not found."}


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/api/v1/resources/?venue={n}", "venue"),
        ("/api/v1/resources/?activity={n}", "activity"),
        (
            "/api/v1/resources/availability/?resource_id={n}&start_date=2026-06-02&end_date=2026-06-02",
            "resource_id",
        ),
        (BOOKINGS + "?offset={n}", "offset"),
        (BOOKINGS + "upcoming/?offset={n}", "offset"),
        (CLIENT + "/users/mappings/?offset={n}", "offset"),
        (CLIENT + "/resources/mappings/?offset={n}", "offset"),
        (CLIENT + "/venues/mappings/?offset={n}", "offset"),
    ],
)
def test_integers_in_queries_stay_within_64_bits(api: Api, path: str, field: str) -> None:
    headers = auth(PARTNER)
    query_error(api.client.get(path.format(n=INT64_MAX + 1), headers=headers), field)
    query_error(api.client.get(path.format(n=-(2**63) - 1), headers=headers), field)
    at_the_edge = api.client.get(path.format(n=INT64_MAX), headers=headers)
    assert at_the_edge.status_code in {200, 404}, at_the_edge.text  # nothing there, and no overflow


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        (BOOKINGS, {"resource": "{n}", **MORNING}, "resource"),
        (BOOKINGS, {"resource": 1, "participant_count": "{n}", **MORNING}, "participant_count"),
        (CLIENT + "/resources/register/", {"external_id": "r", "resource_id": "{n}"}, "resource_id"),
        (CLIENT + "/venues/register/", {"external_id": "v", "venue_id": "{n}"}, "venue_id"),
    ],
)
def test_integers_in_bodies_stay_within_64_bits(
    api: Api, path: str, body: dict[str, Any], field: str
) -> None:
    token = ANNA if path == BOOKINGS else PARTNER

    def post(n: int) -> Any:
        return api.client.post(
            path, json={k: n if v == "{n}" else v for k, v in body.items()}, headers=auth(token)
        )

    field_error(post(INT64_MAX + 1), field)
    field_error(post(-(2**63) - 1), field)
    at_the_edge = post(INT64_MAX)  # a valid integer that names nothing, or too many participants
    assert at_the_edge.status_code in {400, 404}, at_the_edge.text


def test_pages_are_1_to_1000_items_from_a_non_negative_offset(api: Api) -> None:
    for path in (
        BOOKINGS,
        f"{CLIENT}/users/mappings/",
        f"{CLIENT}/resources/mappings/",
        f"{CLIENT}/venues/mappings/",
    ):
        query_error(api.client.get(f"{path}?limit=1001", headers=auth(PARTNER)), "limit")
        query_error(api.client.get(f"{path}?limit=0", headers=auth(PARTNER)), "limit")
        query_error(api.client.get(f"{path}?offset=-1", headers=auth(PARTNER)), "offset")
        assert api.client.get(f"{path}?limit=1000&offset=0", headers=auth(PARTNER)).status_code == 200


# --------------------------------------------------------------------------- bodies

BODY_ENDPOINTS = [
    ("/api/v1/auth/register/", None),
    ("/api/v1/auth/token/", None),
    (BOOKINGS, ANNA),
    (f"{CLIENT}/users/register/", PARTNER),
    (f"{CLIENT}/resources/register/", PARTNER),
]


@pytest.mark.parametrize(("path", "token"), BODY_ENDPOINTS)
def test_a_body_that_is_not_utf8_is_400(edge: Api, path: str, token: str | None) -> None:
    response = edge.client.post(
        path, content=b'{"email": "\xff\xfe@example.com"}', headers={**auth(token), **JSON}
    )
    assert response.status_code == 400, response.text
    assert "UTF-8" in response.json()["detail"]


@pytest.mark.parametrize(("path", "token"), BODY_ENDPOINTS)
def test_deeply_nested_json_is_400_at_once(edge: Api, path: str, token: str | None) -> None:
    for body in (b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000):
        started = time.perf_counter()
        response = edge.client.post(path, content=body, headers={**auth(token), **JSON})
        assert response.status_code == 400, response.text
        assert "32" in response.json()["detail"]
        assert time.perf_counter() - started < 10  # generous: once it was a RecursionError (500)


def _nested(depth: int) -> dict[str, Any]:
    """A JSON object ``depth`` levels deep, of objects and arrays in turn (brackets in its strings)."""
    value: Any = {}
    for level in range(depth - 2):
        value = {"level": value} if level % 2 else [value, "]["]
    return {"top": value}


def test_json_nests_at_most_32_deep(edge: Api) -> None:
    def register(external_id: str, data_depth: int) -> Any:
        # the body object is the first level, external_data the second
        body = {
            "external_id": external_id,
            "resource_id": edge.resources["Court 1"],
            "external_data": _nested(data_depth),
        }
        return edge.client.post(f"{CLIENT}/resources/register/", json=body, headers=auth(PARTNER))

    assert register("deep-enough", 31).status_code == 201
    too_deep = register("too-deep", 32)
    assert too_deep.status_code == 400
    assert "32" in too_deep.json()["detail"]
