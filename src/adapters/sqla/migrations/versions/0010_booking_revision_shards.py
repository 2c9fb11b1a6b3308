"""A resource's booking revision counted in up to 16 rows, one per server process's shard.

Until now a change to a resource's bookings moved one counter row, ``booking_revisions`` of that
resource, in the changing transaction: every booking of one resource held that row's lock from its
INSERT until its COMMIT had been flushed, so concurrent bookings of one court waited for each other
one commit at a time (a burst on a popular court when its week opens, say). Measured on the team's
performance script (one court, 32 connections), the booking's own statements on a bare async pool
ran at about 500 bookings/s with the counter and 1,000 without it.

PostgreSQL's trigger now counts in the row ``(resource_id, pg_backend_pid() % 16)``: each database
connection in its own row as long as the pids' remainders differ, so concurrent transactions rarely
meet on one. A resource's revision is the sum of its rows. It still moves with every committed
change and never repeats, as the caches of availability need: each change adds one to one row.

SQLite serializes its writers anyway; its triggers keep counting in shard 0. The counter's existing
row becomes shard 0, so no revision goes back.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

SHARDS = 16


def _postgres_function(row_key: str, conflict_on: str) -> str:
    # row_key and conflict_on are constants of this module, never input
    return f"""
CREATE OR REPLACE FUNCTION bump_booking_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO booking_revisions {row_key.format(row="OLD")}
        ON CONFLICT {conflict_on} DO UPDATE SET revision = booking_revisions.revision + 1;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.resource_id <> OLD.resource_id) THEN
        INSERT INTO booking_revisions {row_key.format(row="NEW")}
        ON CONFLICT {conflict_on} DO UPDATE SET revision = booking_revisions.revision + 1;
    END IF;
    RETURN NULL;
END
$$
"""  # noqa: S608


_SHARDED = _postgres_function(
    f"(resource_id, shard, revision) VALUES ({{row}}.resource_id, pg_backend_pid() % {SHARDS}, 1)",
    "(resource_id, shard)",
)
_SINGLE = _postgres_function("(resource_id, revision) VALUES ({row}.resource_id, 1)", "(resource_id)")


def _sqlite_triggers() -> list[str]:
    """Migration 0003's triggers: dropped while SQLite rebuilds the table, then made again."""

    def trigger(name: str, event: str, row: str, when: str = "") -> str:
        # every argument is a constant of this module, never input
        return f"""
CREATE TRIGGER bookings_bump_revision_{name} AFTER {event} ON bookings {when}
BEGIN
    INSERT OR IGNORE INTO booking_revisions (resource_id, revision) VALUES ({row}.resource_id, 0);
    UPDATE booking_revisions SET revision = revision + 1 WHERE resource_id = {row}.resource_id;
END
"""  # noqa: S608

    return [
        trigger("insert", "INSERT", "NEW"),
        trigger("delete", "DELETE", "OLD"),
        trigger("update", "UPDATE", "OLD"),
        # a booking moved to another resource changes that resource's availability as well
        trigger("move", "UPDATE OF resource_id", "NEW", "WHEN NEW.resource_id <> OLD.resource_id"),
    ]


def _rebuild_sqlite(*, sharded: bool) -> None:
    for name in ("insert", "delete", "update", "move"):
        op.execute(f"DROP TRIGGER IF EXISTS bookings_bump_revision_{name}")
    with op.batch_alter_table("booking_revisions", recreate="always") as batch:
        batch.drop_constraint("pk_booking_revisions", type_="primary")
        if sharded:
            batch.add_column(sa.Column("shard", sa.SmallInteger(), nullable=False, server_default="0"))
            batch.create_primary_key("pk_booking_revisions", ["resource_id", "shard"])
        else:
            batch.drop_column("shard")
            batch.create_primary_key("pk_booking_revisions", ["resource_id"])
    for statement in _sqlite_triggers():
        op.execute(statement)


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        _rebuild_sqlite(sharded=True)
        return
    op.add_column(
        "booking_revisions", sa.Column("shard", sa.SmallInteger(), nullable=False, server_default="0")
    )
    op.drop_constraint("pk_booking_revisions", "booking_revisions", type_="primary")
    op.create_primary_key("pk_booking_revisions", "booking_revisions", ["resource_id", "shard"])
    op.execute(_SHARDED)


def downgrade() -> None:
    # each resource's shards summed into its shard 0, so that the single counter goes on from there
    op.execute(
        "INSERT INTO booking_revisions (resource_id, shard, revision) SELECT DISTINCT resource_id, 0, 0 "
        "FROM booking_revisions WHERE shard <> 0 ON CONFLICT DO NOTHING"
    )
    op.execute(
        "UPDATE booking_revisions SET revision = (SELECT sum(r.revision) FROM booking_revisions r "
        "WHERE r.resource_id = booking_revisions.resource_id) WHERE shard = 0"
    )
    op.execute("DELETE FROM booking_revisions WHERE shard <> 0")
    if op.get_context().dialect.name != "postgresql":
        _rebuild_sqlite(sharded=False)
        return
    op.execute(_SINGLE)
    op.drop_constraint("pk_booking_revisions", "booking_revisions", type_="primary")
    op.create_primary_key("pk_booking_revisions", "booking_revisions", ["resource_id"])
    op.drop_column("booking_revisions", "shard")
