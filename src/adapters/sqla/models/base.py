"""Declarative base with stable constraint names, so migrations and models agree."""

from __future__ import annotations

from sqlalchemy import Index, MetaData, func, text
from sqlalchemy.orm import DeclarativeBase

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Base of every table of the service."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def trigram_index(name: str, text_sql: str) -> Index:
    """A GIN index of ``pg_trgm`` on ``lower(text_sql)`` (migration 0019), PostgreSQL only, for a
    table's ``__table_args__``.

    It answers ``lower(text) LIKE '%part%'``, the staff's search (CONTRACT 7.4). ``text_sql`` is
    parenthesized as PostgreSQL spells it back (``pg_get_indexdef``), so that the models compare
    equal to the migrated schema; the planner matches the query's own spelling of it all the same.
    SQLite has no such index and creates none.
    """
    lowered = func.lower(text(text_sql)).label(name)
    return Index(name, lowered, postgresql_using="gin", postgresql_ops={name: "gin_trgm_ops"}).ddl_if(
        dialect="postgresql"
    )
