"""The operator's reads on every storage: the venue report's sums and the staff's bookings search.

One suite on the in-memory fake, SQLite and PostgreSQL (the fixtures of ``test_repositories``):
the databases must sum and find exactly what the fake does row by row.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from adapters.sqla.repositories.bookings import _search as search_module
from booking_core.accounts import User
from booking_core.booking import BookingStatus, CancellationReason
from booking_core.payments import Payment, PaymentStatus
from booking_core.ports import StaffBookingQuery, VenueSpan
from booking_core.report import BookedBucket, ResourceFigures
from booking_core.timerange import TimeRange
from tests.integration.test_repositories import Backend
from tests.integration.test_repositories import backend as backend
from tests.support.bookings import DAY, NOW, USER_ID, add_bookings, at, make_booking
from tests.support.seed import demo_resource, demo_venue

OTHER_USER = "00000000-0000-4000-8000-000000000002"
#: Wednesday 2026-06-10 in Berlin (UTC+2)
NEXT_DAY = DAY + timedelta(days=1)
DAY_SPAN = TimeRange(at("00:00"), at("00:00", NEXT_DAY))
HARBOUR = demo_venue(id=2, slug="harbour", name="Harbour", timezone="America/New_York")


@pytest.fixture
def seeded(backend: Backend) -> Backend:
    """Court 1 and 2 of the Berlin venue, Pier 1 in New York, two customers and a day of bookings."""
    backend.add_resource(demo_resource())
    backend.add_resource(demo_resource(id=2, name="Court 2", activity_types=()))
    backend.add_resource(demo_resource(id=3, name="Pier 1", venue=HARBOUR, activity_types=()))
    with backend.uow() as uow:
        uow.users.add(
            User(id=USER_ID, email="Anna@Example.com", first_name="Anna", last_name="Schmidt", created_at=NOW)
        )
        uow.users.add(
            User(
                id=OTHER_USER,
                email="ben_50%@example.com",
                first_name="Ben",
                last_name="Meyer",
                created_at=NOW,
            )
        )
        uow.commit()
    paid = make_booking("11:00", "12:30", id=_id(2), reference_code="PAID0002", status=BookingStatus.PAID)
    refunded = make_booking(
        "13:00",
        "14:00",
        id=_id(5),
        reference_code="REFD0005",
        status=BookingStatus.REFUNDED,
        cancellation_reason=CancellationReason.USER_REQUEST,
        user_id=OTHER_USER,
    )
    add_bookings(
        backend,
        make_booking("10:00", "11:00", id=_id(1), reference_code="CONF0001"),
        paid,
        make_booking(
            "10:00",
            "12:00",
            id=_id(3),
            reference_code="DONE0003",
            resource_id=2,
            status=BookingStatus.COMPLETED,
        ),
        make_booking(
            "15:00",
            "16:00",
            id=_id(4),
            reference_code="NOSH0004",
            status=BookingStatus.NO_SHOW,
            user_id=OTHER_USER,
        ),
        refunded,
        make_booking(
            "16:00",
            "17:00",
            id=_id(6),
            reference_code="EXPD0006",
            status=BookingStatus.CANCELLED,
            cancellation_reason=CancellationReason.EXPIRED,
        ),
        make_booking("17:00", "18:00", id=_id(7), reference_code="PEND0007", status=BookingStatus.PENDING),
        make_booking("23:30", at("01:00", NEXT_DAY), id=_id(8), reference_code="LATE0008"),
        make_booking(at("10:00", NEXT_DAY), at("11:00", NEXT_DAY), id=_id(9), reference_code="NEXT0009"),
        make_booking("10:00", "11:00", id=_id(10), reference_code="PIER0010", resource_id=3),
    )
    with backend.uow() as uow:
        uow.payments.add(_payment("p2", paid.id, "30.00", PaymentStatus.SUCCEEDED))
        uow.payments.add(_payment("p5", refunded.id, "20.00", PaymentStatus.REFUNDED, refunded="12.50"))
        uow.payments.add(_payment("p5b", refunded.id, "20.00", PaymentStatus.FAILED))
        uow.commit()
    return backend


def _id(n: int) -> str:
    return f"00000000-0000-4000-a000-{n:012d}"


def _payment(
    pid: str, booking_id: str, amount: str, status: PaymentStatus, refunded: str = "0.00"
) -> Payment:
    return Payment(
        id=f"00000000-0000-4000-b000-{len(pid):04d}{sum(map(ord, pid)):08d}",
        booking_id=booking_id,
        provider="sandbox",
        payment_intent_id=f"pi_{pid}",
        client_secret="secret",
        amount=Decimal(amount),
        currency="EUR",
        status=status,
        refunded_amount=Decimal(refunded),
        created_at=NOW,
    )


# --------------------------------------------------------------------------- the report's sums


def test_resource_figures_sum_the_bookings_starting_in_the_span(seeded: Backend) -> None:
    with seeded.uow() as uow:
        found = uow.reports.resource_figures([1, 2], DAY_SPAN)

    # Court 1: confirmed 60 + paid 90 + no-show 60 + late 90 minutes; the refunded one cancelled,
    # the lapsed hold and the pending one not counted; the next day's outside the span
    assert found == {
        1: ResourceFigures(
            resource_id=1,
            bookings=4,
            cancellations=1,
            no_shows=1,
            booked_seconds=(60 + 90 + 60 + 90) * 60,
            revenue_paid=Decimal("50.00"),
            revenue_refunded=Decimal("12.50"),
        ),
        2: ResourceFigures(resource_id=2, bookings=1, booked_seconds=120 * 60),
    }
    assert found[1].revenue_paid == Decimal("50.00")


def test_resource_figures_of_nothing(seeded: Backend) -> None:
    with seeded.uow() as uow:
        assert uow.reports.resource_figures([], DAY_SPAN) == {}
        assert (
            uow.reports.resource_figures(
                [1], TimeRange(at("00:00", date(2026, 7, 1)), at("00:00", date(2026, 7, 2)))
            )
            == {}
        )


def test_booked_buckets_cut_bookings_at_bucket_edges(seeded: Backend) -> None:
    with seeded.uow() as uow:
        hourly = uow.reports.booked_buckets([1, 2], DAY_SPAN, bucket_minutes=60)
        quarters = uow.reports.booked_buckets([1], DAY_SPAN, bucket_minutes=15)

    utc = lambda hour, minute=0, day=10: datetime(2026, 6, day, hour, minute, tzinfo=UTC)  # noqa: E731
    assert hourly == [
        BookedBucket(start=utc(8), seconds=2 * 3600),  # 10:00 local: Court 1 and Court 2
        BookedBucket(start=utc(9), seconds=2 * 3600),  # 11:00: the paid one and Court 2
        BookedBucket(start=utc(10), seconds=1800),  # 12:00-12:30
        BookedBucket(start=utc(13), seconds=3600),  # the no-show
        BookedBucket(start=utc(21), seconds=1800),  # 23:30-00:00
        BookedBucket(start=utc(22), seconds=3600),  # into the next day
    ]
    assert sum(b.seconds for b in quarters) == (60 + 90 + 60 + 90) * 60
    assert quarters[0] == BookedBucket(start=utc(8), seconds=900)
    assert all(b.seconds <= 900 for b in quarters)


# --------------------------------------------------------------------------- the bookings search


def _refs(storage: Backend, query: StaffBookingQuery, *, limit: int = 100, offset: int = 0) -> list[str]:
    with storage.uow() as uow:
        return [b.reference_code for b in uow.bookings.search(query, limit=limit, offset=offset)]


def test_search_lists_latest_start_first_ties_by_id(seeded: Backend) -> None:
    found = _refs(seeded, StaffBookingQuery(venue_ids=frozenset({1})))

    assert found == [
        "NEXT0009",
        "LATE0008",
        "PEND0007",
        "EXPD0006",
        "NOSH0004",
        "REFD0005",
        "PAID0002",
        "DONE0003",  # 10:00 as CONF0001, higher id first
        "CONF0001",
    ]
    assert _refs(seeded, StaffBookingQuery(venue_ids=frozenset({1})), limit=2, offset=7) == [
        "DONE0003",
        "CONF0001",
    ]
    assert "PIER0010" in _refs(seeded, StaffBookingQuery())
    assert _refs(seeded, StaffBookingQuery(venue_ids=frozenset({2}))) == ["PIER0010"]
    assert _refs(seeded, StaffBookingQuery(venue_ids=frozenset())) == []


def test_search_filters_by_resource_status_and_dates(seeded: Backend) -> None:
    one_day = (VenueSpan(venue_ids=frozenset({1}), span=DAY_SPAN),)

    assert _refs(seeded, StaffBookingQuery(resource_id=2)) == ["DONE0003"]
    assert _refs(seeded, StaffBookingQuery(status=BookingStatus.NO_SHOW)) == ["NOSH0004"]
    assert len(_refs(seeded, StaffBookingQuery(starts=one_day))) == 8  # not the next day's, not the pier's
    assert _refs(seeded, StaffBookingQuery(starts=one_day, status=BookingStatus.PAID)) == ["PAID0002"]
    assert _refs(seeded, StaffBookingQuery(starts=())) == []


def test_search_text_matches_any_part_of_reference_email_or_name(seeded: Backend) -> None:
    assert _refs(seeded, StaffBookingQuery(text="nosh")) == ["NOSH0004"]
    assert _refs(seeded, StaffBookingQuery(text="ANNA@example")) == [
        "NEXT0009",
        "LATE0008",
        "PEND0007",
        "EXPD0006",
        "PAID0002",
        "PIER0010",
        "DONE0003",
        "CONF0001",
    ]
    assert _refs(seeded, StaffBookingQuery(text="n meY")) == ["NOSH0004", "REFD0005"]  # "Ben Meyer"
    assert _refs(seeded, StaffBookingQuery(text="50%")) == ["NOSH0004", "REFD0005"]
    assert _refs(seeded, StaffBookingQuery(text="_50")) == ["NOSH0004", "REFD0005"]
    assert _refs(seeded, StaffBookingQuery(text="0%0")) == []  # % is no wildcard
    assert _refs(seeded, StaffBookingQuery(text="n_a")) == []  # nor is _
    assert _refs(seeded, StaffBookingQuery(text="\\")) == []


def test_search_after_reads_the_whole_result_chunk_by_chunk(seeded: Backend) -> None:
    query = StaffBookingQuery(venue_ids=frozenset({1}))
    chunks: list[list[str]] = []
    after = None
    with seeded.uow() as uow:
        while chunk := uow.bookings.search_after(query, after, limit=4):
            chunks.append([b.reference_code for b in chunk])
            after = (chunk[-1].start, chunk[-1].id)

    assert [len(c) for c in chunks] == [4, 4, 1]
    assert [ref for chunk in chunks for ref in chunk] == _refs(seeded, query)


def test_search_text_folds_case_beyond_ascii(seeded: Backend) -> None:
    with seeded.uow() as uow:
        uow.users.add(
            User(id=_id(99), email="oe@example.com", first_name="Ümit", last_name="Özil", created_at=NOW)
        )
        uow.commit()
    add_bookings(
        seeded, make_booking("20:00", "21:00", id=_id(98), reference_code="UMLA0098", user_id=_id(99))
    )

    assert _refs(seeded, StaffBookingQuery(text="özil")) == ["UMLA0098"]
    assert _refs(seeded, StaffBookingQuery(text="ÜMIT Ö")) == ["UMLA0098"]


def test_search_text_finds_the_same_when_many_customers_match(
    seeded: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond FEW_CUSTOMERS matching customers the databases look each booking's customer up instead
    of naming them all: the same bookings either way."""
    monkeypatch.setattr(search_module, "FEW_CUSTOMERS", 0)

    assert _refs(seeded, StaffBookingQuery(text="nosh")) == ["NOSH0004"]
    assert _refs(seeded, StaffBookingQuery(text="n meY")) == ["NOSH0004", "REFD0005"]
    assert _refs(seeded, StaffBookingQuery(venue_ids=frozenset({1}), text="ANNA@example")) == [
        "NEXT0009",
        "LATE0008",
        "PEND0007",
        "EXPD0006",
        "PAID0002",
        "DONE0003",
        "CONF0001",
    ]
    assert _refs(seeded, StaffBookingQuery(text="50%")) == ["NOSH0004", "REFD0005"]
    assert _refs(seeded, StaffBookingQuery(text="n_a")) == []
