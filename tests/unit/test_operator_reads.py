"""The venue report and the staff's bookings search through their use cases, on the in-memory ports:
who may ask, what a refusal names, and a report over the week whose Sunday falls back."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest

from booking_core.accounts import User
from booking_core.booking import Booking, BookingStatus
from booking_core.catalog import Resource, Schedule, TimeSlot, Venue
from booking_core.errors import BadRequest, NotFound, PermissionDenied
from booking_core.memory import (
    FixedClock,
    FixedCurrencies,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.paging import Page
from booking_core.payments import Payment, PaymentStatus
from booking_core.staff import Role, Staff, StaffRole
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_reports import venue_report
from booking_core.usecases.operator_search import BookingSearch, export_bookings, search_bookings

NOW = datetime(2026, 10, 1, tzinfo=UTC)
BERLIN = Venue(id=1, slug="club", name="Club", timezone="Europe/Berlin")
HARBOUR = Venue(id=2, slug="harbour", name="Harbour", timezone="America/New_York")
#: Monday 2026-10-19 to Sunday 2026-10-25, whose 03:00 CEST is 02:00 CET again
AUTUMN = (date(2026, 10, 19), date(2026, 10, 25))


def _court(resource_id: int, venue: Venue) -> Resource:
    # open 01:00-04:00: on the Sunday that is four hours, the hour from 02:00 twice
    slots = (TimeSlot(start_time=time(1), end_time=time(4), price_per_unit=Decimal("20.00")),)
    schedules = tuple(Schedule(id=d, day_of_week=d, time_slots=slots) for d in range(1, 8))
    return Resource(id=resource_id, venue=venue, name=f"Court {resource_id}", schedules=schedules)


def _staff(role: Role, venue_id: int | None) -> Staff:
    user = User(id="staff", email="staff@example.com", created_at=NOW)
    return Staff(user=user, roles=(StaffRole(user_id="staff", role=role, venue_id=venue_id, created_at=NOW),))


DESK, MANAGER, ADMIN = _staff(Role.DESK, 1), _staff(Role.MANAGER, 1), _staff(Role.ADMIN, None)
ELSEWHERE = _staff(Role.MANAGER, 2)


@pytest.fixture
def deps() -> Deps:
    store = InMemoryStore()
    store.add_resource(_court(1, BERLIN))
    store.add_resource(_court(2, BERLIN))
    store.add_resource(_court(3, HARBOUR))
    deps = Deps(
        uow=store.uow,
        clock=FixedClock(NOW),
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=InMemoryPaymentGateway(),
        currencies=FixedCurrencies(),
    )
    with deps.uow() as uow:
        uow.users.add(User(id="anna", email="anna@example.com", first_name="Anna", created_at=NOW))
        # Sunday 00:00Z-02:00Z: 02:00 CEST to 03:00 CET, the repeated hour twice
        uow.bookings.add(_booking(1, 1, datetime(2026, 10, 25, 0, tzinfo=UTC), 120))
        # Monday 01:00-02:30 CEST
        uow.bookings.add(_booking(2, 2, datetime(2026, 10, 18, 23, tzinfo=UTC), 90))
        uow.bookings.add(_booking(3, 3, datetime(2026, 10, 19, 5, tzinfo=UTC), 60))
        uow.commit()
    return deps


def _booking(n: int, resource_id: int, start: datetime, minutes: int) -> Booking:
    return Booking(
        id=f"b{n}",
        reference_code=f"REF{n:05d}",
        resource_id=resource_id,
        user_id="anna",
        start=start,
        end=start + timedelta(minutes=minutes),
        price_per_unit=Decimal("20.00"),
        total_price=Decimal("20.00"),
        status=BookingStatus.CONFIRMED,
        created_at=NOW,
        updated_at=NOW,
    )


def test_report_of_the_autumn_week(deps: Deps) -> None:
    report = venue_report(deps, MANAGER, 1, *AUTUMN)

    court_1, court_2 = report.resources
    # three hours a day for six days and four on Sunday: 22 h = 1,320 minutes per court
    assert (court_1.open_minutes, court_1.booked_minutes, court_1.occupancy) == (1320, 120, Decimal("0.09"))
    assert (court_2.open_minutes, court_2.booked_minutes, court_2.occupancy) == (1320, 90, Decimal("0.07"))
    rates = {(h.weekday, h.hour): h.occupancy for h in report.by_hour}
    assert len(rates) == 7 * 3
    assert rates[7, 2] == Decimal("0.50")  # 120 of the two courts' 240 minutes
    assert rates[1, 1] == Decimal("0.50")  # Court 2 from 01:00
    assert rates[1, 2] == Decimal("0.25")  # and half of 02:00
    assert (report.currency, court_1.revenue_paid) == ("EUR", Decimal("0.00"))


def _payment(n: int, amount: str, refunded: str = "0.00") -> Payment:
    return Payment(
        id=f"p{n}",
        booking_id=f"b{n}",
        provider="sandbox",
        payment_intent_id=f"pi_{n}",
        client_secret="secret",
        amount=Decimal(amount),
        currency="EUR",
        status=PaymentStatus.SUCCEEDED,
        refunded_amount=Decimal(refunded),
        paid_at=NOW,
        created_at=NOW,
    )


def test_report_money_by_month_follows_local_dates_and_adds_up_to_the_lines(deps: Deps) -> None:
    with deps.uow() as uow:
        # 22:30 UTC on September 30th is half past midnight on October 1st in Berlin: October's money
        uow.bookings.add(_booking(4, 1, datetime(2026, 9, 30, 22, 30, tzinfo=UTC), 60))
        uow.payments.add(_payment(4, "20.00", refunded="5.00"))
        uow.bookings.add(_booking(5, 2, datetime(2026, 9, 15, 10, tzinfo=UTC), 60))
        uow.payments.add(_payment(5, "30.00"))
        uow.commit()

    report = venue_report(deps, MANAGER, 1, date(2026, 9, 10), date(2026, 11, 5), by_month=True)

    assert [(m.date_from, m.date_to, m.revenue_paid, m.revenue_refunded) for m in report.by_month] == [
        (date(2026, 9, 10), date(2026, 9, 30), Decimal("30.00"), Decimal("0.00")),
        (date(2026, 10, 1), date(2026, 10, 31), Decimal("20.00"), Decimal("5.00")),
        (date(2026, 11, 1), date(2026, 11, 5), Decimal("0.00"), Decimal("0.00")),
    ]
    assert sum(m.revenue_paid for m in report.by_month) == sum(r.revenue_paid for r in report.resources)
    assert venue_report(deps, MANAGER, 1, *AUTUMN).by_month == []  # the API's report asks no months


def test_report_is_for_managers_of_the_venue_and_admins(deps: Deps) -> None:
    assert venue_report(deps, ADMIN, 1, *AUTUMN).resources
    assert venue_report(deps, None, 1, *AUTUMN).resources  # the command line
    with pytest.raises(PermissionDenied):
        venue_report(deps, DESK, 1, *AUTUMN)
    with pytest.raises(NotFound):
        venue_report(deps, ELSEWHERE, 1, *AUTUMN)
    with pytest.raises(NotFound):
        venue_report(deps, ADMIN, 99, *AUTUMN)


@pytest.mark.parametrize(
    ("first", "last"), [(date(2026, 10, 2), date(2026, 10, 1)), (date(2026, 1, 1), date(2027, 1, 2))]
)
def test_report_dates_refused_name_to(deps: Deps, first: date, last: date) -> None:
    with pytest.raises(BadRequest, match=r"^to:"):
        venue_report(deps, MANAGER, 1, first, last)


def _refs(deps: Deps, staff: Staff, **search: object) -> list[str]:
    found = search_bookings(deps, staff, BookingSearch(**search), page=Page())  # type: ignore[arg-type]
    return [op.booking.reference_code for op in found.items]


def test_search_stays_within_the_venues_seen(deps: Deps) -> None:
    assert _refs(deps, DESK) == ["REF00001", "REF00002"]
    assert _refs(deps, ADMIN) == ["REF00001", "REF00003", "REF00002"]
    assert _refs(deps, ELSEWHERE) == ["REF00003"]
    with pytest.raises(NotFound):
        _refs(deps, DESK, venue_id=2)
    with pytest.raises(NotFound):
        _refs(deps, DESK, resource_id=3)
    with pytest.raises(NotFound):
        _refs(deps, ADMIN, venue_id=99)


def test_search_dates_are_each_venues_own(deps: Deps) -> None:
    monday = date(2026, 10, 19)
    # 05:00Z on Monday is 01:00 in New York, and 07:00 in Berlin
    assert _refs(deps, ADMIN, date_from=monday, date_to=monday) == ["REF00003", "REF00002"]
    assert _refs(deps, ADMIN, date_to=date(2026, 10, 18)) == []


def test_search_refusals_name_the_parameter(deps: Deps) -> None:
    with pytest.raises(BadRequest, match=r"^status: must be one of pending, "):
        _refs(deps, DESK, status="lost")
    with pytest.raises(BadRequest, match=r"^to:"):
        _refs(deps, DESK, date_from=date(2026, 10, 2), date_to=date(2026, 10, 1))


def test_export_checks_first_then_reads_chunk_by_chunk(deps: Deps) -> None:
    with pytest.raises(NotFound):
        export_bookings(deps, DESK, BookingSearch(venue_id=2))

    chunks = list(export_bookings(deps, ADMIN, BookingSearch(), chunk=2))

    assert [[op.booking.reference_code for op in c] for c in chunks] == [
        ["REF00001", "REF00003"],
        ["REF00002"],
    ]
    assert chunks[0][0].customer.email == "anna@example.com"
