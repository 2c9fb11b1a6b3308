"""Input taken only as written (CONTRACT 4.8): integers of paths and queries in ASCII digits alone,
JSON fields of exactly their type, no control characters, and links built from BOOKING_PUBLIC_URL.

Once ``/resources/+1/``, ``/resources/01/`` and a 1 in Arabic-Indic digits answered resource 1,
``limit=1e3`` was a page of 1000, ``"participant_count": 2.0`` and ``"resource": "5"`` were booked,
a name with ``\\x01`` was stored, and the ``Host`` header went into the ``Link`` of the next page. All
of it is refused before storage, so SQLite is enough here; ids beyond 64 bits are tested on both databases
in ``test_http_limits``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from entrypoints.bootstrap import Services
from tests.e2e.test_http_limits import field_error, query_error
from tests.support.http_fixtures import (
    ANNA,
    BOOKINGS,
    PARTNER,
    Api,
    auth,
    book,
    loaded_sqlite_url,
    sqlite_template,
    start,
)

__all__ = ["loaded_sqlite_url", "sqlite_template"]

CLIENT = "/api/v1/client"
RESOURCES = "/api/v1/resources/"
MORNING = {"start_datetime": "2026-06-03T10:00:00+02:00", "end_datetime": "2026-06-03T11:00:00+02:00"}
DAY = "start_date=2026-06-02&end_date=2026-06-02"
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


@pytest.fixture
def edge(loaded_sqlite_url: str) -> Iterator[Api]:
    yield from start(loaded_sqlite_url)


def _misspelt(number: int) -> list[str]:
    """``number`` written every way but the one allowed (as they appear in a URL)."""
    return [
        f"+{number}",
        f"0{number}",
        f"00{number}",
        str(number).translate(ARABIC_INDIC),
        f"%20{number}",
        f"{number}%20",
        f"{number}.0",
        f"{number}e0",
        f"{number}E0",
        f"{number}_0",
        f"-{number}",
        "-0",
        "\uff11",  # a full-width digit one
    ]


# --------------------------------------------------------------------------- paths


def test_an_id_in_a_path_is_ascii_digits_only(edge: Api) -> None:
    court = edge.resources["Court 1"]
    assert edge.client.get(f"{RESOURCES}{court}/").status_code == 200
    assert edge.client.get(f"{RESOURCES}{court}/availability/?{DAY}").status_code == 200
    for written in _misspelt(court):
        for path in (f"{RESOURCES}{written}/", f"{RESOURCES}{written}/availability/?{DAY}"):
            response = edge.client.get(path)
            assert response.status_code == 404, (path, response.text)
            assert response.json() == {"detail": "Not found."}


def test_the_availability_of_all_resources_is_still_a_path_of_its_own(edge: Api) -> None:
    court = edge.resources["Court 1"]
    response = edge.client.get(f"{RESOURCES}availability/?resource_id={court}&{DAY}")
    assert response.status_code == 200, response.text
    assert response.json()["resource_id"] == court


# --------------------------------------------------------------------------- queries

QUERY_INTEGERS = [
    (RESOURCES + "?venue={n}", "venue", 1),
    (RESOURCES + "?activity={n}", "activity", 1),
    (RESOURCES + "?limit={n}", "limit", 5),
    (RESOURCES + "?offset={n}", "offset", 1),
    (RESOURCES + "availability/?resource_id={n}&" + DAY, "resource_id", 1),
    (BOOKINGS + "?limit={n}", "limit", 5),
    (BOOKINGS + "?offset={n}", "offset", 1),
    (BOOKINGS + "upcoming/?limit={n}", "limit", 5),
    (BOOKINGS + "upcoming/?offset={n}", "offset", 1),
    (CLIENT + "/users/mappings/?limit={n}", "limit", 5),
    (CLIENT + "/resources/mappings/?offset={n}", "offset", 1),
    (CLIENT + "/venues/mappings/?limit={n}", "limit", 5),
    (CLIENT + "/commissions/?month=2026-06&offset={n}", "offset", 1),
]


@pytest.mark.parametrize(("path", "parameter", "number"), QUERY_INTEGERS)
def test_an_integer_in_a_query_is_ascii_digits_only(
    edge: Api, path: str, parameter: str, number: int
) -> None:
    headers = auth(PARTNER)
    written_right = edge.client.get(path.format(n=number), headers=headers)
    assert written_right.status_code == 200, written_right.text
    for written in [*_misspelt(number), "1e3", "", "0x10"]:
        response = edge.client.get(path.format(n=written), headers=headers)
        query_error(response, parameter)


def test_a_page_of_1e3_is_not_a_page_of_1000(edge: Api) -> None:
    assert "limit" in query_error(edge.client.get(f"{RESOURCES}?limit=1e3"), "limit")


# --------------------------------------------------------------------------- JSON bodies


def _booking(api: Api, **fields: Any) -> dict[str, Any]:
    return {"resource": api.resources["Court 1"], **MORNING, **fields}


@pytest.mark.parametrize("value", [2.0, "2", True, None, [2], {"n": 2}])
def test_an_integer_field_takes_a_json_integer_only(edge: Api, value: object) -> None:
    for field in ("resource", "participant_count"):
        if field == "resource" and value is None:
            continue  # null: no resource given, which is a rule of its own
        response = edge.client.post(BOOKINGS, json=_booking(edge, **{field: value}), headers=auth(ANNA))
        field_error(response, field)
    assert edge.client.get(BOOKINGS, headers=auth(ANNA)).json() == []


def test_an_id_written_as_a_float_or_a_string_books_nothing(edge: Api) -> None:
    court = edge.resources["Court 1"]
    for value in (float(court), str(court)):
        field_error(
            edge.client.post(BOOKINGS, json=_booking(edge, resource=value), headers=auth(ANNA)), "resource"
        )
    assert edge.client.get(BOOKINGS, headers=auth(ANNA)).json() == []
    book(edge, ANNA, "Court 1", *MORNING.values())  # the integer itself is fine


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/resources/register/", {"external_id": "r1", "resource_id": "{id}"}, "resource_id"),
        ("/resources/register/", {"external_id": "r1", "resource_id": "{float}"}, "resource_id"),
        ("/resources/register/", {"external_id": "r1", "resource_id": True}, "resource_id"),
        ("/venues/register/", {"external_id": "v1", "venue_id": "{id}"}, "venue_id"),
        ("/venues/register/", {"external_id": "v1", "venue_id": "{float}"}, "venue_id"),
        ("/resources/register/", {"external_id": 7, "resource_id": "{int}"}, "external_id"),
        ("/venues/register/", {"external_id": True, "venue_id": "{int}"}, "external_id"),
        ("/users/register/", {"external_id": 7, "email": "eva@example.com"}, "external_id"),
        ("/users/register/", {"external_id": "u", "email": "eva@example.com", "first_name": 1}, "first_name"),
        (
            "/users/register/",
            {"external_id": "u", "email": "eva@example.com", "last_name": False},
            "last_name",
        ),
    ],
)
def test_client_bodies_take_exactly_their_types(
    edge: Api, path: str, body: dict[str, Any], field: str
) -> None:
    court = edge.resources["Court 1"]
    filled = {
        key: {"{id}": str(court), "{float}": float(court), "{int}": court}.get(value, value)
        if isinstance(value, str)
        else value
        for key, value in body.items()
    }
    field_error(edge.client.post(f"{CLIENT}{path}", json=filled, headers=auth(PARTNER)), field)
    kind = path.split("/")[1]
    assert edge.client.get(f"{CLIENT}/{kind}/mappings/", headers=auth(PARTNER)).json() == []


def test_string_fields_of_a_booking_take_strings_only(edge: Api) -> None:
    for field, value in (("notes", 5), ("start_datetime", 1780000000), ("resource_external_id", 1)):
        body = _booking(edge, **{field: value})
        if field == "resource_external_id":
            body.pop("resource")
        field_error(edge.client.post(BOOKINGS, json=body, headers=auth(ANNA)), field)
    booking = book(edge, ANNA, "Court 1", *MORNING.values())
    cancel = f"{BOOKINGS}{booking['id']}/cancel/"
    field_error(edge.client.post(cancel, json={"reason": 1}, headers=auth(ANNA)), "reason")
    field_error(edge.client.post(cancel, json={"notes": ["n"]}, headers=auth(ANNA)), "notes")


# --------------------------------------------------------------------------- control characters

ONE_LINE_CONTROLS = ["\x01", "\x1b", "\x7f", "\x85", "\t", "\n", "\r", "\u009f"]


@pytest.mark.parametrize("control", ONE_LINE_CONTROLS)
def test_one_line_body_strings_refuse_control_characters(edge: Api, control: str) -> None:
    cases = [
        (
            f"{CLIENT}/users/register/",
            {"external_id": f"u{control}1", "email": "eva@example.com"},
            "external_id",
        ),
        (
            f"{CLIENT}/users/register/",
            {"external_id": "u1", "email": "eva@example.com", "first_name": f"Eva{control}"},
            "first_name",
        ),
        (
            f"{CLIENT}/users/register/",
            {"external_id": "u1", "email": "eva@example.com", "last_name": f"Partner{control} GmbH"},
            "last_name",
        ),
        (
            f"{CLIENT}/resources/register/",
            {"external_id": f"r{control}", "resource_id": edge.resources["Court 1"]},
            "external_id",
        ),
        (
            f"{CLIENT}/venues/register/",
            {"external_id": f"{control}v", "venue_id": edge.venues["center-court"]},
            "external_id",
        ),
    ]
    for path, body, field in cases:
        assert field_error(edge.client.post(path, json=body, headers=auth(PARTNER)), field) == (
            "Control characters are not allowed."
        )
    booking = {"resource_external_id": f"court{control}1", **MORNING}
    field_error(
        edge.client.post(BOOKINGS, json=booking, headers=auth(PARTNER, X_User_ID="u")), "resource_external_id"
    )
    assert edge.client.get(f"{CLIENT}/users/mappings/", headers=auth(PARTNER)).json() == []


@pytest.mark.parametrize("control", ["\x01", "\x07", "\t", "\x0b", "\x7f", "\x85"])
def test_notes_refuse_control_characters_other_than_line_breaks(edge: Api, control: str) -> None:
    refused = edge.client.post(
        BOOKINGS, json=_booking(edge, notes=f"bring{control}balls"), headers=auth(ANNA)
    )
    assert field_error(refused, "notes") == "Control characters are not allowed."
    booking = book(edge, ANNA, "Court 1", *MORNING.values())
    cancel = f"{BOOKINGS}{booking['id']}/cancel/"
    field_error(edge.client.post(cancel, json={"notes": f"rain{control}"}, headers=auth(ANNA)), "notes")


def test_notes_may_break_lines(edge: Api) -> None:
    notes = "bring balls\nand water\r\nthanks\n"
    created = edge.client.post(BOOKINGS, json=_booking(edge, notes=notes), headers=auth(ANNA))
    assert created.status_code == 201, created.text
    assert created.json()["notes"] == notes


def test_one_line_strings_without_control_characters_are_kept(edge: Api) -> None:
    body = {
        "external_id": "Zürich 東京 ü",
        "email": "eva@example.com",
        "first_name": "Ève-Marie",
        "last_name": "O'Brien",
    }
    response = edge.client.post(f"{CLIENT}/users/register/", json=body, headers=auth(PARTNER))
    assert response.status_code == 201, response.text
    assert response.json()["external_id"] == "Zürich 東京 ü"


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        (CLIENT + "/users/lookup/?external_id=u%01", "external_id"),
        (CLIENT + "/resources/lookup/?external_id=r%0A", "external_id"),
        (CLIENT + "/venues/lookup/?external_id=%C2%85v", "external_id"),
        (CLIENT + "/venues/resources/?venue_external_id=v%1B", "venue_external_id"),
        (CLIENT + "/venues/mappings/?approval_status=pending%0D", "approval_status"),
        (RESOURCES + "?venue_slug=center-court%09", "venue_slug"),
        (RESOURCES + "availability/?resource_external_id=r%7F&" + DAY, "resource_external_id"),
    ],
)
def test_query_strings_refuse_control_characters(edge: Api, path: str, parameter: str) -> None:
    message = query_error(edge.client.get(path, headers=auth(PARTNER)), parameter)
    assert message == f"{parameter}: Control characters are not allowed."


@pytest.mark.parametrize("header", ["X-User-External-ID", "X-User-ID"])
def test_user_headers_refuse_control_characters(edge: Api, header: str) -> None:
    response = edge.client.get(BOOKINGS, headers={**auth(PARTNER), header: "u\t1"})
    assert field_error(response, header) == "Control characters are not allowed."


# --------------------------------------------------------------------------- links


def _next_link(api: Api, path: str, token: str | None = None, **headers: str) -> str:
    response = api.client.get(path, headers={**auth(token), **headers})
    assert response.status_code == 200, response.text
    link: str = response.headers["link"]
    return link


def test_the_next_page_link_ignores_the_host_header(edge: Api) -> None:
    book(edge, ANNA, "Court 1", *MORNING.values())
    book(edge, ANNA, "Court 1", "2026-06-04T10:00:00+02:00", "2026-06-04T11:00:00+02:00")
    expected = '<http://127.0.0.1:8000/api/v1/resources/?limit=1&offset=1>; rel="next"'
    assert _next_link(edge, f"{RESOURCES}?limit=1", Host="evil.example") == expected
    assert _next_link(edge, f"{BOOKINGS}?limit=1", ANNA, Host="evil.example:666") == (
        '<http://127.0.0.1:8000/api/v1/bookings/?limit=1&offset=1>; rel="next"'
    )


def test_the_next_page_link_starts_with_the_public_url(loaded_sqlite_url: str) -> None:
    def public(services: Services) -> Services:
        settings = replace(services.settings, public_url="https://booking.example.com")
        return replace(services, settings=settings)

    for api in start(loaded_sqlite_url, customize=public):
        link = _next_link(api, f"{RESOURCES}?limit=1&venue_slug=center-court", Host="evil.example")
        following = "https://booking.example.com/api/v1/resources/?limit=1&venue_slug=center-court&offset=1"
        assert link == f'<{following}>; rel="next"'
