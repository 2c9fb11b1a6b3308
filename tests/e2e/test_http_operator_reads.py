"""The venue report (CONTRACT 7.7) and the staff's bookings search (7.4's GET) over HTTP, on SQLite and
PostgreSQL, on a week of hand-made bookings whose figures are worked out below by hand."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.payments import Payment, PaymentStatus
from entrypoints.http.bookings_csv import COLUMNS
from tests.support.http_fixtures import (
    ADMIN,
    ANNA,
    BEN,
    DESK,
    HARBOUR_MANAGER,
    MANAGER,
    NOW,
    OPERATOR,
    PARTNER,
    Api,
    auth,
)

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
FORBIDDEN = {"detail": "You do not have permission to perform this action."}
NOT_FOUND = {"detail": "Not found."}
WEEK = "from=2026-06-01&to=2026-06-07"  # Monday to Sunday


def _at(day: int, hour: int, minute: int = 0, tz: ZoneInfo = BERLIN) -> datetime:
    return datetime(2026, 6, day, hour, minute, tzinfo=tz)


class _Seed:
    """Bookings stored straight through the unit of work, numbered in the order made."""

    def __init__(self, api: Api) -> None:
        self.api = api
        with api.services.deps.uow() as uow:
            anna, ben = uow.users.get_by_email("anna@example.com"), uow.users.get_by_email("ben@example.com")
        assert anna is not None
        assert ben is not None
        self.users = {"anna": anna.id, "ben": ben.id}
        self.count = 0

    def book(
        self,
        resource: str,
        start: datetime,
        minutes: int,
        status: BookingStatus,
        *,
        who: str = "anna",
        paid: str | None = None,
        refunded: str | None = None,
        reason: CancellationReason | None = None,
    ) -> str:
        self.count += 1
        n = self.count
        price = Decimal(paid or "20.00")
        booking = Booking(
            id=f"00000000-0000-4000-a000-{n:012d}",
            reference_code=f"RPT{n:03d}XY",
            resource_id=self.api.resources[resource],
            user_id=self.users[who],
            start=start,
            end=start + timedelta(minutes=minutes),
            price_per_unit=Decimal("20.00"),
            total_price=price,
            currency="USD" if resource == "Padel A" else "EUR",
            status=status,
            cancellation_reason=reason,
            hold_expires_at=NOW + timedelta(minutes=15) if status is BookingStatus.PENDING else None,
            created_at=NOW,
            updated_at=NOW,
        )
        with self.api.services.deps.uow() as uow:
            uow.bookings.add(booking)
            if paid is not None:
                uow.payments.add(
                    Payment(
                        id=f"00000000-0000-4000-b000-{n:012d}",
                        booking_id=booking.id,
                        provider="sandbox",
                        payment_intent_id=f"pi_report_{n}",
                        client_secret="secret",
                        amount=price,
                        currency=booking.currency,
                        status=PaymentStatus.REFUNDED if refunded else PaymentStatus.SUCCEEDED,
                        refunded_amount=Decimal(refunded or "0.00"),
                        paid_at=NOW,
                        created_at=NOW,
                    )
                )
            uow.commit()
        return booking.reference_code


@pytest.fixture
def week(api: Api) -> Api:
    """The week of 2026-06-01 at center-court (and one booking at harbour-padel), as the report counts:

    Court 1 (open 14 h a day, 4 h closed on Friday morning: 98 h - 4 h = 5,640 minutes):
      RPT001 Mon 10-12 paid 40.00, RPT002 Tue 10-11 confirmed, RPT003 Wed 18:00-19:30 completed 45.00,
      RPT004 Thu 09-10 no-show (Ben): 4 bookings, 330 minutes;
      RPT005 Mon 14-15 cancelled, RPT006 Tue 15-16 refunded 20.00 of 20.00 (Ben): 2 cancellations;
      RPT007 Wed 08-09 a lapsed hold, RPT008 Fri 14-15 pending: not counted;
      RPT009 the next Monday: outside the week.
    Court 2 (5,880 minutes): RPT010 Mon 10-11 paid 20.00.
    Padel A (harbour-padel, New York): RPT011 Mon 10-11 paid.
    """
    seed = _Seed(api)
    seed.book("Court 1", _at(1, 10), 120, BookingStatus.PAID, paid="40.00")
    seed.book("Court 1", _at(2, 10), 60, BookingStatus.CONFIRMED)
    seed.book("Court 1", _at(3, 18), 90, BookingStatus.COMPLETED, paid="45.00")
    seed.book("Court 1", _at(4, 9), 60, BookingStatus.NO_SHOW, who="ben")
    seed.book("Court 1", _at(1, 14), 60, BookingStatus.CANCELLED, reason=CancellationReason.USER_REQUEST)
    seed.book(
        "Court 1",
        _at(2, 15),
        60,
        BookingStatus.REFUNDED,
        who="ben",
        paid="20.00",
        refunded="20.00",
        reason=CancellationReason.USER_REQUEST,
    )
    seed.book("Court 1", _at(3, 8), 60, BookingStatus.CANCELLED, reason=CancellationReason.EXPIRED)
    seed.book("Court 1", _at(5, 14), 60, BookingStatus.PENDING)
    seed.book("Court 1", _at(8, 10), 60, BookingStatus.CONFIRMED)
    seed.book("Court 2", _at(1, 10), 60, BookingStatus.PAID, paid="20.00")
    seed.book("Padel A", _at(1, 10, tz=NEW_YORK), 60, BookingStatus.PAID, paid="32.00")
    return api


def _get(api: Api, path: str, token: str) -> Any:
    return api.client.get(f"{OPERATOR}{path}", headers=auth(token))


def _report(api: Api, token: str = MANAGER, query: str = WEEK) -> Any:
    return _get(api, f"/venues/{api.venues['center-court']}/report/?{query}", token)


# --------------------------------------------------------------------------- the report


def test_report_of_a_week_per_resource(week: Api) -> None:
    answer = _report(week)

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["from"], body["to"], body["currency"]) == ("2026-06-01", "2026-06-07", "EUR")
    court_1, court_2 = body["resources"]  # the inactive Old Court has no bookings: not listed
    assert court_1 == {
        "id": week.resources["Court 1"],
        "name": "Court 1",
        "open_minutes": 5640,
        "booked_minutes": 330,
        "occupancy": "0.06",  # 330 / 5640 = 0.0585
        "bookings": 4,
        "cancellations": 2,
        "no_shows": 1,
        "revenue_paid": "105.00",
        "revenue_refunded": "20.00",
    }
    assert court_2 == {
        "id": week.resources["Court 2"],
        "name": "Court 2",
        "open_minutes": 5880,
        "booked_minutes": 60,
        "occupancy": "0.01",
        "bookings": 1,
        "cancellations": 0,
        "no_shows": 0,
        "revenue_paid": "20.00",
        "revenue_refunded": "0.00",
    }


def test_report_by_local_weekday_and_hour(week: Api) -> None:
    by_hour = {(h["weekday"], h["hour"]): h["occupancy"] for h in _report(week).json()["by_hour"]}

    # two courts open 08-22 every day: 14 hours on each of 7 weekdays, each hour 120 open minutes
    assert len(by_hour) == 7 * 14
    assert min(by_hour) == (1, 8)
    assert max(by_hour) == (7, 21)
    assert by_hour[1, 10] == "1.00"  # Court 1 and Court 2 both booked
    assert by_hour[1, 11] == "0.50"
    assert by_hour[3, 18] == "0.50"
    assert by_hour[3, 19] == "0.25"  # half an hour of one court
    assert by_hour[4, 9] == "0.50"  # a no-show still occupies its time
    assert by_hour[1, 14] == by_hour[3, 8] == by_hour[5, 14] == "0.00"  # cancelled, lapsed, pending
    assert by_hour[5, 8] == "0.00"  # Court 1 closed: open time of Court 2 only


def test_report_counts_only_its_dates(week: Api) -> None:
    body = _report(week, query="from=2026-06-08&to=2026-06-08").json()

    assert [(r["name"], r["bookings"], r["booked_minutes"]) for r in body["resources"]] == [
        ("Court 1", 1, 60),
        ("Court 2", 0, 0),
    ]
    assert len(body["by_hour"]) == 14


def test_report_is_for_managers_and_admins(week: Api) -> None:
    assert _report(week, ADMIN).status_code == 200
    assert (_report(week, DESK).status_code, _report(week, DESK).json()) == (403, FORBIDDEN)
    assert (_report(week, HARBOUR_MANAGER).status_code, _report(week, HARBOUR_MANAGER).json()) == (
        404,
        NOT_FOUND,
    )
    for token in (ANNA, PARTNER):
        assert (_report(week, token).status_code, _report(week, token).json()) == (403, FORBIDDEN)
    harbour = _get(week, f"/venues/{week.venues['harbour-padel']}/report/?{WEEK}", HARBOUR_MANAGER).json()
    assert harbour["currency"] == "USD"
    assert harbour["resources"][0]["revenue_paid"] == "32.00"


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("to=2026-06-07", "from"),
        ("from=2026-06-01", "to"),
        ("from=2026-06-07&to=2026-06-01", "to"),
        ("from=2026-01-01&to=2027-01-02", "to"),  # 367 days: 366 is the most
        ("from=2026-13-01&to=2026-12-31", "from"),
        ("from=0001-01-01&to=2026-12-31", "from"),
        ("from=2026-06-01&to=9999-12-31", "to"),
    ],
)
def test_report_refuses_bad_dates_naming_them(week: Api, query: str, named: str) -> None:
    answer = _report(week, query=query)

    assert answer.status_code == 400
    assert answer.json()["error"].startswith(f"{named}:")


def test_report_of_a_leap_year_and_unknown_venues(week: Api) -> None:
    assert _report(week, query="from=2028-01-01&to=2028-12-31").status_code == 200  # 366 days
    assert _get(week, f"/venues/999999/report/?{WEEK}", ADMIN).status_code == 404
    assert _get(week, f"/venues/0{week.venues['center-court']}/report/?{WEEK}", ADMIN).status_code == 404


# --------------------------------------------------------------------------- the search


def _refs(api: Api, query: str = "", token: str = DESK) -> list[str]:
    answer = _get(api, f"/bookings/?{query}", token)
    assert answer.status_code == 200, answer.text
    return [b["reference_code"] for b in answer.json()]


CENTER_LATEST_FIRST = [
    "RPT009XY",
    "RPT008XY",
    "RPT004XY",
    "RPT003XY",
    "RPT007XY",
    "RPT006XY",
    "RPT002XY",
    "RPT005XY",
    "RPT010XY",  # Mon 10:00 as RPT001: ties by id, highest first
    "RPT001XY",
]


def test_desk_searches_the_bookings_of_their_venue_latest_first(week: Api) -> None:
    assert _refs(week) == CENTER_LATEST_FIRST
    assert _refs(week, f"venue={week.venues['center-court']}") == CENTER_LATEST_FIRST
    first = _get(week, "/bookings/?limit=1", DESK).json()[0]
    assert first["customer"]["email"] == "anna@example.com"
    assert first["customer"]["name"] == "Anna Schmidt"
    assert (first["source"], first["payment_method"], first["checked_in_at"]) == ("online", "online", None)
    assert first["resource"]["venue_slug"] == "center-court"


def test_admin_searches_every_venue(week: Api) -> None:
    found = _refs(week, token=ADMIN)

    assert len(found) == 11
    assert found.index("RPT011XY") == 7  # Mon 10:00 in New York is 16:00 in Berlin, after RPT005
    assert _refs(week, f"venue={week.venues['harbour-padel']}", ADMIN) == ["RPT011XY"]


def test_search_filters(week: Api) -> None:
    court_2 = week.resources["Court 2"]
    assert _refs(week, f"resource={court_2}") == ["RPT010XY"]
    assert _refs(week, "status=no_show") == ["RPT004XY"]
    assert _refs(week, "status=refunded&q=ben") == ["RPT006XY"]
    assert _refs(week, "from=2026-06-02&to=2026-06-03") == ["RPT003XY", "RPT007XY", "RPT006XY", "RPT002XY"]
    assert _refs(week, "from=2026-06-05") == ["RPT009XY", "RPT008XY"]
    assert _refs(week, "to=2026-06-01") == ["RPT005XY", "RPT010XY", "RPT001XY"]
    # each venue's own local dates: Monday in New York runs to 06:00 on Tuesday in Berlin
    assert "RPT011XY" in _refs(week, "from=2026-06-01&to=2026-06-01", ADMIN)
    assert _refs(week, "from=2026-06-02&to=2026-06-02", HARBOUR_MANAGER) == []


def test_search_text_matches_part_of_reference_email_or_name_in_any_case(week: Api) -> None:
    assert _refs(week, "q=rpt00") == [*CENTER_LATEST_FIRST[:-2], "RPT001XY"]
    assert _refs(week, "q=010x") == ["RPT010XY"]
    assert _refs(week, "q=BEN%40EXAMPLE") == ["RPT004XY", "RPT006XY"]
    assert _refs(week, "q=n%20mey") == ["RPT004XY", "RPT006XY"]  # "Ben Meyer"
    assert _refs(week, "q=%25") == []  # a literal %
    assert _refs(week, "q=rpt_0") == []  # a literal _


def test_search_pages_with_a_link_to_the_next_page(week: Api) -> None:
    answer = _get(week, "/bookings/?status=cancelled&limit=1", DESK)
    assert [b["reference_code"] for b in answer.json()] == ["RPT007XY"]
    link = answer.headers["link"]
    assert link.startswith("<http")
    assert link.endswith('>; rel="next"')
    following = link[1 : link.index(">")]
    assert "/api/v1/operator/bookings/?" in following
    assert "offset=1" in following
    assert "status=cancelled" in following
    path = following[following.index("/api/v1/") :]
    second = week.client.get(path, headers=auth(DESK))
    assert [b["reference_code"] for b in second.json()] == ["RPT005XY"]
    assert "link" not in second.headers


def test_search_permissions(week: Api) -> None:
    harbour, padel = week.venues["harbour-padel"], week.resources["Padel A"]
    assert (
        _get(week, f"/bookings/?venue={harbour}", DESK).status_code,
        _get(week, f"/bookings/?venue={harbour}", DESK).json(),
    ) == (404, NOT_FOUND)
    assert _get(week, f"/bookings/?resource={padel}", DESK).status_code == 404
    assert _get(week, "/bookings/?venue=999999", ADMIN).status_code == 404
    for token in (ANNA, BEN, PARTNER):
        assert (_get(week, "/bookings/", token).status_code, _get(week, "/bookings/", token).json()) == (
            403,
            FORBIDDEN,
        )
    assert week.client.get(f"{OPERATOR}/bookings/").status_code == 401
    assert _refs(week, token=HARBOUR_MANAGER) == ["RPT011XY"]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("status=lost", "status"),
        ("from=2026-6-1", "from"),
        ("to=yesterday", "to"),
        ("from=2026-06-03&to=2026-06-02", "to"),
        ("venue=1e3", "venue"),
        ("resource=-1", "resource"),
        ("limit=1001", "limit"),
        ("offset=-1", "offset"),
        ("format=xml", "format"),
        ("q=" + "x" * 151, "q"),
    ],
)
def test_search_refuses_bad_parameters_naming_them(week: Api, query: str, named: str) -> None:
    answer = _get(week, f"/bookings/?{query}", DESK)

    assert answer.status_code == 400, answer.text
    assert named in answer.json()["error"]


def test_csv_streams_every_matching_booking_with_a_header(week: Api) -> None:
    answer = _get(week, "/bookings/?format=csv&limit=2", DESK)

    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    assert "attachment" in answer.headers["content-disposition"]
    assert "link" not in answer.headers
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert list(rows[0]) == list(COLUMNS)
    assert [r["reference_code"] for r in rows] == CENTER_LATEST_FIRST  # all of them, not a page
    paid = next(r for r in rows if r["reference_code"] == "RPT001XY")
    assert (paid["status"], paid["total_price"], paid["currency"]) == ("paid", "40.00", "EUR")
    assert (paid["customer_email"], paid["customer_name"]) == ("anna@example.com", "Anna Schmidt")
    assert paid["start_datetime"] == "2026-06-01T10:00:00+02:00"
    assert paid["payment_status"] == "succeeded"


def test_csv_takes_the_same_filters_and_reads_in_chunks(week: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    from booking_core.usecases import operator_search

    monkeypatch.setattr(operator_search, "EXPORT_CHUNK", 2)
    monkeypatch.setattr(operator_search.export_bookings, "__kwdefaults__", {"chunk": 2})
    answer = _get(week, "/bookings/?format=csv&q=anna&from=2026-06-01&to=2026-06-07", DESK)

    rows = list(csv.reader(io.StringIO(answer.text)))
    assert rows[0] == list(COLUMNS)
    assert [r[1] for r in rows[1:]] == [
        "RPT008XY",
        "RPT003XY",
        "RPT007XY",
        "RPT002XY",
        "RPT005XY",
        "RPT010XY",
        "RPT001XY",
    ]
    empty = _get(week, "/bookings/?format=csv&status=no_show&q=anna", DESK)
    assert list(csv.reader(io.StringIO(empty.text))) == [list(COLUMNS)]
    assert _get(week, f"/bookings/?format=csv&venue={week.venues['harbour-padel']}", DESK).status_code == 404
