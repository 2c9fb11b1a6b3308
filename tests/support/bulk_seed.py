"""Fill a migrated PostgreSQL database with a platform's worth of data, quickly, for `make bench-scale`.

Every row is made by PostgreSQL itself (``INSERT ... SELECT FROM generate_series``): nothing crosses
the wire, which beats even COPY, and every row goes through the real schema of ``alembic upgrade``
(its types, checks, unique indexes and the double-booking exclusion constraint). Only the per-row
triggers (the booking-revision counter and the foreign-key checks) are off during the load
(``session_replication_role = replica``): the references are valid by construction, and the
revision counters are set once at the end.

Sizes come from the environment (defaults: the issue's platform):

    SCALE_VENUES=2000 SCALE_RESOURCES=20000 SCALE_BOOKINGS=10000000 SCALE_USERS=200000
    SCALE_CLIENTS=50 SCALE_MAPPINGS=1000000

The bookings span three years (two past, one ahead) in every status; each resource's bookings
never overlap. One "heavy" user and one "heavy" client (the benchmark's own, found by email and
name) get a large share: every 500th booking is the heavy user's, every 10th is made through the
heavy client, two more in ten through the other clients. Paid, completed and refunded bookings
made through a client have their commission record.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from typing import Any

import psycopg

log = logging.getLogger(__name__)

CHUNK = 1_000_000
USER_EMAIL, USER_TOKEN = "bench@example.com", "bench-user-token"
CLIENT_NAME, CLIENT_TOKEN = "Bench Partner", "bench-client-token"
BOOKED_COURTS = 8
SPAN_HOURS = 3 * 365 * 24


def catalog() -> dict[str, object]:
    """The catalog the bulk rows hang on: bench-http's (Court A for availability, B1..B8 for booking) and a client."""
    all_day = [{"start_time": "00:00:00", "end_time": "00:00:00", "price_per_unit": "20.00"}]
    resource = {
        "capacity": 4, "base_price": "20.00", "currency": "EUR", "price_unit": "hour",
        "booking_interval_minutes": 60, "min_booking_duration_minutes": 60, "max_booking_duration_minutes": 120,
        "prevent_unbookable_gaps": False, "max_advance_booking_days": 365,
        "schedules": [{"day_of_week": d, "time_slots": all_day} for d in range(1, 8)],
    }  # fmt: skip
    venue = {
        "slug": "bench", "name": "Bench Arena", "venue_type": "sports_hall", "street_address": "Benchstrasse 1",
        "city": "Berlin", "postal_code": "10115", "country": "DE", "latitude": "52.52", "longitude": "13.40",
        "timezone": "Europe/Berlin", "operator_email": "ops@bench.example",
        "resources": [{"name": "Court A", **resource}]
        + [{"name": f"Court B{n}", **resource} for n in range(1, BOOKED_COURTS + 1)],
    }  # fmt: skip
    return {
        "venues": [venue],
        "users": [{"email": USER_EMAIL, "first_name": "Ben", "last_name": "Ch", "token": USER_TOKEN}],
        "clients": [
            {"name": CLIENT_NAME, "commission_percent": "10.00", "contact_email": "f@bench.example",
             "token": CLIENT_TOKEN}
        ],
    }  # fmt: skip


@dataclass(frozen=True)
class Sizes:
    venues: int = 2_000
    resources: int = 20_000
    bookings: int = 10_000_000
    users: int = 200_000
    clients: int = 50
    mappings: int = 1_000_000

    @classmethod
    def from_env(cls) -> Sizes:
        d = cls()
        return cls(
            **{f: int(os.environ.get(f"SCALE_{f.upper()}", getattr(d, f))) for f in d.__dataclass_fields__}
        )


def _one(conn: psycopg.Connection[Any], sql: str, *params: object) -> Any:
    row = conn.execute(sql, list(params)).fetchone()
    if row is None:
        raise LookupError(f"nothing found: {sql} {params}")
    return row[0]


def _say(message: str) -> None:
    log.info("%s %s", time.strftime("%H:%M:%S"), message)


