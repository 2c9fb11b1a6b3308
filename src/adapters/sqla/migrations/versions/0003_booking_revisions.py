"""Booking revisions: per resource, a counter that triggers move with every change to its bookings.

A trigger, not application code, so that no write path (the API, the worker, an operator's SQL)
can change bookings without moving the counter that availability caches trust.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_POSTGRES_FUNCTION = """
CREATE FUNCTION bump_booking_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO booking_revisions (resource_id, revision) VALUES (OLD.resource_id, 1)
        ON CONFLICT (resource_id) DO UPDATE SET revision = booking_revisions.revision + 1;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.resource_id <> OLD.resource_id) THEN
        INSERT INTO booking_revisions (resource_id, revision) VALUES (NEW.resource_id, 1)
        ON CONFLICT (resource_id) DO UPDATE SET revision = booking_revisions.revision + 1;
    END IF;
    RETURN NULL;
END
$$
"""

_POSTGRES_TRIGGER = (
    "CREATE TRIGGER bookings_bump_revision AFTER INSERT OR UPDATE OR DELETE ON bookings "
    "FOR EACH ROW EXECUTE FUNCTION bump_booking_revision()"
)


def _sqlite_trigger(event: str, row: str) -> str:
    # event and row are constants of this module, never input
    return f"""
CREATE TRIGGER bookings_bump_revision_{event.lower()} AFTER {event} ON bookings
BEGIN
    INSERT OR IGNORE INTO booking_revisions (resource_id, revision) VALUES ({row}.resource_id, 0);
    UPDATE booking_revisions SET revision = revision + 1 WHERE resource_id = {row}.resource_id;
END
"""  # noqa: S608


def upgrade() -> None:
    op.create_table(
        "booking_revisions",
        sa.Column("resource_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["resource_id"],
            ["resources.id"],
            name=op.f("fk_booking_revisions_resource_id_resources"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("resource_id", name=op.f("pk_booking_revisions")),
    )
    if op.get_context().dialect.name == "postgresql":
        op.execute(_POSTGRES_FUNCTION)
        op.execute(_POSTGRES_TRIGGER)
    else:
        op.execute(_sqlite_trigger("INSERT", "NEW"))
        op.execute(_sqlite_trigger("DELETE", "OLD"))
        op.execute(_sqlite_trigger("UPDATE", "OLD"))
        # a booking moved to another resource changes that resource's availability as well
        op.execute(
            """
CREATE TRIGGER bookings_bump_revision_move AFTER UPDATE OF resource_id ON bookings
WHEN NEW.resource_id <> OLD.resource_id
BEGIN
    INSERT OR IGNORE INTO booking_revisions (resource_id, revision) VALUES (NEW.resource_id, 0);
    UPDATE booking_revisions SET revision = revision + 1 WHERE resource_id = NEW.resource_id;
END
"""
        )


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS bookings_bump_revision ON bookings")
        op.execute("DROP FUNCTION IF EXISTS bump_booking_revision()")
    else:
        for name in ("insert", "delete", "update", "move"):
            op.execute(f"DROP TRIGGER IF EXISTS bookings_bump_revision_{name}")
    op.drop_table("booking_revisions")
