"""Migration 0010: a resource's booking revision counted in shards, and back, without a step back."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import Engine, MetaData, Table, inspect, text

from adapters.sqla import make_engine
from adapters.sqla.migrate import alembic_config, upgrade
from adapters.sqla.repositories.bookings._mapping import booking_values
from tests.support.bookings import NOW, USER_ID
from tests.support.bookings import make_booking as _booking
from tests.support.seed import demo_resource, seed


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest) -> str:
    found: str = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    return found


def _book(engine: Engine, start: str, end: str) -> None:
    """Insert a booking into the bookings table as the schema of the moment has it (the revision 0009
    table lacks columns today's adapter writes)."""
    with engine.begin() as connection:
        table = Table("bookings", MetaData(), autoload_with=connection)
        values = {k: v for k, v in booking_values(_booking(start, end)).items() if k in table.c}
        connection.execute(table.insert().values(**values))


def _counters(engine: Engine, columns: str = "resource_id, shard, revision") -> list[tuple[int, ...]]:
    with engine.connect() as connection:
        rows = connection.execute(text(f"SELECT {columns} FROM booking_revisions ORDER BY 1, 2"))
        return [tuple(row) for row in rows]


def test_shards_sum_into_one_counter_and_back(url: str) -> None:
    upgrade(url, "0009")
    engine = make_engine(url)
    try:
        seed(engine, demo_resource())
        with engine.begin() as connection:  # the users table of 0009, not of today's model
            connection.execute(
                text(
                    "INSERT INTO users (id, email, first_name, last_name, language, is_active, created_at)"
                    " VALUES (:id, 'a@example.com', 'A', 'S', 'de', true, :now)"
                ),
                {"id": USER_ID, "now": NOW},
            )
        _book(engine, "08:00", "09:00")
        assert _counters(engine, "resource_id, revision") == [(1, 1)]  # one counter before the shards

        upgrade(url)
        assert _counters(engine) == [(1, 0, 1)]  # the old counter is shard 0: no revision goes back
        _book(engine, "10:00", "11:00")
        taken = {shard for _, shard, _ in _counters(engine)}
        other = min(set(range(16)) - taken)  # another connection's shard (ours is our backend's pid % 16)
        with engine.begin() as connection:
            connection.execute(
                text("INSERT INTO booking_revisions (resource_id, shard, revision) VALUES (1, :shard, 5)"),
                {"shard": other},
            )
        with engine.connect() as connection:
            total = connection.execute(text("SELECT sum(revision) FROM booking_revisions")).scalar_one()
        assert total == 7

        command.downgrade(alembic_config(url), "0009")
        engine.dispose()
        assert "shard" not in {c["name"] for c in inspect(engine).get_columns("booking_revisions")}
        assert _counters(engine, "resource_id, revision") == [(1, 7)]
        _book(engine, "12:00", "13:00")  # the single counter's trigger goes on from the sum
        assert _counters(engine, "resource_id, revision") == [(1, 8)]
    finally:
        engine.dispose()
