"""Blocks: closed time placed by staff beside the catalog's unavailable periods (CONTRACT 7.3, 7.9).

``unavailable_periods`` gains ``source`` (``catalog``, which the next ``catalog load`` replaces, or
``staff``, kept until deleted), ``note``, ``created_by`` and ``created_at``. Its ``reason`` becomes
one of maintenance, holiday, event, weather, other: a catalog's free text that is none of them
moves to ``note`` and the reason reads ``other``.

A booking in a blocking state never overlaps closed time, whatever the application does: triggers
on ``bookings`` refuse a booking stored, moved or made live again (a late payment of a lapsed hold)
over an unavailable period, as the exclusion constraint refuses an overlap of bookings. A change
that does not make a booking live (cancel, pay, check in) is never refused, so a booking that a
later catalog load put inside closed time can still be paid or cancelled.

PostgreSQL: the trigger function first takes the resource FOR KEY SHARE, which waits for a block
being placed (it holds the resource FOR UPDATE), then looks with a fresh snapshot (a volatile
function's statement sees what committed meanwhile) and raises ``exclusion_violation`` (23P01),
which the adapter reports as "slot not available". A block placed after the booking took its lock
waits for the booking's commit and then finds it. SQLite has one writer at a time: a BEFORE
trigger with ``RAISE(ABORT)`` decides the same.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

REASONS = ("maintenance", "holiday", "event", "weather", "other")
#: The message both databases raise; ``adapters.sqla.errors`` recognizes it.
CLOSED_TIME = "booking_in_closed_time"
_LIVE = "('pending', 'confirmed', 'paid')"
_OVERLAPS = (
    "SELECT 1 FROM unavailable_periods u WHERE u.resource_id = NEW.resource_id "
    "AND u.start_at < NEW.end_at AND u.end_at > NEW.start_at"
)
#: An update that puts a live booking on other time, or makes a booking live that was not.
_UPDATE_WHEN = (
    f"NEW.status IN {_LIVE} AND (OLD.status NOT IN {_LIVE} OR NEW.start_at <> OLD.start_at "
    "OR NEW.end_at <> OLD.end_at OR NEW.resource_id <> OLD.resource_id)"
)

_POSTGRES_FUNCTION = f"""
CREATE OR REPLACE FUNCTION refuse_booking_in_closed_time() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    -- waits for a block being placed on the resource (FOR UPDATE); the next statement then
    -- reads with a snapshot of its own, which holds that block once it committed
    PERFORM 1 FROM resources WHERE id = NEW.resource_id FOR KEY SHARE;
    IF EXISTS ({_OVERLAPS}) THEN
        RAISE EXCEPTION '{CLOSED_TIME}' USING ERRCODE = 'exclusion_violation',
            CONSTRAINT = '{CLOSED_TIME}';
    END IF;
    RETURN NULL;
END
$$
"""

_POSTGRES_TRIGGERS = (
    f"""CREATE TRIGGER bookings_closed_time_insert AFTER INSERT ON bookings FOR EACH ROW
    WHEN (NEW.status IN {_LIVE}) EXECUTE FUNCTION refuse_booking_in_closed_time()""",
    f"""CREATE TRIGGER bookings_closed_time_update
    AFTER UPDATE OF start_at, end_at, resource_id, status ON bookings FOR EACH ROW
    WHEN ({_UPDATE_WHEN}) EXECUTE FUNCTION refuse_booking_in_closed_time()""",
)

_SQLITE_TRIGGERS = (
    f"""CREATE TRIGGER bookings_closed_time_insert BEFORE INSERT ON bookings
    WHEN NEW.status IN {_LIVE} AND EXISTS ({_OVERLAPS})
    BEGIN SELECT RAISE(ABORT, '{CLOSED_TIME}'); END""",
    f"""CREATE TRIGGER bookings_closed_time_update
    BEFORE UPDATE OF start_at, end_at, resource_id, status ON bookings
    WHEN {_UPDATE_WHEN} AND EXISTS ({_OVERLAPS})
    BEGIN SELECT RAISE(ABORT, '{CLOSED_TIME}'); END""",
)


def upgrade() -> None:
    with op.batch_alter_table("unavailable_periods") as batch:
        batch.add_column(sa.Column("source", sa.String(length=10), server_default="catalog", nullable=False))
        batch.add_column(sa.Column("note", sa.Text(), server_default="", nullable=False))
        batch.add_column(sa.Column("created_by", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_foreign_key(
            op.f("fk_unavailable_periods_created_by_users"),
            "users",
            ["created_by"],
            ["id"],
            ondelete="SET NULL",
        )
    periods = sa.table(
        "unavailable_periods",
        sa.column("reason", sa.String()),
        sa.column("note", sa.Text()),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    op.execute(
        periods.update().where(periods.c.reason.not_in(REASONS)).values(note=periods.c.reason, reason="other")
    )
    now = datetime.now(UTC)
    if op.get_context().dialect.name == "sqlite":
        now = now.replace(tzinfo=None)  # stored as UtcDateTime stores it there: naive UTC
    op.execute(periods.update().values(created_at=now))
    if op.get_context().dialect.name == "postgresql":
        op.execute(_POSTGRES_FUNCTION)
        for statement in _POSTGRES_TRIGGERS:
            op.execute(statement)
    else:
        for statement in _SQLITE_TRIGGERS:
            op.execute(statement)


def downgrade() -> None:
    postgres = op.get_context().dialect.name == "postgresql"
    for name in ("bookings_closed_time_insert", "bookings_closed_time_update"):
        op.execute(f"DROP TRIGGER IF EXISTS {name}" + (" ON bookings" if postgres else ""))
    if postgres:
        op.execute("DROP FUNCTION IF EXISTS refuse_booking_in_closed_time()")
    # staff blocks have no place in the catalog's table as it was: they go
    periods = sa.table("unavailable_periods", sa.column("source", sa.String()))
    op.execute(periods.delete().where(periods.c.source == "staff"))
    with op.batch_alter_table("unavailable_periods") as batch:
        batch.drop_constraint(op.f("fk_unavailable_periods_created_by_users"), type_="foreignkey")
        batch.drop_column("created_at")
        batch.drop_column("created_by")
        batch.drop_column("note")
        batch.drop_column("source")
