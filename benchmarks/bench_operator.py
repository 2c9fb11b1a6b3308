"""Benchmark of the operator's reads on PostgreSQL: the venue report of a year and the bookings search.

Run: ``python benchmarks/bench_operator.py [--history-days N] [--repeats N]``. A throw-away database
on the server of ``BOOKING_TEST_POSTGRES_URL`` (default ``postgres@127.0.0.1:5432``) gets a venue
with 20 courts open 07:00-22:00 and 300 bookings on one day (15 an hour-long booking per court, in
every status, the paid ones with their payment), and with ``--history-days`` that many days before it
booked as densely (300 a day). Each read runs ``--repeats`` times through its use case, as the HTTP
handlers call it; the script prints the median and the 99th percentile in milliseconds:

* ``report``: the venue report (CONTRACT 7.7) over 366 days;
* ``search``: the first page (100) of the venue's bookings, latest first;
* ``search q``: a page of those matching part of a customer's email;
* ``search day+status``: a page of one day's paid bookings;
* ``search admin``: the first page over every venue (an admin without a venue filter), and a text
  that matches nothing, which reads every booking;
* ``csv``: every booking of the day read chunk by chunk as the CSV download reads them;
* ``day sheet``: :data:`DAY_SHEET`, the venue's day sheet (CONTRACT 7.2) of the busy day: 20 courts,
  300 bookings, their customers and the free time;
* ``day sheet HTTP``: the same as ``GET /api/v1/operator/venues/{id}/day/`` through the app in process
  (Litestar's test client, an admin's token): authentication, the use case and the JSON answer;
* ``day sheet console``: the console's page of that day (``/console/venues/{id}/day``, CONTRACT 8) for
  the admin signed in with a password: the session, the use case, the layout and the HTML of 20
  columns with their bookings, in the admin's language.

The reads run as in a server process after its start-up: what start-up built (here also the seed's
leftovers and the app) frozen out of the garbage collector's full passes, whose walks over it
otherwise stalled one request in fifty by about 130 ms.

With ``--url URL`` the script seeds nothing and times the bookings search on that database instead,
migrated first (``make bench-scale`` keeps its 10-million-booking one with ``BENCH_SCALE_KEEP``;
``--url postgresql+psycopg://postgres@127.0.0.1:5432/booking_scale_keep``): :func:`scale_reads` on
the venue of the most bookings, with texts taken from its own bookings, and over every venue; then
``EXPLAIN (ANALYZE, BUFFERS)`` of the slowest line's statement, to show which indexes it used.

It is a measurement, not a test: nothing fails on a figure.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from litestar.testing import TestClient  # noqa: E402
from sqlalchemy import Engine, insert, text  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from adapters.catalog import validate_catalog, write_catalog  # noqa: E402
from adapters.passwords import Argon2Passwords  # noqa: E402
from adapters.sqla import make_engine  # noqa: E402
from adapters.sqla.migrate import upgrade  # noqa: E402
from adapters.sqla.models import BookingRow, PaymentRow  # noqa: E402
from adapters.sqla.repositories.bookings import booking_values  # noqa: E402
from adapters.sqla.repositories.bookings._search import customers_matching, search_statement  # noqa: E402
from booking_core.accounts import User  # noqa: E402
from booking_core.booking import Booking, BookingStatus, CancellationReason  # noqa: E402
from booking_core.paging import Page  # noqa: E402
from booking_core.ports import ResourceQuery  # noqa: E402
from booking_core.staff import Role, Staff, StaffRole  # noqa: E402
from booking_core.usecases.deps import Deps  # noqa: E402
from booking_core.usecases.operator_day import day_sheet  # noqa: E402
from booking_core.usecases.operator_reports import venue_report  # noqa: E402
from booking_core.usecases.operator_search import (  # noqa: E402
    BookingSearch,
    export_bookings,
    search_bookings,
    staff_query,
)
from entrypoints.bootstrap import bootstrap  # noqa: E402
from entrypoints.config import Settings  # noqa: E402
from entrypoints.http.app import create_app  # noqa: E402
from entrypoints.http.asgi import freeze_startup_objects  # noqa: E402
from tests.support.console_fixtures import sign_in  # noqa: E402
from tests.support.postgres import temporary_database  # noqa: E402

BERLIN = ZoneInfo("Europe/Berlin")
DAY = date(2026, 6, 10)
COURTS = 20
OPEN_HOURS = range(7, 22)  # 15 one-hour bookings a court a day: 300 a day
CUSTOMERS = 50
NOW = datetime(2026, 6, 11, 6, 0, tzinfo=UTC)
ADMIN_ID = "00000000-0000-4000-6000-000000000001"
#: The token of the catalog's admin, for the reads over HTTP.
ADMIN_TOKEN = "bench-admin-token"
#: The admin's sign-in to the console.
ADMIN_EMAIL, ADMIN_PASSWORD = "admin@bench.example", "bench-admin-passphrase"


def _day_sheet(deps: Deps, staff: Staff, venue_id: int, day: date) -> object:
    """The day sheet as ``GET /operator/venues/{id}/day/`` asks for it (no cancelled bookings)."""
    return day_sheet(deps, staff, venue_id, day, False)


#: The day sheet's measurement, ``(deps, staff, venue_id, day) -> None``.
DAY_SHEET: Callable[[Deps, Staff, int, date], object] | None = _day_sheet


def catalog() -> dict[str, object]:
    """One venue in Berlin with :data:`COURTS` courts open 07:00-22:00 every day."""
    slots = [{"start_time": "07:00:00", "end_time": "22:00:00", "price_per_unit": "20.00"}]
    court = {
        "capacity": 4, "base_price": "20.00", "currency": "EUR", "price_unit": "hour",
        "booking_interval_minutes": 60, "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 120, "prevent_unbookable_gaps": False,
        "schedules": [{"day_of_week": d, "time_slots": slots} for d in range(1, 8)],
    }  # fmt: skip
    venue = {
        "slug": "bench-club", "name": "Bench Club", "venue_type": "tennis_club", "timezone": "Europe/Berlin",
        "street_address": "Benchstrasse 1", "city": "Berlin", "postal_code": "10115", "country": "DE",
        "latitude": "52.52", "longitude": "13.40", "operator_email": "ops@bench.example",
        "resources": [{"name": f"Court {n:02d}", **court} for n in range(1, COURTS + 1)],
    }  # fmt: skip
    other = {**venue, "slug": "other-club", "name": "Other Club", "resources": [{"name": "Court X", **court}]}
    admin = {
        "email": ADMIN_EMAIL, "first_name": "Ada", "last_name": "Admin", "token": ADMIN_TOKEN,
        "password": ADMIN_PASSWORD, "language": "en",
    }  # fmt: skip
    return {
        "venues": [venue, other],
        "users": [admin],
        "staff": [{"email": ADMIN_EMAIL, "role": "admin"}],
    }


def _status(n: int) -> tuple[BookingStatus, CancellationReason | None]:
    """Every status a day holds: mostly paid and confirmed, some cancelled, refunded and no-shows."""
    kinds = [
        (BookingStatus.PAID, None),
        (BookingStatus.CONFIRMED, None),
        (BookingStatus.PAID, None),
        (BookingStatus.COMPLETED, None),
        (BookingStatus.CANCELLED, CancellationReason.USER_REQUEST),
        (BookingStatus.PAID, None),
        (BookingStatus.NO_SHOW, None),
        (BookingStatus.REFUNDED, CancellationReason.USER_REQUEST),
        (BookingStatus.CONFIRMED, None),
        (BookingStatus.PENDING, None),
    ]
    return kinds[n % len(kinds)]


def bookings_of(day: date, court_ids: list[int], customers: list[str], first: int) -> list[Booking]:
    """300 bookings of ``day``: one an hour on every court, numbered from ``first``."""
    found = []
    n = first
    for court in court_ids:
        for hour in OPEN_HOURS:
            start = datetime(day.year, day.month, day.day, hour, tzinfo=BERLIN).astimezone(UTC)
            status, reason = _status(n)
            found.append(
                Booking(
                    id=f"00000000-0000-4000-8000-{n:012d}",
                    reference_code=f"B{n:07d}",
                    resource_id=court,
                    user_id=customers[n % len(customers)],
                    start=start,
                    end=start + timedelta(hours=1),
                    price_per_unit=Decimal("20.00"),
                    total_price=Decimal("20.00"),
                    status=status,
                    cancellation_reason=reason,
                    hold_expires_at=NOW + timedelta(minutes=15) if status is BookingStatus.PENDING else None,
                    created_at=start - timedelta(days=3),
                    updated_at=start - timedelta(days=3),
                )
            )
            n += 1
    return found


def _payment(booking: Booking) -> dict[str, object]:
    refunded = booking.status is BookingStatus.REFUNDED
    return {
        "id": booking.id.replace("-8000-", "-9000-"),
        "booking_id": booking.id,
        "provider": "sandbox",
        "payment_intent_id": f"pi_{booking.reference_code}",
        "client_secret": "secret",
        "amount": booking.total_price,
        "currency": "EUR",
        "status": "refunded" if refunded else "succeeded",
        "failure_message": "",
        "paid_at": booking.created_at,
        "refunded_at": booking.created_at if refunded else None,
        "refunded_amount": booking.total_price if refunded else Decimal("0.00"),
        "paid_mails_owed": False,
        "created_at": booking.created_at,
    }


def seed(deps: Deps, url: str, history_days: int) -> tuple[int, list[int]]:
    """The catalog, the customers and the bookings; the venue's id and its courts' ids."""
    engine = make_engine(url)
    try:
        write_catalog(engine, validate_catalog(catalog()), Argon2Passwords(), now=NOW)
    finally:
        engine.dispose()
    with deps.uow() as uow:
        courts = list(uow.resources.for_venue(_venue_id(deps, "bench-club")))
        for n in range(CUSTOMERS):
            uow.users.add(
                User(
                    id=f"00000000-0000-4000-7000-{n:012d}",
                    email=f"customer{n:03d}@example.com",
                    first_name="Customer",
                    last_name=f"Number {n}",
                    created_at=NOW,
                )
            )
        uow.commit()
    court_ids = [c.id for c in courts]
    customers = [f"00000000-0000-4000-7000-{n:012d}" for n in range(CUSTOMERS)]
    days = [DAY - timedelta(days=d) for d in range(history_days, -1, -1)]
    with Session(engine := make_engine(url)) as session:
        for k, day in enumerate(days):
            rows = bookings_of(day, court_ids, customers, first=1 + k * len(court_ids) * len(OPEN_HOURS))
            session.execute(insert(BookingRow), [booking_values(b) for b in rows])
            paid = [
                b
                for b in rows
                if b.status in {BookingStatus.PAID, BookingStatus.COMPLETED, BookingStatus.REFUNDED}
            ]
            session.execute(insert(PaymentRow), [_payment(b) for b in paid])
            if k % 30 == 29:
                session.commit()
        session.commit()
        session.connection().exec_driver_sql("ANALYZE")
        session.commit()
    engine.dispose()
    return _venue_id(deps, "bench-club"), court_ids


def _venue_id(deps: Deps, slug: str) -> int:
    with deps.read() as uow:
        (found, *_) = uow.resources.list(ResourceQuery(venue_slug=slug, is_active=None, is_bookable=None))
    return found.venue.id


def timed(run: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median and 99th percentile of ``repeats`` runs, in milliseconds (after one warm-up run)."""
    run()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        run()
        times.append((time.perf_counter() - began) * 1000)
    p99 = statistics.quantiles(times, n=100, method="inclusive")[98] if len(times) > 1 else times[0]
    return statistics.median(times), p99