def seed(
    url: str, sizes: Sizes, *, heavy_user_email: str = USER_EMAIL, heavy_client_name: str = CLIENT_NAME
) -> float:
    """Add ``sizes`` worth of rows to the migrated database at ``url``; the seconds it took."""
    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("SET maintenance_work_mem = '256MB'")
        heavy_user = _one(conn, "SELECT id FROM users WHERE email = %s", heavy_user_email)
        heavy_client = _one(conn, "SELECT id FROM clients WHERE name = %s", heavy_client_name)
        _catalog(conn, sizes)
        _accounts(conn, sizes)
        _bookings(conn, sizes, heavy_user, heavy_client)
        _mappings(conn, sizes, heavy_client)
        _catalog_mappings(conn, heavy_client)
        _say("commissions of paid, completed and refunded client bookings ...")
        conn.execute(_COMMISSIONS)
        conn.execute("""INSERT INTO booking_revisions (resource_id, shard, revision)
               SELECT id, 0, 1 FROM resources
               ON CONFLICT (resource_id, shard) DO UPDATE SET revision = booking_revisions.revision + 1""")
        conn.execute("UPDATE catalog_revision SET revision = revision + 1")
        _say("ANALYZE ...")
        conn.execute("ANALYZE")
    return time.perf_counter() - started


def _catalog(conn: psycopg.Connection[Any], s: Sizes) -> None:
    execute = conn.execute
    _say(f"{s.venues} venues, {s.resources} resources with their weekly schedules ...")
    execute(
        """INSERT INTO venues (slug, name, description, short_description, venue_type, street_address, city,
               postal_code, country, latitude, longitude, timezone, operator_email, is_active, is_published,
               created_at, updated_at)
           SELECT 'scale-' || n, 'Scale Venue ' || n, '', '', 'tennis_club', 'Street ' || n, 'Berlin', '10115', 'DE',
               52.5, 13.4, 'Europe/Berlin', 'ops' || n || '@scale.example', true, true, now(), now()
           FROM generate_series(1, %s::int) AS n""",
        [s.venues],
    )
    execute(
        """INSERT INTO resources (venue_id, name, description, capacity, base_price, currency, price_unit,
               booking_interval_minutes, min_booking_duration_minutes, max_booking_duration_minutes,
               prevent_unbookable_gaps, min_advance_booking_minutes, max_advance_booking_days,
               cancellation_deadline_hours, is_active, is_bookable, attributes, dynamic_pricing_enabled,
               created_at, updated_at)
           SELECT v.ids[1 + (n - 1) %% array_length(v.ids, 1)], 'Court ' || n, '', 4, 20.00, 'EUR', 'hour',
               60, 60, 120, false, 0, 365, 0, true, true, '{}', false, now(), now()
           FROM generate_series(1, %s::int) AS n,
                (SELECT array_agg(id ORDER BY id) AS ids FROM venues WHERE slug LIKE 'scale-%%') AS v""",
        [s.resources],
    )
    execute(
        """INSERT INTO schedules (resource_id, day_of_week, priority, is_active)
           SELECT r.id, d, 0, true FROM resources r JOIN venues v ON v.id = r.venue_id AND v.slug LIKE 'scale-%%',
               generate_series(1, 7) AS d"""
    )
    execute(
        """INSERT INTO time_slots (schedule_id, start_time, end_time, price_per_unit, pricing_unit,
               slot_duration_minutes, label, is_bookable)
           SELECT s.id, '00:00', '00:00', 20.00, 'hour', 60, '', true FROM schedules s
           JOIN resources r ON r.id = s.resource_id JOIN venues v ON v.id = r.venue_id AND v.slug LIKE 'scale-%%'"""
    )


def _accounts(conn: psycopg.Connection[Any], s: Sizes) -> None:
    execute = conn.execute
    _say(f"{s.users} users, {s.clients} clients ...")
    execute(
        """INSERT INTO users (id, email, first_name, last_name, language, is_active, created_at)
           SELECT gen_random_uuid()::text, 'scale-' || n || '@example.com', 'User', 'No ' || n,
               CASE WHEN n %% 3 = 0 THEN 'en' ELSE 'de' END, true, now() - interval '3 years'
           FROM generate_series(1, %s::int) AS n""",
        [s.users],
    )
    execute(
        """INSERT INTO clients (name, commission_percent, contact_email, is_active, created_at)
           SELECT 'Scale Client ' || n, 10.00, 'finance' || n || '@scale.example', true, now() - interval '3 years'
           FROM generate_series(1, %s::int) AS n""",
        [max(s.clients - 1, 0)],
    )


