"""The floor: the least work a Litestar server can do for a JSON answer, with one database round
trip (``SELECT 1``), and with one committed write (``INSERT`` of a small row in its own transaction),
each through a psycopg 3 async pool with no ORM. ``bench_http.py`` measures the service against it.

The same app as the team's shared performance script uses, kept here so that the benchmark needs
nothing outside the project. Served by uvicorn with 2 workers (uvloop and httptools, as the service).
"""

import os
import uuid

from litestar import Litestar, get, post
from psycopg_pool import AsyncConnectionPool

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


app = Litestar([floor_json, floor_select1, floor_insert], on_startup=[open_pool], on_shutdown=[close_pool])

#: The floor's table, created by the benchmark in its throw-away database.
FLOOR_TABLE_SQL = (
    "CREATE TABLE floor_rows (id uuid PRIMARY KEY, note text NOT NULL, "
    "created_at timestamptz NOT NULL DEFAULT now())"
)