def reads(deps: Deps, staff: Staff, venue_id: int) -> dict[str, Callable[[], object]]:
    """What is measured, by name: each read as its HTTP handler asks its use case."""
    year_from = DAY - timedelta(days=365)
    venue = BookingSearch(venue_id=venue_id)
    one_day = BookingSearch(venue_id=venue_id, date_from=DAY, date_to=DAY, status="paid")
    page = Page(limit=100)
    measured: dict[str, Callable[[], object]] = {
        "report (366 days)": lambda: venue_report(deps, staff, venue_id, year_from, DAY),
        "search (venue, page 1)": lambda: search_bookings(deps, staff, venue, page=page),
        "search q (email part)": lambda: search_bookings(
            deps, staff, BookingSearch(venue_id=venue_id, text="mer007@exa"), page=page
        ),
        "search day+status": lambda: search_bookings(deps, staff, one_day, page=page),
        "search admin (all venues)": lambda: search_bookings(deps, staff, BookingSearch(), page=page),
        "search admin q (no match)": lambda: search_bookings(
            deps, staff, BookingSearch(text="zzz"), page=page
        ),
        "csv (one day, all rows)": lambda: sum(
            len(chunk)
            for chunk in export_bookings(
                deps, staff, BookingSearch(venue_id=venue_id, date_from=DAY, date_to=DAY)
            )
        ),
    }
    if DAY_SHEET is not None:
        sheet = DAY_SHEET
        measured["day sheet"] = lambda: sheet(deps, staff, venue_id, DAY)
    return measured


