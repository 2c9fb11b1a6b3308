"""Venue staff and the audit log (CONTRACT 7.1, 7.6); who made a booking and how it is paid.

``staff_roles`` holds one row per role a user holds (``admin`` without a venue, ``manager`` and
``desk`` at one venue each). ``audit_log`` holds one row per object an operator action changed,
written in the action's transaction and never updated.

Bookings gain ``source`` (``online``, ``client`` or ``staff``; existing bookings made through a
client become ``client``), ``payment_method`` (``online`` for every existing booking) and
``checked_in_at``.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "staff_roles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "(role = 'admin' AND venue_id IS NULL) OR (role IN ('manager', 'desk') AND venue_id IS NOT NULL)",
            name=op.f("ck_staff_roles_role_venue"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_staff_roles_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["venue_id"], ["venues.id"], name=op.f("fk_staff_roles_venue_id_venues"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_staff_roles")),
    )
    # one row per (user, role, venue); an admin's venue is NULL, which a plain unique constraint
    # would not compare, hence the COALESCE
    op.create_index(
        "uq_staff_roles_user_role_venue",
        "staff_roles",
        ["user_id", "role", sa.text("coalesce(venue_id, 0)")],
        unique=True,
    )
    op.create_index(op.f("ix_staff_roles_venue_id"), "staff_roles", ["venue_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor_user_id", sa.String(length=36), nullable=True),
        sa.Column("actor_email", sa.String(length=254), nullable=True),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=True),
        sa.Column("object_type", sa.String(length=40), nullable=False),
        sa.Column("object_id", sa.String(length=64), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index("ix_audit_log_venue_id_at", "audit_log", ["venue_id", "at", "id"])
    op.create_index("ix_audit_log_at", "audit_log", ["at", "id"])
    op.create_index("ix_audit_log_object_id", "audit_log", ["object_id"])
    with op.batch_alter_table("bookings", recreate="never") as batch:
        batch.add_column(sa.Column("source", sa.String(length=10), server_default="online", nullable=False))
        batch.add_column(
            sa.Column("payment_method", sa.String(length=20), server_default="online", nullable=False)
        )
        batch.add_column(sa.Column("checked_in_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE bookings SET source = 'client' WHERE client_id IS NOT NULL")


def downgrade() -> None:
    op.drop_column("bookings", "checked_in_at")
    op.drop_column("bookings", "payment_method")
    op.drop_column("bookings", "source")
    op.drop_table("audit_log")
    op.drop_table("staff_roles")
