"""Trigram indexes for the staff's text search (CONTRACT 7.4, ``q``), PostgreSQL only.

``q`` matches any part of the reference code, the customer's email or name, so the search asks
``lower(column) LIKE '%text%'``, which no B-tree answers: over the 10 million bookings of
``make bench-scale`` the search read every booking of the order index and took seconds. GIN indexes
of ``pg_trgm`` answer such a ``LIKE`` from the text's trigrams, on exactly the expressions the query
(``adapters.sqla.repositories.bookings._search``) writes:

* ``lower(bookings.reference_code)``;
* ``lower(users.email)`` and ``lower(users.first_name || ' ' || users.last_name)``.

Migration 0017 left them out, measured on a single venue's year, where the venue's own bookings are
few enough to filter; over every venue, or a text that matches nothing, they are what keeps the
search in milliseconds (docs/performance.md, "Operator reads"). ``pg_trgm`` is one of PostgreSQL's
trusted extensions (13 and later): the database's owner may create it, as ``btree_gist`` of the
first revision. SQLite has no trigram index and reads its few rows as before: nothing changes there.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

#: name -> (table, indexed expression); the models declare the same (``adapters.sqla.models``).
INDEXES = {
    "ix_bookings_reference_code_trgm": ("bookings", "lower(reference_code)"),
    "ix_users_email_trgm": ("users", "lower(email)"),
    "ix_users_name_trgm": ("users", "lower(first_name || ' ' || last_name)"),
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, (table, expression) in INDEXES.items():
        op.execute(f"CREATE INDEX {name} ON {table} USING gin (({expression}) gin_trgm_ops)")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for name in INDEXES:
        op.execute(f"DROP INDEX {name}")