def scale_reads(engine: Engine) -> tuple[int, dict[str, BookingSearch]]:
    """The searches timed on a large database, by name, and the venue they search: the venue of a
    booking, and texts that match it (part of its customer's email, of the name, of its reference
    code), nothing, or every customer ("example")."""
    with engine.connect() as conn:
        # a booking as good as random, but the same on every run: the first id from the middle
        venue_id, reference, email, first, last = conn.execute(
            text(
                "SELECT r.venue_id, b.reference_code, u.email, u.first_name, u.last_name FROM bookings b "
                "JOIN resources r ON r.id = b.resource_id JOIN users u ON u.id = b.user_id "
                "WHERE b.id >= '8' ORDER BY b.id LIMIT 1"
            )
        ).one()
    name = f"{first} {last}"
    email_part = email[len(email) // 4 : len(email) * 3 // 4]  # the middle half
    name_part = name[len(name) // 3 :]  # the last two thirds, across the space
    reference_part = reference[1:-1]
    venue = {
        f"venue q email part {email_part!r}": email_part,
        f"venue q name part {name_part!r}": name_part,
        f"venue q reference part {reference_part!r}": reference_part,
        "venue q no match 'zzqq'": "zzqq",
    }
    found = {label: BookingSearch(venue_id=venue_id, text=q) for label, q in venue.items()}
    found["venue (page 1, no q)"] = BookingSearch(venue_id=venue_id)
    found[f"admin q email part {email_part!r}"] = BookingSearch(text=email_part)
    found[f"admin q reference part {reference_part!r}"] = BookingSearch(text=reference_part)
    found["admin q no match 'zzqq'"] = BookingSearch(text="zzqq")
    found["venue q every customer 'example'"] = BookingSearch(venue_id=venue_id, text="example")
    found["admin q every customer 'example'"] = BookingSearch(text="example")
    return venue_id, found


def measure_database(url: str, repeats: int) -> None:
    """The bookings search on the database at ``url`` (seeded already): :func:`scale_reads`."""
    upgrade(url)
    services = bootstrap(Settings(database_url=url, rate_limit_per_minute=0))
    deps = services.deps
    staff = Staff(
        user=User(id=ADMIN_ID, email="admin@bench.example", created_at=NOW),
        roles=(StaffRole(user_id=ADMIN_ID, role=Role.ADMIN, created_at=NOW),),
    )
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            count = conn.execute(text("SELECT count(*) FROM bookings")).scalar_one()
        venue_id, searches = scale_reads(engine)
        print(f"{count} bookings; venue {venue_id}; load average {_load()}", flush=True)
        page = Page(limit=100)
        print(f"{'read':<44}{'found':>7}{'p50 ms':>10}{'p99 ms':>10}")
        slowest: tuple[float, str] = (0.0, "")
        for name, search in searches.items():
            found = len(search_bookings(deps, staff, search, page=page).items)
            p50, p99 = timed(lambda s=search: search_bookings(deps, staff, s, page=page), repeats)  # type: ignore[misc]
            print(f"{name:<44}{found:>7}{p50:>10.2f}{p99:>10.2f}", flush=True)
            slowest = max(slowest, (p99, name))
        print(f"load average {_load()}; the slowest line's plan ({slowest[1]}):", flush=True)
        print(_explained(deps, engine, staff, searches[slowest[1]], page.limit + 1))
    finally:
        engine.dispose()
        services.close()


def _explained(deps: Deps, engine: Engine, staff: Staff, search: BookingSearch, limit: int) -> str:
    """``EXPLAIN (ANALYZE, BUFFERS)`` of the statement the search's page runs, its values inlined."""
    with deps.read() as uow:
        query = staff_query(uow, staff, search)
    with Session(engine) as session:
        customers = customers_matching(session, "postgresql", query.text)
        statement = search_statement("postgresql", query, customers=customers).limit(limit)
        sql = statement.compile(engine, compile_kwargs={"literal_binds": True}).string
        plan = session.connection().exec_driver_sql(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
        return "\n".join(row[0] for row in plan)


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--history-days", type=int, default=0, help="days before the busy day, 300 bookings each"
    )
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--url", help="time the search on this seeded database instead (nothing seeded)")
    args = parser.parse_args()
    if args.url:
        measure_database(args.url, args.repeats)
        return 0
    with temporary_database() as url:
        upgrade(url)
        services = bootstrap(Settings(database_url=url, rate_limit_per_minute=0))
        deps = replace(services.deps, clock=_Fixed(NOW))
        try:
            began = time.perf_counter()
            venue_id, _ = seed(deps, url, args.history_days)
            total = (args.history_days + 1) * COURTS * len(OPEN_HOURS)
            print(f"seeded {total} bookings in {time.perf_counter() - began:.1f} s", flush=True)
            staff = Staff(
                user=User(id=ADMIN_ID, email=ADMIN_EMAIL, created_at=NOW),
                roles=(StaffRole(user_id=ADMIN_ID, role=Role.ADMIN, created_at=NOW),),
            )
            _as_after_start_up()
            print(f"{'read':<28}{'p50 ms':>10}{'p99 ms':>10}")
            for name, run in reads(deps, staff, venue_id).items():
                p50, p99 = timed(run, args.repeats)
                print(f"{name:<28}{p50:>10.2f}{p99:>10.2f}", flush=True)
            sheet = day_sheet(deps, staff, venue_id, DAY, False)
            shown = sum(len(r.bookings) for r in sheet.resources)
            print(f"day sheet: {len(sheet.resources)} courts, {shown} bookings shown", flush=True)
            logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
            with TestClient(create_app(replace(services, deps=deps))) as client:
                _as_after_start_up()
                p50, p99 = timed(lambda: _get_day(client, venue_id), args.repeats)
                print(f"{'day sheet HTTP':<28}{p50:>10.2f}{p99:>10.2f}", flush=True)
                signed_in = sign_in(client, ADMIN_EMAIL, ADMIN_PASSWORD)
                if signed_in.status_code != 303:
                    raise RuntimeError(f"console sign-in: {signed_in.status_code} {signed_in.text[:200]}")
                p50, p99 = timed(lambda: _get_console_day(client, venue_id), args.repeats)
                print(f"{'day sheet console':<28}{p50:>10.2f}{p99:>10.2f}", flush=True)
        finally:
            services.close()
    return 0


def _get_day(client: TestClient[object], venue_id: int) -> None:
    response = client.get(
        f"/api/v1/operator/venues/{venue_id}/day/",
        params={"date": DAY.isoformat()},
        headers={"Authorization": f"Token {ADMIN_TOKEN}"},
    )
    if response.status_code != 200 or len(response.content) < 1000:
        raise RuntimeError(f"day sheet over HTTP: {response.status_code} {response.text[:200]}")


def _as_after_start_up() -> None:
    """What each process of `booking serve` does once it has started (entrypoints.http.asgi.create)."""
    freeze_startup_objects()


def _get_console_day(client: TestClient[object], venue_id: int) -> None:
    response = client.get(f"/console/venues/{venue_id}/day", params={"date": DAY.isoformat()})
    if response.status_code != 200 or response.text.count('class="booking') < 200:
        raise RuntimeError(f"the console's day sheet: {response.status_code} {response.text[:200]}")


class _Fixed:
    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        return self._now


if __name__ == "__main__":
    raise SystemExit(main())