# One statement per chunk of booking numbers n. Resource r_n = n mod R, its k-th booking at
# k * step hours (plus an offset per resource), two hours long: a resource's bookings never overlap.
_BOOKINGS = """
WITH b AS (
       SELECT n,
         r.id AS resource_id,
         CASE WHEN n %% 500 = 0 THEN %(heavy_user)s ELSE u.id END AS user_id,
         CASE WHEN n %% 10 = 1 THEN %(heavy_client)s WHEN n %% 10 IN (2, 3) THEN c.id END AS client_id,
         date_trunc('hour', now()) - interval '2 years'
           + make_interval(hours => ((n / %(resources)s) * %(step)s + n %% 12)::int) AS start_at
       FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n
       JOIN seed_resources r ON r.k = n %% %(resources)s
       JOIN seed_users u ON u.k = (n * 31) %% %(users)s
       LEFT JOIN seed_clients c ON c.k = (n / 10) %% %(clients)s
     ),
     s AS (
       SELECT b.*, b.start_at + interval '2 hours' AS end_at,
         CASE WHEN b.start_at < now() THEN
                (ARRAY['completed','completed','completed','completed','completed','completed','completed',
                       'completed','completed','completed','completed','completed','completed','completed',
                       'cancelled','cancelled','cancelled','refunded','no_show','completed'])[1 + n %% 20]
              ELSE (ARRAY['paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid',
                          'confirmed','confirmed','confirmed','pending','cancelled','cancelled','cancelled',
                          'cancelled'])[1 + n %% 20]
         END AS status
       FROM b
     )
INSERT INTO bookings (id, reference_code, resource_id, user_id, client_id, start_at, end_at, participant_count,
    price_per_unit, pricing_unit, total_price, currency, status, notes, cancellation_reason, cancellation_notes,
    hold_expires_at, confirmed_at, paid_at, cancelled_at, refunded_at, created_at, updated_at)
SELECT gen_random_uuid()::text, 'S' || lpad(upper(to_hex(n)), 7, '0'), resource_id, user_id, client_id,
    start_at, end_at, 1, 20.00, 'hour', 40.00, 'EUR', status, '',
    CASE WHEN status = 'cancelled' THEN 'user_request' END, '',
    CASE WHEN status = 'pending' THEN now() + interval '10 minutes' END,
    CASE WHEN status = 'confirmed' THEN start_at - interval '6 days' END,
    CASE WHEN status IN ('paid', 'completed', 'refunded', 'no_show') THEN start_at - interval '6 days' END,
    CASE WHEN status IN ('cancelled', 'refunded') THEN start_at - interval '2 days' END,
    CASE WHEN status = 'refunded' THEN start_at - interval '1 day' END,
    start_at - interval '7 days', start_at - interval '1 day'
FROM s
"""


def _numbered(conn: psycopg.Connection[Any]) -> tuple[int, int, int]:
    """Temporary tables numbering the seeded resources, users and clients from 0, for joins by number
    (an array of 200,000 ids would be copied whole at every subscript)."""
    sql = {
        "seed_resources": "SELECT r.id FROM resources r JOIN venues v ON v.id = r.venue_id AND v.slug LIKE 'scale-%%'",
        "seed_users": "SELECT id FROM users WHERE email LIKE 'scale-%%'",
        "seed_clients": "SELECT id FROM clients WHERE name LIKE 'Scale Client %%'",
    }
    execute = conn.execute
    counts = []
    for table, query in sql.items():
        execute(f"DROP TABLE IF EXISTS {table}")
        execute(
            f"CREATE TEMP TABLE {table} AS SELECT row_number() OVER (ORDER BY id) - 1 AS k, id FROM ({query}) q"
        )
        execute(f"ALTER TABLE {table} ADD PRIMARY KEY (k)")
        counts.append(_one(conn, f"SELECT count(*) FROM {table}"))
    return counts[0], counts[1], max(counts[2], 1)


