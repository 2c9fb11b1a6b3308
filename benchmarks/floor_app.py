"""The floor: the least work a Litestar server can do for a JSON answer, with one database round
trip (``SELECT 1``), and with one committed write (``INSERT`` of a small row in its own transaction),
each through a psycopg 3 async pool with no ORM. ``bench_http.py`` measures the service against it.

The same app as the team's shared performance script uses, kept here so that the benchmark needs
nothing outside the project, plus one route the shared app does not have: ``/floor/book``, the
booking floor (below). Served by uvicorn with 2 workers (uvloop and httptools, as the service).
"""

import hashlib
import os
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import msgspec
from _statements import CLAIM, PRINCIPAL, booking_values
from litestar import Litestar, Request, get, post
from litestar.exceptions import HTTPException
from psycopg_pool import AsyncConnectionPool

from booking_core.booking import Booking

DSN = os.environ["FLOOR_DATABASE_URL"]
pool = AsyncConnectionPool(DSN, min_size=4, max_size=16, open=False)


async def open_pool() -> None:
    await pool.open()


async def close_pool() -> None:
    await pool.close()


@get("/floor/json")
async def floor_json() -> dict[str, bool]:
    return {"ok": True}


@get("/floor/select1")
async def floor_select1() -> dict[str, int]:
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT 1")
        row = await cur.fetchone()
    assert row is not None
    return {"value": row[0]}


@post("/floor/insert")
async def floor_insert() -> dict[str, str]:
    new_id = uuid.uuid4()
    async with pool.connection() as conn:  # one transaction, committed on exit
        await conn.execute("INSERT INTO floor_rows (id, note) VALUES (%s, %s)", (new_id, "floor"))
    return {"id": str(new_id)}


class FloorBooking(msgspec.Struct):
    resource: int
    start_datetime: datetime
    end_datetime: datetime


_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
#: The columns every floor booking shares, as the repository writes a pending booking's (one source
#: for the table's columns); each request fills in its own id, court, times and user.
_PENDING = booking_values(
    Booking(
        id="",
        reference_code="",
        resource_id=0,
        user_id="",
        start=_EPOCH,
        end=_EPOCH + timedelta(hours=1),
        price_per_unit=Decimal("20.00"),
        total_price=Decimal("20.00"),
        created_at=_EPOCH,
        updated_at=_EPOCH,
    )
)


@post("/floor/book")
async def floor_book(request: Request[Any, Any, Any], data: FloorBooking) -> dict[str, str]:
    """The booking floor: what a ``POST /api/v1/bookings/`` asks of the database and nothing else.

    The service's own statements, compiled from its repositories (the token with the catalog
    revision, then the claim: the check with the INSERT; the user's lock is the service's), in one
    committed transaction. No rules, pricing,
    unit of work or view: the price and the hold are constants. What a booking costs beyond this
    route is the service's; what this route costs is the statements' and the stack's.
    """
    token = request.headers.get("authorization", "").removeprefix("Token ")
    now = datetime.now(UTC)
    booking = {
        **_PENDING,
        "id": str(uuid.uuid4()),
        "reference_code": secrets.token_hex(4).upper(),
        "resource_id": data.resource,
        "start_at": data.start_datetime,
        "end_at": data.end_datetime,
        "hold_expires_at": now + timedelta(minutes=15),
        "created_at": now,
        "updated_at": now,
    }
    async with pool.connection() as conn:  # one transaction, committed on exit
        cursor = await conn.execute(
            PRINCIPAL.sql, PRINCIPAL.params({"token_hash": hashlib.sha256(token.encode()).hexdigest()})
        )
        found = await cursor.fetchone()
        if found is None:
            raise HTTPException(status_code=401)
        booking["user_id"] = found[0]
        claim = {
            **booking,
            "start": data.start_datetime,
            "end": data.end_datetime,
            "now": now,
            "holder": None,
        }
        cursor = await conn.execute(CLAIM.sql, CLAIM.params(claim))
        stored = any(row[1] is None for row in await cursor.fetchall())  # the INSERT's row: its id alone
    if not stored:
        raise HTTPException(status_code=409)
    return {"id": str(booking["id"]), "status": "pending"}


app = Litestar(
    [floor_json, floor_select1, floor_insert, floor_book], on_startup=[open_pool], on_shutdown=[close_pool]
)

#: The floor's table, created by the benchmark in its throw-away database.
FLOOR_TABLE_SQL = (
    "CREATE TABLE floor_rows (id uuid PRIMARY KEY, note text NOT NULL, "
    "created_at timestamptz NOT NULL DEFAULT now())"
)
