"""Holding courts without paying (issue 23, finding 8), over HTTP on both databases.

A user may hold ``BOOKING_MAX_UNPAID_PER_USER`` (5) unpaid bookings at once, directly and through
clients together, also when the requests race; and unpaid holds do not move the demand level, so
holding time cannot move prices.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

import pytest

from booking_core.accounts import Actor
from booking_core.errors import ValidationFailed
from booking_core.usecases.auth import authenticate
from booking_core.usecases.bookings import NewBooking, create_booking
from tests.support.http_fixtures import (
    ANNA,
    BEN,
    BOOKINGS,
    PARTNER,
    Api,
    api,
    auth,
    book,
    clone_postgres,
    database_url,
    pay,
    postgres_template,
    sqlite_template,
)

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]

TOO_MANY = "Too many unpaid bookings: pay or cancel one first."
RESOURCES = "/api/v1/resources/"


def hour(n: int, day: int = 2) -> tuple[str, str]:
    """The ``n``-th hour from 08:00 on June ``day`` 2026, Berlin time (Court 2 opens 08:00-22:00)."""
    start = datetime.fromisoformat(f"2026-06-{day:02d}T08:00:00+02:00") + timedelta(hours=n)
    return start.isoformat(), (start + timedelta(hours=1)).isoformat()


def hold(api: Api, token: str, n: int, **kw: Any) -> dict[str, Any]:
    return book(api, token, "Court 2", *hour(n), **kw)


def cancel(api: Api, token: str, booking_id: str) -> None:
    assert api.client.post(f"{BOOKINGS}{booking_id}/cancel/", headers=auth(token)).status_code == 200


def test_a_user_holding_five_unpaid_bookings_is_refused_until_one_is_paid_cancelled_or_lapses(
    api: Api,
) -> None:
    held = [hold(api, ANNA, n) for n in range(5)]
    assert hold(api, ANNA, 5, expect=400) == {"non_field_errors": [TOO_MANY]}
    hold(api, BEN, 5)  # a limit per user: Ben holds nothing yet
    cancel(api, ANNA, held[0]["id"])
    sixth = hold(api, ANNA, 6)
    assert hold(api, ANNA, 7, expect=400) == {"non_field_errors": [TOO_MANY]}
    pay(api, ANNA, sixth["id"])
    hold(api, ANNA, 7)
    assert hold(api, ANNA, 8, expect=400) == {"non_field_errors": [TOO_MANY]}
    api.clock.advance(minutes=16)  # every hold lapses unpaid
    hold(api, ANNA, 8)


def test_bookings_through_a_client_count_with_the_users_own_and_are_refused_in_client_mode(
    api: Api,
) -> None:
    mapped = api.client.post(
        "/api/v1/client/users/register/",
        json={"external_id": "anna-at-partner", "email": "anna@example.com"},
        headers=auth(PARTNER),
    )
    assert mapped.status_code == 201, mapped.text
    through_client = {"X-User-External-ID": "anna-at-partner"}
    for n in range(3):
        hold(api, ANNA, n)
    for n in range(3, 5):
        hold(api, PARTNER, n, headers=through_client)
    assert hold(api, PARTNER, 5, headers=through_client, expect=400) == {"error": TOO_MANY}
    assert hold(api, ANNA, 5, expect=400) == {"non_field_errors": [TOO_MANY]}


def test_requests_racing_at_the_limit_never_hold_more_than_it(api: Api) -> None:
    for n in range(3):
        hold(api, ANNA, n)
    racing = [
        NewBooking(resource_id=api.resources["Court 2"], start=s, end=e) for s, e in map(_span, range(3, 9))
    ]
    anna = Actor(user_id=authenticate(api.services.deps, ANNA).user_id)
    start = threading.Barrier(len(racing))

    def create(cmd: NewBooking) -> str:
        start.wait()
        try:
            create_booking(api.services.deps, anna, cmd)
        except ValidationFailed as refused:
            return "refused" if refused.message == TOO_MANY else refused.message
        return "created"

    with ThreadPoolExecutor(max_workers=len(racing)) as pool:
        fates = sorted(pool.map(create, racing))
    assert fates == ["created"] * 2 + ["refused"] * 4
    mine = api.client.get(BOOKINGS, headers=auth(ANNA)).json()
    assert [b["status"] for b in mine] == ["pending"] * 5


def _span(n: int) -> tuple[datetime, datetime]:
    start, end = hour(n)
    return datetime.fromisoformat(start), datetime.fromisoformat(end)


def _demand_and_price(api: Api) -> tuple[float, str]:
    court = api.resources["Court 2"]
    detail = api.client.get(f"{RESOURCES}{court}/").json()
    query = f"resource_id={court}&start_date=2026-06-04&end_date=2026-06-04"
    ranges = api.client.get(f"{RESOURCES}availability/?{query}").json()["available_ranges"]
    return detail["current_demand_level"], ranges[0]["price_per_hour"]


def test_unpaid_holds_do_not_move_the_demand_level_or_prices_and_paid_bookings_do(api: Api) -> None:
    idle = _demand_and_price(api)
    assert idle == (0.0, "15.00")  # no demand: 0.75 of the 20.00 base
    held = [book(api, ANNA, "Court 2", hour(2 * n)[0], hour(2 * n + 1)[1]) for n in range(5)]  # 10 hours
    assert _demand_and_price(api) == idle
    pay(api, ANNA, held[0]["id"])  # 2 of the week's 98 open hours are taken now
    demand, price = _demand_and_price(api)
    assert demand == pytest.approx(2 / 98, abs=1e-4)
    assert price == "15.31"  # 20.00 * (0.75 + 0.75 * 0.0204), rounded half-up