def _bookings(conn: psycopg.Connection[Any], s: Sizes, heavy_user: str, heavy_client: int) -> None:
    execute = conn.execute
    resources, users, clients = _numbered(conn)
    per_resource = -(-s.bookings // max(s.resources, 1))
    step = max(SPAN_HOURS // max(per_resource, 1), 3)
    for first in range(0, s.bookings, CHUNK):
        last = min(first + CHUNK, s.bookings) - 1
        t0 = time.perf_counter()
        execute(
            _BOOKINGS,
            {
                "first": first,
                "last": last,
                "step": step,
                "heavy_user": heavy_user,
                "heavy_client": heavy_client,
                "resources": resources,
                "users": users,
                "clients": clients,
            },
        )
        _say(f"bookings {last + 1:,} of {s.bookings:,} ({time.perf_counter() - t0:.0f} s for this chunk)")


def _mappings(conn: psycopg.Connection[Any], s: Sizes, heavy_client: int) -> None:
    """A fifth of the user mappings are the heavy client's; the rest spread over the other clients."""
    execute = conn.execute
    _say(f"{s.mappings:,} user mappings ...")
    heavy = s.mappings // 5
    execute(
        """INSERT INTO user_mappings (id, client_id, external_id, user_id, is_active, created_at)
           SELECT gen_random_uuid()::text, %(client)s, 'ext-' || n, u.id, true,
               now() - interval '2 years' + make_interval(secs => n)
           FROM generate_series(0, %(count)s::int - 1) AS n JOIN seed_users u ON u.k = n""",
        {"client": heavy_client, "count": min(heavy, s.users)},
    )
    clients = _one(conn, "SELECT count(*) FROM seed_clients")
    users = _one(conn, "SELECT count(*) FROM seed_users")
    if clients:
        execute(
            """INSERT INTO user_mappings (id, client_id, external_id, user_id, is_active, created_at)
               SELECT gen_random_uuid()::text, c.id, 'ext-' || n, u.id, true,
                   now() - interval '2 years' + make_interval(secs => n)
               FROM generate_series(0, %(count)s::int - 1) AS n
               JOIN seed_clients c ON c.k = n %% %(clients)s
               JOIN seed_users u ON u.k = (n / %(clients)s) %% %(users)s""",
            {"count": s.mappings - min(heavy, s.users), "clients": clients, "users": users},
        )


def _catalog_mappings(conn: psycopg.Connection[Any], heavy_client: int) -> None:
    """The heavy client maps every venue and resource; every other client maps every venue and a
    share of the resources (each resource once more), so both lists are large enough to matter."""
    execute = conn.execute
    _say("resource and venue mappings ...")
    execute(
        """INSERT INTO resource_mappings (id, client_id, external_id, resource_id, external_data, is_active, created_at)
           SELECT gen_random_uuid()::text, %(client)s, 'res-' || r.k, r.id, '{}', true,
               now() - interval '2 years' + make_interval(secs => r.k::int)
           FROM seed_resources r""",
        {"client": heavy_client},
    )
    execute(
        """INSERT INTO resource_mappings (id, client_id, external_id, resource_id, external_data, is_active, created_at)
           SELECT gen_random_uuid()::text, c.id, 'res-' || r.k, r.id, '{}', true,
               now() - interval '2 years' + make_interval(secs => r.k::int)
           FROM seed_resources r
           JOIN seed_clients c ON c.k = r.k % (SELECT greatest(count(*), 1) FROM seed_clients)"""
    )
    execute(
        """INSERT INTO venue_mappings (id, client_id, external_id, venue_id, external_data, is_active,
               approval_status, created_at)
           SELECT gen_random_uuid()::text, c.id, 'venue-' || v.id, v.id, '{}', true,
               CASE WHEN v.id %% 7 = 0 THEN 'pending' ELSE 'approved' END, now() - interval '2 years'
           FROM venues v, (SELECT id FROM seed_clients UNION ALL SELECT %(client)s) c
           WHERE v.slug LIKE 'scale-%%'""",
        {"client": heavy_client},
    )


_COMMISSIONS = """
INSERT INTO commissions (id, booking_id, reference_code, client_id, base_amount, commission_percent, amount,
    currency, month, status, created_at)
SELECT gen_random_uuid()::text, b.id, b.reference_code, b.client_id, b.total_price, 10.00, 4.00, b.currency,
    to_char(b.paid_at AT TIME ZONE 'Europe/Berlin', 'YYYY-MM'),
    CASE WHEN b.status = 'refunded' THEN 'reversed'
         WHEN b.paid_at < date_trunc('month', now()) - interval '1 month' THEN 'paid_out' ELSE 'open' END,
    b.paid_at
FROM bookings b
WHERE b.client_id IS NOT NULL AND b.status IN ('paid', 'completed', 'refunded') AND b.reference_code LIKE 'S%'
"""
