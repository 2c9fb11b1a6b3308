"""Blocks (closed time) and the day sheet over HTTP on SQLite and PostgreSQL (CONTRACT 7.2, 7.3).

The clock stands at Monday 2026-06-01 08:00 in Berlin (``http_fixtures.NOW``); Court 1 has a catalog
closure on Friday 2026-06-05 08:00-12:00.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import event, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from adapters.catalog import validate_catalog, write_catalog
from adapters.passwords import Argon2Passwords
from adapters.sqla.models import (
    CLOSED_TIME_GUARD,
    BookingRow,
    CatalogRevisionRow,
    OutboxRow,
    UnavailablePeriodRow,
)
from tests.support.http_fixtures import (
    ADMIN,
    ANNA,
    BEN,
    CATALOG,
    DESK,
    HARBOUR_MANAGER,
    MANAGER,
    NOW,
    OPERATOR,
    PARTNER,
    Api,
    auth,
    book,
    pay,
)

FORBIDDEN = {"detail": "You do not have permission to perform this action."}
DAY = "2026-06-03"  # a Wednesday


def at(hour: int, minute: int = 0, day: str = DAY) -> str:
    return f"{day}T{hour:02d}:{minute:02d}:00+02:00"


def instant(hour: int, day: int = 3) -> datetime:
    return datetime(2026, 6, day, hour, tzinfo=ZoneInfo("Europe/Berlin"))


def blocks_path(api: Api, venue: str = "center-court") -> str:
    return f"{OPERATOR}/venues/{api.venues[venue]}/blocks/"


def place(
    api: Api, token: str = DESK, *, venue: str = "center-court", expect: int | None = 201, **body: Any
) -> Any:
    answer = api.client.post(blocks_path(api, venue), json=body, headers=auth(token))
    if expect is not None:
        assert answer.status_code == expect, answer.text
    return answer.json() if answer.content else None


def court_block(api: Api, start: str, end: str, court: str = "Court 1", **body: Any) -> dict[str, Any]:
    placed: dict[str, Any] = place(
        api, resource_ids=[api.resources[court]], start_datetime=start, end_datetime=end, **body
    )
    return placed


def rows(api: Api, sql: str, **params: Any) -> list[Any]:
    with api.services.engine.connect() as connection:
        return list(connection.execute(text(sql), params))


def raw(api: Api, court: str, day: str = DAY) -> dict[str, Any]:
    answer = api.client.get(
        f"/api/v1/resources/{api.resources[court]}/availability/", params={"start_date": day, "end_date": day}
    )
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def free(api: Api, court: str, day: str = DAY) -> list[tuple[str, str]]:
    answer = api.client.get(
        "/api/v1/resources/availability/",
        params={"resource_id": api.resources[court], "start_date": day, "end_date": day},
    )
    assert answer.status_code == 200, answer.text
    return [(r["start_time"], r["end_time"]) for r in answer.json()["available_ranges"]]


def test_a_block_over_a_live_booking_is_refused_with_the_booking_and_writes_nothing(api: Api) -> None:
    booking = book(api, ANNA, "Court 1", at(10), at(11))
    before = rows(api, "SELECT count(*) FROM unavailable_periods")[0][0]

    answer = place(
        api, expect=409, resource_ids=[api.resources["Court 1"]], start_datetime=at(9), end_datetime=at(12)
    )

    assert answer == {
        "error": "the block overlaps bookings",
        "conflicts": [
            {
                "booking_id": booking["id"],
                "reference_code": booking["reference_code"],
                "resource_id": api.resources["Court 1"],
                "start_datetime": at(10),
                "end_datetime": at(11),
                "status": "pending",
            }
        ],
    }
    assert rows(api, "SELECT count(*) FROM unavailable_periods")[0][0] == before
    assert rows(api, "SELECT count(*) FROM audit_log WHERE action = 'block.create'")[0][0] == 0
    # the whole venue by default: the booking is in the way as well
    assert (
        place(api, expect=409, start_datetime=at(10, 30), end_datetime=at(13))["conflicts"][0]["booking_id"]
        == (booking["id"])
    )


def test_a_lapsed_hold_or_a_cancelled_booking_is_not_in_the_way(api: Api) -> None:
    cancelled = book(api, ANNA, "Court 2", at(14), at(15))
    assert (
        api.client.post(f"/api/v1/bookings/{cancelled['id']}/cancel/", headers=auth(ANNA)).status_code == 200
    )
    book(api, BEN, "Court 2", at(16), at(17))
    api.clock.advance(minutes=30)  # the holds lapse after 15 minutes
    placed = court_block(api, at(13), at(18), "Court 2", reason="event")
    assert placed["cancelled_bookings"] == []


def test_a_block_shows_in_raw_availability_and_is_subtracted_at_once(api: Api) -> None:
    assert ("10:00:00", "12:00:00") not in free(api, "Court 2")  # warm the answers' cache
    assert free(api, "Court 2")[0][0] == "08:00:00"
    raw(api, "Court 2")

    placed = court_block(api, at(8), at(12), "Court 2", reason="maintenance", note="nets")

    (block,) = placed["blocks"]
    assert block == {
        "id": block["id"],
        "resource_id": api.resources["Court 2"],
        "start_datetime": at(8),
        "end_datetime": at(12),
        "reason": "maintenance",
        "note": "nets",
        "source": "staff",
        "created_by": block["created_by"],
        "created_at": "2026-06-01T06:00:00Z",
    }
    assert block["created_by"] is not None
    assert raw(api, "Court 2")["unavailable_periods"] == [
        {"start_datetime": at(8), "end_datetime": at(12), "reason": "maintenance"}
    ]
    assert free(api, "Court 2")[0][0] == "12:00:00"
    refused = book(api, ANNA, "Court 2", at(11), at(12, 30), expect=400)
    assert refused == {"non_field_errors": ["The requested time slot is not available."]}
    assert rows(api, "SELECT action, object_id FROM audit_log") == [("block.create", str(block["id"]))]


def test_the_storage_refuses_a_booking_in_closed_time_whatever_the_application_checked(api: Api) -> None:
    court_block(api, at(8), at(12), "Court 2")
    booking = book(api, ANNA, "Court 2", at(13), at(14))
    moved_into_block = update(BookingRow).where(BookingRow.id == booking["id"]).values(start_at=instant(9))
    with pytest.raises(IntegrityError, match=CLOSED_TIME_GUARD), api.services.engine.begin() as connection:
        connection.execute(moved_into_block)  # past every check of the application
    # a booking that a later catalog change put inside closed time can still be paid and cancelled
    inside = book(api, BEN, "Court 2", at(15), at(16))
    with api.services.engine.begin() as connection:
        connection.execute(
            insert(UnavailablePeriodRow).values(
                resource_id=api.resources["Court 2"], start_at=instant(14), end_at=instant(17), reason="other"
            )
        )
        connection.execute(update(CatalogRevisionRow).values(revision=CatalogRevisionRow.revision + 1))
    pay(api, BEN, inside["id"])
    cancelled = api.client.post(f"/api/v1/bookings/{inside['id']}/cancel/", headers=auth(BEN))
    assert (cancelled.status_code, cancelled.json()["status"]) == (200, "cancelled")


def test_a_paid_booking_in_the_way_of_a_weather_block_is_cancelled_refunded_and_told(api: Api) -> None:
    booking = book(api, ANNA, "Court 1", at(10), at(11))
    pay(api, ANNA, booking["id"])

    placed = court_block(api, at(9), at(12), reason="weather", note="storm", on_conflict="cancel")

    assert placed["cancelled_bookings"] == [
        {
            "id": booking["id"],
            "reference_code": booking["reference_code"],
            "refund_amount": "20.00",
            "currency": "EUR",
        }
    ]
    stored = rows(api, "SELECT status, cancellation_reason FROM bookings WHERE id = :id", id=booking["id"])
    assert stored == [("cancelled", "weather")]
    assert len(rows(api, "SELECT payment_id FROM refund_requests")) == 1  # all of it
    with api.services.engine.connect() as connection:
        payloads = list(connection.scalars(select(OutboxRow.payload)))
    assert {"template": "booking_cancelled_by_venue_user", "booking_id": booking["id"]}.items() <= next(
        p for p in payloads if p.get("template") == "booking_cancelled_by_venue_user"
    ).items()
    actions = sorted(r[0] for r in rows(api, "SELECT action FROM audit_log"))
    assert actions == ["block.create", "booking.cancel"]


def test_catalog_load_replaces_only_the_catalogs_periods(api: Api) -> None:
    friday = "2026-06-05"
    block_id = court_block(api, at(14, day=friday), at(16, day=friday))["blocks"][0]["id"]
    venue = dict(CATALOG["venues"][0])
    court_1 = dict(venue["resources"][0])
    court_1["unavailable_periods"] = [
        {
            "start_datetime": at(18, day=friday),
            "end_datetime": at(20, day=friday),
            "reason": "Court resurfacing",
        }
    ]
    venue["resources"] = [court_1, *venue["resources"][1:]]
    changed = {**CATALOG, "venues": [venue, *CATALOG["venues"][1:]]}
    write_catalog(api.services.engine, validate_catalog(changed), Argon2Passwords(), now=NOW)

    listed = api.client.get(blocks_path(api), params={"from": friday, "to": friday}, headers=auth(DESK))
    assert listed.status_code == 200, listed.text
    assert [(b["id"] == block_id, b["source"], b["reason"], b["note"]) for b in listed.json()] == [
        (True, "staff", "other", ""),
        (False, "catalog", "other", "Court resurfacing"),
    ]
    assert [p["start_datetime"] for p in raw(api, "Court 1", friday)["unavailable_periods"]] == [
        at(14, day=friday),
        at(18, day=friday),
    ]


def test_delete_frees_the_time_and_refuses_catalog_periods_and_other_venues(api: Api) -> None:
    block_id = court_block(api, at(8), at(12), "Court 2")["blocks"][0]["id"]
    assert (
        api.client.delete(f"{OPERATOR}/blocks/{block_id}/", headers=auth(HARBOUR_MANAGER)).status_code == 404
    )
    gone = api.client.delete(f"{OPERATOR}/blocks/{block_id}/", headers=auth(DESK))
    assert gone.status_code == 204, gone.text
    assert raw(api, "Court 2")["unavailable_periods"] == []
    assert api.client.delete(f"{OPERATOR}/blocks/{block_id}/", headers=auth(DESK)).status_code == 404
    (catalog,) = [
        b
        for b in api.client.get(blocks_path(api), params={"from": "2026-06-05"}, headers=auth(DESK)).json()
        if b["source"] == "catalog"
    ]
    refused = api.client.delete(f"{OPERATOR}/blocks/{catalog['id']}/", headers=auth(MANAGER))
    assert refused.status_code == 400
    assert "catalog" in refused.json()["error"]
    assert rows(api, "SELECT action FROM audit_log ORDER BY at, action") == [
        ("block.create",),
        ("block.delete",),
    ]


def test_staff_of_another_venue_read_404_and_customers_and_clients_403(api: Api) -> None:
    body = {"start_datetime": at(8), "end_datetime": at(9)}
    for token in (ANNA, PARTNER):
        assert (place(api, token, expect=403, **body)) == FORBIDDEN
        day = api.client.get(f"{OPERATOR}/venues/{api.venues['center-court']}/day/", headers=auth(token))
        assert (day.status_code, day.json()) == (403, FORBIDDEN)
    assert place(api, HARBOUR_MANAGER, expect=404, **body) == {"detail": "Not found."}
    for path in ("blocks/", "day/"):
        answer = api.client.get(
            f"{OPERATOR}/venues/{api.venues['center-court']}/{path}", headers=auth(HARBOUR_MANAGER)
        )
        assert answer.status_code == 404
    # a resource of another venue named in the body, and a venue that does not exist
    padel = api.resources["Padel A"]
    assert place(api, ADMIN, expect=404, resource_ids=[padel], **body) == {"detail": "Not found."}
    assert (
        api.client.post(f"{OPERATOR}/venues/999999/blocks/", json=body, headers=auth(ADMIN)).status_code
        == 404
    )
    assert api.client.get(f"{OPERATOR}/venues/999999/day/", headers=auth(ADMIN)).status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"start_datetime": at(10), "end_datetime": at(9)}, "end_datetime"),
        ({"start_datetime": at(10), "end_datetime": at(10)}, "end_datetime"),
        ({"start_datetime": "2026-06-03T10:00:00", "end_datetime": at(11)}, "start_datetime"),
        ({"start_datetime": at(10), "end_datetime": "9999-01-01T00:00:00Z"}, "end_datetime"),
        ({"start_datetime": at(10), "end_datetime": at(11), "reason": "rain"}, "reason"),
        ({"start_datetime": at(10), "end_datetime": at(11), "on_conflict": "ignore"}, "on_conflict"),
        ({"start_datetime": at(10), "end_datetime": at(11), "resource_ids": ["1"]}, "resource_ids"),
        ({"start_datetime": at(10), "end_datetime": at(11), "resource_ids": []}, "resource_ids"),
        ({"start_datetime": at(10), "end_datetime": at(11), "note": "x" * 1001}, "note"),
        ({"end_datetime": at(11)}, "start_datetime"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(api: Api, body: dict[str, Any], field: str) -> None:
    answer = place(api, expect=400, **body)
    (key,) = answer
    assert key.split("[")[0] == field, answer  # an item of a list is named with its index


def test_bad_query_parameters_are_400_naming_them(api: Api) -> None:
    venue = api.venues["center-court"]
    for path, params, name in [
        ("day/", {"date": "2026-13-01"}, "date"),
        ("day/", {"include_cancelled": "maybe"}, "include_cancelled"),
        ("blocks/", {"from": "tomorrow"}, "from"),
        ("blocks/", {"from": "2026-06-05", "to": "2026-06-04"}, "to"),
    ]:
        answer = api.client.get(f"{OPERATOR}/venues/{venue}/{path}", params=params, headers=auth(DESK))
        assert answer.status_code == 400, answer.text
        body = answer.json()
        assert name in (body.get("error") or next(iter(body))), body


def test_the_day_sheet_shows_windows_bookings_with_customers_blocks_and_free_time(api: Api) -> None:
    paid = book(api, ANNA, "Court 1", at(10), at(11, 30))
    pay(api, ANNA, paid["id"])
    pending = book(api, BEN, "Court 2", at(14), at(15))
    cancelled = book(api, BEN, "Court 2", at(16), at(17))
    api.client.post(f"/api/v1/bookings/{cancelled['id']}/cancel/", headers=auth(BEN))
    court_block(api, at(18), at(20), reason="event", note="club night")

    answer = api.client.get(
        f"{OPERATOR}/venues/{api.venues['center-court']}/day/", params={"date": DAY}, headers=auth(DESK)
    )

    assert answer.status_code == 200, answer.text
    sheet = answer.json()
    assert (sheet["venue_id"], sheet["date"], sheet["timezone"]) == (
        api.venues["center-court"],
        DAY,
        "Europe/Berlin",
    )
    court_1, court_2 = sheet["resources"]  # the inactive Old Court is left out
    assert (court_1["name"], court_2["name"]) == ("Court 1", "Court 2")
    assert court_1["windows"] == [
        {"start_time": "08:00:00", "end_time": "17:00:00", "label": "", "price_per_unit": "20.00"},
        {"start_time": "17:00:00", "end_time": "22:00:00", "label": "Peak", "price_per_unit": "30.00"},
    ]
    (shown,) = court_1["bookings"]
    assert (shown["id"], shown["status"], shown["source"], shown["payment_method"]) == (
        paid["id"],
        "paid",
        "online",
        "online",
    )
    assert shown["customer"]["email"] == "anna@example.com"
    assert [(b["reason"], b["note"]) for b in court_1["blocks"]] == [("event", "club night")]
    # the gap rule (60 minutes) keeps 08:00-09:00 offerable and 09:00-10:00 too; the block takes 18-20
    assert court_1["free"] == [
        {"start_time": "08:00:00", "end_time": "10:00:00"},
        {"start_time": "11:30:00", "end_time": "17:00:00"},
        {"start_time": "17:00:00", "end_time": "18:00:00"},
        {"start_time": "20:00:00", "end_time": "22:00:00"},
    ]
    assert [b["id"] for b in court_2["bookings"]] == [pending["id"]]
    assert court_2["bookings"][0]["customer"]["email"] == "ben@example.com"
    with_cancelled = api.client.get(
        f"{OPERATOR}/venues/{api.venues['center-court']}/day/",
        params={"date": DAY, "include_cancelled": "true"},
        headers=auth(MANAGER),
    ).json()
    assert [b["id"] for b in with_cancelled["resources"][1]["bookings"]] == [pending["id"], cancelled["id"]]


def test_the_day_sheet_defaults_to_today_and_offers_short_notice_time(api: Api) -> None:
    answer = api.client.get(f"{OPERATOR}/venues/{api.venues['harbour-padel']}/day/", headers=auth(ADMIN))
    assert answer.status_code == 200, answer.text
    sheet = answer.json()
    assert sheet["date"] == "2026-06-01"  # 02:00 in New York
    (padel,) = sheet["resources"]
    assert padel["free"][0]["start_time"] == "08:00:00"


def test_the_block_list_is_paged(api: Api) -> None:
    for hour in (8, 10, 12):
        court_block(api, at(hour), at(hour + 1), "Court 2")
    first = api.client.get(blocks_path(api), params={"from": DAY, "to": DAY, "limit": 2}, headers=auth(DESK))
    assert [b["start_datetime"] for b in first.json()] == [at(8), at(10)]
    following = first.headers["Link"].split(">")[0].lstrip("<")
    assert "offset=2" in following
    rest = api.client.get(
        blocks_path(api), params={"from": DAY, "to": DAY, "limit": 2, "offset": 2}, headers=auth(DESK)
    )
    assert ([b["start_datetime"] for b in rest.json()], rest.headers.get("Link")) == ([at(12)], None)


def test_ids_beyond_any_row_are_404_not_errors(api: Api) -> None:
    body = {"start_datetime": at(8), "end_datetime": at(9)}
    huge = 2**63 - 1
    assert place(api, ADMIN, expect=404, resource_ids=[huge], **body) == {"detail": "Not found."}
    for path in (f"venues/{huge}/blocks/", f"venues/{2**63}/blocks/", "venues/+1/blocks/"):
        assert api.client.post(f"{OPERATOR}/{path}", json=body, headers=auth(ADMIN)).status_code == 404
    for block in (huge, 2**31, 2**64):
        assert api.client.delete(f"{OPERATOR}/blocks/{block}/", headers=auth(ADMIN)).status_code == 404
    assert api.client.get(f"{OPERATOR}/venues/{huge}/day/", headers=auth(ADMIN)).status_code == 404


def test_the_day_sheet_reads_once_per_kind_however_many_bookings(api: Api) -> None:
    def statements_of_a_day_sheet() -> int:
        sent: list[str] = []

        def count(*args: Any) -> None:
            sent.append(args[2])

        event.listen(api.services.engine, "before_cursor_execute", count)
        try:
            answer = api.client.get(
                f"{OPERATOR}/venues/{api.venues['center-court']}/day/",
                params={"date": DAY},
                headers=auth(DESK),
            )
        finally:
            event.remove(api.services.engine, "before_cursor_execute", count)
        assert answer.status_code == 200, answer.text
        return len(sent)

    book(api, ANNA, "Court 1", at(8), at(9))
    book(api, BEN, "Court 2", at(8), at(9))
    statements_of_a_day_sheet()  # the catalog cached, as in a running server
    few = statements_of_a_day_sheet()
    assert few >= 3  # venue, resources, bookings, their users and payments
    for hour in (11, 14):
        book(api, ANNA, "Court 1", at(hour), at(hour + 1))
        book(api, BEN, "Court 2", at(hour), at(hour + 1))
    assert statements_of_a_day_sheet() == few
