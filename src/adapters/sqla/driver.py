"""The hot statements, run straight on psycopg's connection on PostgreSQL.

Creating a booking runs two statements in its transaction (the token with the catalog revision, then
the check with the INSERT; a plain INSERT after a lapsed hold is expired), and a cached availability
read one (the data version). For each, SQLAlchemy's execution layer
(an execution context, the result's wrapping, per-row processors) costs more Python than psycopg's
own work: measured with callgrind, going past it cuts the Python of a ``POST /bookings/`` by about a
fifth. The statements are still built with SQLAlchemy, next to the repositories that use them, and
compiled once; they run on the connection the session's transaction holds, and a driver error is
raised as SQLAlchemy would raise it, so ``translate_errors`` and the pool's disconnect handling work
as for any other statement. On SQLite :func:`execute` runs the same statements through SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql import ClauseElement

from adapters.sqla.engine import READ_ONLY_OPTION, refuse_writes

_DIALECT = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]


class DriverStatement:
    """A SQLAlchemy statement compiled once for psycopg, with the values it binds itself."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement  # as SQLAlchemy runs it on the other databases (see execute)
        compiled = statement.compile(dialect=_DIALECT)
        self.sql = str(compiled)
        # known up front: asking the cursor (its description) builds column objects every time
        self.returns_rows = not getattr(statement, "is_dml", False) or bool(
            getattr(statement, "_returning", ())
        )
        # literal values the statement carries (say, the catalog revision row's id)
        self._own = {key: value for key, value in compiled.params.items() if value is not None}

    def params(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """``given`` with the statement's own values, refusing naive datetimes as ``UtcDateTime`` does."""
        for key, value in given.items():
            if isinstance(value, datetime) and value.tzinfo is None:
                raise ValueError(
                    f"naive datetime {value!r} given for {key!r} where an aware instant is required"
                )
        return {**self._own, **given}


def run(session: Session, statement: DriverStatement, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Execute ``statement`` in the session's transaction; its rows (none for a plain INSERT)."""
    return run_in_turn(session, [(statement, params)])[0]


def run_in_turn(
    session: Session, steps: Sequence[tuple[DriverStatement, Mapping[str, Any]]]
) -> list[list[tuple[Any, ...]]]:
    """Execute ``steps`` in the session's transaction, one after another; the rows of each.

    More than one are sent together (psycopg's pipeline): the server starts each as soon as the one
    before it ends, without a round trip to the client between them, so a lock taken by one is held
    for no longer than the statements after it need. Each still reads the data as it is when it
    starts. When one fails, those after it do not run.
    """
    connection = session.connection()
    dbapi_connection = connection.connection.dbapi_connection
    if dbapi_connection is None:  # pragma: no cover - a checked-out connection always has one
        raise RuntimeError("the session's connection has no driver connection")
    read_only = connection.get_execution_options().get(READ_ONLY_OPTION)
    sent = [(statement, statement.params(params)) for statement, params in steps]
    cursors = [dbapi_connection.cursor() for _ in sent]
    try:
        with dbapi_connection.pipeline() if len(sent) > 1 else nullcontext():
            for cursor, (statement, values) in zip(cursors, sent, strict=True):
                if read_only:
                    refuse_writes(statement.sql)  # as the read-only engine's listener, which this path skips
                cursor.execute(statement.sql, values)
        return [
            list(cursor.fetchall()) if statement.returns_rows else []
            for cursor, (statement, _) in zip(cursors, sent, strict=True)
        ]
    except connection.dialect.loaded_dbapi.Error as error:
        gone = connection.dialect.is_disconnect(error, dbapi_connection, cursors[-1])
        if gone:
            connection.invalidate(error)
        raise DBAPIError.instance(
            "; ".join(statement.sql for statement, _ in sent),
            [values for _, values in sent],
            error,
            connection.dialect.loaded_dbapi.Error,
            connection_invalidated=gone,
            dialect=connection.dialect,
        ) from error
    finally:
        for cursor in cursors:
            cursor.close()


def execute(
    session: Session, statement: DriverStatement, params: Mapping[str, Any]
) -> Sequence[Sequence[Any]]:
    """:func:`run` on PostgreSQL; on the other databases the same statement through SQLAlchemy."""
    if session.get_bind().dialect.name == "postgresql":
        return run(session, statement, params)
    result = session.connection().execute(statement.statement, params)
    return result.all() if statement.returns_rows else []


def utc(value: datetime) -> datetime:
    """A ``timestamptz`` as ``UtcDateTime`` reads it: aware, in UTC."""
    return value.astimezone(UTC)


def utc_or_none(value: datetime | None) -> datetime | None:
    """:func:`utc` of a nullable column."""
    return value.astimezone(UTC) if value is not None else None
