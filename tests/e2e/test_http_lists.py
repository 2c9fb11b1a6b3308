"""Lists (CONTRACT section 4.7): plain arrays of at most ``limit`` items, ``Link`` to the next page,
in a fixed order, and the database doing the limiting."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, text

from adapters.sqla import SqlaUnitOfWork, make_engine
from adapters.sqla import upgrade as migrate_up
from booking_core.accounts import User, UserMapping
from booking_core.booking import BookingStatus
from booking_core.ports import BookingQuery
from booking_core.usecases.auth import authenticate
from tests.support.bookings import USER_ID
from tests.support.bookings import make_booking as _booking
from tests.support.http_fixtures import (
    ANNA,
    BEN,
    BOOKINGS,
    NOW,
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
from tests.support.seed import demo_client, demo_resource, seed

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]

CLIENT = "/api/v1/client"
_LINK = re.compile(r'^<(?P<url>[^>]+)>; rel="next"$')


def _book_hours(api: Api, token: str, count: int, **extra: Any) -> list[str]:
    """``count`` one-hour bookings of Court 2 on consecutive mornings, in the order booked."""
    ids = []
    for n in range(count):
        day = f"2026-06-{3 + n // 8:02d}"
        hour = 8 + n % 8
        created = book(
            api,
            token,
            "Court 2",
            f"{day}T{hour:02d}:00:00+02:00",
            f"{day}T{hour + 1:02d}:00:00+02:00",
            **extra,
        )
        ids.append(created["id"])
    return ids


def _follow(api: Api, path: str, token: str) -> tuple[list[list[str]], list[str]]:
    """Every page of a list by its ``Link`` headers: the ids on each page, and the links followed."""
    pages: list[list[str]] = []
    links: list[str] = []
    url: str | None = path
    while url is not None:
        response = api.client.get(url, headers=auth(token))
        assert response.status_code == 200, response.text
        body = response.json()
        assert isinstance(body, list)
        pages.append([item["id"] for item in body])
        link = response.headers.get("link")
        url = None
        if link is not None:
            found = _LINK.match(link)
            assert found, link
            url = found["url"]
            links.append(url)
    return pages, links


def test_bookings_page_latest_start_first_with_a_link_to_the_next_page(api: Api) -> None:
    booked = _book_hours(api, ANNA, 5)
    pages, links = _follow(api, f"{BOOKINGS}?limit=2", ANNA)
    assert pages == [booked[4:2:-1], booked[2:0:-1], booked[:1]]
    assert links == [
        f"{api.services.settings.public_url}/api/v1/bookings/?limit=2&offset=2",
        f"{api.services.settings.public_url}/api/v1/bookings/?limit=2&offset=4",
    ]
    everything = api.client.get(BOOKINGS, headers=auth(ANNA))
    assert [b["id"] for b in everything.json()] == booked[::-1]
    assert "link" not in everything.headers  # default page of 100: nothing more
    assert api.client.get(f"{BOOKINGS}?offset=5", headers=auth(ANNA)).json() == []


def test_upcoming_bookings_page_soonest_first(api: Api) -> None:
    booked = _book_hours(api, ANNA, 4)
    cancelled = booked.pop(1)
    assert api.client.post(f"{BOOKINGS}{cancelled}/cancel/", headers=auth(ANNA)).status_code == 200
    pages, links = _follow(api, f"{BOOKINGS}upcoming/?limit=2", ANNA)
    assert pages == [booked[:2], booked[2:]]
    assert links == [f"{api.services.settings.public_url}/api/v1/bookings/upcoming/?limit=2&offset=2"]
    api.clock.advance(hours=24 * 30)
    assert api.client.get(f"{BOOKINGS}upcoming/", headers=auth(ANNA)).json() == []


def test_a_clients_bookings_page_keeps_the_user_header(api: Api) -> None:
    assert (
        api.client.post(
            f"{CLIENT}/users/register/",
            json={"external_id": "u1", "email": "anna@example.com"},
            headers=auth(PARTNER),
        ).status_code
        == 201
    )
    booked = _book_hours(api, PARTNER, 3, headers={"X-User-External-ID": "u1"})
    book(api, BEN, "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")  # not the client's
    headers = auth(PARTNER, X_User_External_ID="u1")
    first = api.client.get(f"{BOOKINGS}?limit=2", headers=headers)
    assert [b["id"] for b in first.json()] == booked[:0:-1]
    following = _LINK.match(first.headers["link"])
    assert following
    second = api.client.get(following["url"], headers=headers)
    assert [b["id"] for b in second.json()] == booked[:1]


def test_mapping_lists_page_by_creation_then_id_keeping_filters(api: Api) -> None:
    for n in range(3):
        api.clock.advance(seconds=1)
        body = {"external_id": f"v{n}", "venue_id": api.venues["center-court"]}
        assert (
            api.client.post(f"{CLIENT}/venues/register/", json=body, headers=auth(PARTNER)).status_code == 201
        )
        body = {"external_id": f"r{n}", "resource_id": api.resources["Court 1"]}
        assert (
            api.client.post(f"{CLIENT}/resources/register/", json=body, headers=auth(PARTNER)).status_code
            == 201
        )
        body = {"external_id": f"u{n}", "email": f"user{n}@example.com"}
        assert (
            api.client.post(f"{CLIENT}/users/register/", json=body, headers=auth(PARTNER)).status_code == 201
        )

    def external_ids(path: str) -> tuple[list[list[str]], list[str]]:
        pages, links = _follow(api, path, PARTNER)
        listed = api.client.get(path.split("?")[0], headers=auth(PARTNER)).json()
        by_id = {m["id"]: m["external_id"] for m in listed}
        return [[by_id[i] for i in page] for page in pages], links

    for kind, query in (
        ("venues", "approval_status=pending&"),
        ("resources", ""),
        ("users", "is_active=true&"),
    ):
        pages, links = external_ids(f"{CLIENT}/{kind}/mappings/?{query}limit=2")
        prefix = kind[0]
        assert pages == [[f"{prefix}0", f"{prefix}1"], [f"{prefix}2"]]
        assert links == [
            f"{api.services.settings.public_url}{CLIENT}/{kind}/mappings/?{query}limit=2&offset=2"
        ]


def test_a_page_holds_at_most_1000_items(api: Api) -> None:
    deps = api.services.deps
    client_id = authenticate(deps, PARTNER).client_id
    assert client_id is not None
    with deps.uow() as uow:
        user = uow.users.get_by_email("ben@example.com")
        assert user is not None
        for n in range(1001):
            uow.user_mappings.add(
                UserMapping(
                    id=f"00000000-0000-4000-8000-{n:012d}",
                    client_id=client_id,
                    external_id=f"ext-{n:04d}",
                    user_id=user.id,
                    created_at=NOW,
                )
            )
        uow.commit()
    path = f"{CLIENT}/users/mappings/"
    default = api.client.get(path, headers=auth(PARTNER))
    assert len(default.json()) == 100
    assert default.headers["link"].endswith('offset=100>; rel="next"')
    full = api.client.get(f"{path}?limit=1000", headers=auth(PARTNER))
    assert [m["external_id"] for m in full.json()] == [f"ext-{n:04d}" for n in range(1000)]
    assert "link" in full.headers
    last = api.client.get(f"{path}?limit=1000&offset=1000", headers=auth(PARTNER))
    assert [m["external_id"] for m in last.json()] == ["ext-1000"]
    assert "link" not in last.headers


# --------------------------------------------------------------------------- the database limits


def _rows_read(plan: dict[str, Any]) -> int:
    """Rows the scans of an EXPLAIN ANALYZE plan produced or threw away."""
    own = sum(int(plan.get(key, 0)) for key in ("Actual Rows", "Rows Removed by Filter"))
    own = own if "Scan" in plan["Node Type"] and "Bitmap Index" not in plan["Node Type"] else 0
    return own + sum(_rows_read(child) for child in plan.get("Plans", []))


@pytest.fixture
def pg_uow(postgres_url: str) -> Iterator[tuple[Any, Any]]:
    """A migrated PostgreSQL database with a resource, a client and two users: (engine, uow factory)."""
    migrate_up(postgres_url)
    engine = make_engine(postgres_url)
    seed(engine, demo_resource(), clients=(demo_client(),))
    uow = SqlaUnitOfWork.factory(engine)
    with uow() as work:
        for user_id, email in (
            (USER_ID, "anna@example.com"),
            ("00000000-0000-4000-8000-000000000002", "b@x.de"),
        ):
            work.users.add(User(id=user_id, email=email, first_name="A", last_name="B", created_at=NOW))
        work.commit()
    try:
        yield engine, uow
    finally:
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize(
    "query",
    [
        BookingQuery(user_id=USER_ID),
        BookingQuery(user_id=USER_ID, upcoming_at=NOW),
        BookingQuery(client_id=1, only_client_bookings=True),
        BookingQuery(client_id=1, upcoming_at=NOW, only_client_bookings=True),
    ],
)
def test_postgres_reads_a_booking_page_from_an_index(pg_uow: tuple[Any, Any], query: BookingQuery) -> None:
    """A page costs its own rows: the list's order is an index's, so the scan stops at the page's end."""
    engine, uow = pg_uow
    other = "00000000-0000-4000-8000-000000000002"
    with uow() as work:
        for n in range(400):  # half in the past, half ahead; half of them through the client
            start = NOW + timedelta(hours=2 * n - 400)
            work.bookings.add(
                _booking(
                    start,
                    start + timedelta(hours=1),
                    user_id=USER_ID if n % 4 else other,
                    client_id=1 if n % 2 else None,
                    status=BookingStatus.PAID,
                )
            )
        work.commit()
    with engine.begin() as connection:
        connection.execute(text("ANALYZE bookings"))
    statements: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, _ctx: Any, _many: bool) -> None:
        statements.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with uow() as work:
            page = work.bookings.list(query, limit=11, offset=20)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    assert len(page) == 11
    statement, parameters = next((s, p) for s, p in statements if "FROM bookings" in s)
    assert "LIMIT" in statement
    with engine.connect() as connection:
        plan = connection.exec_driver_sql(
            f"EXPLAIN (ANALYZE, FORMAT JSON) {statement}", parameters
        ).scalar_one()
    assert _rows_read(plan[0]["Plan"]) <= 2 * (11 + 20), plan
