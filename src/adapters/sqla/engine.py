"""Engines from the plain database URL of the configuration (``sqlite:///PATH`` or ``postgresql://...``)."""

from __future__ import annotations

import select
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

SQLITE_BUSY_TIMEOUT_MS = 30_000
POSTGRES_CONNECT_TIMEOUT_S = 5
READ_ONLY_OPTION = "booking_read_only"
#: The SQL function of SQLite connections that lower-cases all of Unicode, not ASCII alone.
UNICODE_LOWER = "unicode_lower"
#: A pooled connection that sat unused this long is pinged before it is handed out again.
PING_AFTER_IDLE_S = 10.0
_RETURNED_AT = "booking.returned_at"


def driver_url(url: str) -> URL:
    """``url`` with the driver this service uses: pysqlite, or psycopg 3 for PostgreSQL."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend in {"postgresql", "postgres"}:
        return parsed.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        return parsed.set(drivername="sqlite+pysqlite")
    raise ValueError(
        f"unsupported database URL scheme {parsed.drivername!r}: use sqlite:/// or postgresql://"
    )


def make_engine(url: str, *, lock_timeout_ms: int | None = None, **options: Any) -> Engine:
    """An engine for ``url``; ``options`` go to :func:`sqlalchemy.create_engine`.

    ``lock_timeout_ms`` bounds every wait for a lock (``BOOKING_DB_LOCK_TIMEOUT_MS``): PostgreSQL's
    ``lock_timeout``, set for each connection as it connects, and SQLite's busy timeout. A wait that
    runs out fails the statement, which the unit of work reports as ``StorageUnavailable``. None
    leaves PostgreSQL waiting as long as it takes and SQLite ``SQLITE_BUSY_TIMEOUT_MS``.
    """
    target = driver_url(url)
    if target.get_backend_name() == "sqlite":
        return _sqlite_engine(target, busy_timeout_ms=lock_timeout_ms or SQLITE_BUSY_TIMEOUT_MS, **options)
    ping_after_idle_s = options.pop("ping_after_idle_s", PING_AFTER_IDLE_S)
    options.setdefault("pool_size", 10)
    options.setdefault("max_overflow", 20)
    connect_args = {"connect_timeout": POSTGRES_CONNECT_TIMEOUT_S, **options.pop("connect_args", {})}
    if lock_timeout_ms is not None:
        # a server option of the connection: in force from its first statement, at no round trip
        given = connect_args.get("options") or target.query.get("options") or ""
        connect_args["options"] = f"{given} -c lock_timeout={lock_timeout_ms}".strip()
    engine = create_engine(target, connect_args=connect_args, **options)
    if not options.get("pool_pre_ping"):
        _ping_after_idle(engine, ping_after_idle_s)
    return engine


def _ping_after_idle(engine: Engine, idle_s: float) -> None:
    """Hand out a pooled connection without a round trip, unless it may have gone stale meanwhile.

    ``pool_pre_ping`` pings on every checkout: a third of the round trips of a raw availability read,
    and one more inside every booking (docs/performance.md). Under load a connection comes back to
    the pool moments before it is taken again, and a server that went away since would have been
    noticed by the request that used it: a lost connection fails that request (StorageUnavailable),
    and the pool then replaces every connection older than the failure. A connection that sat idle
    longer than ``idle_s`` (a restart or an idle timeout may have ended it quietly), that psycopg
    already knows to be closed, or whose server sent something while it sat in the pool, is pinged as
    before and replaced when it does not answer.
    """

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_RETURNED_AT] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _taken(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
        returned = record.info.get(_RETURNED_AT)  # none yet: connected just now
        if returned is None or (
            time.monotonic() - returned < idle_s
            and not dbapi_connection.closed
            and not _server_spoke(dbapi_connection)
        ):
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as error:  # whatever the driver raises, the pool connects anew (3 tries)
            raise DisconnectionError("stale pooled connection") from error
        if not alive:
            raise DisconnectionError("stale pooled connection")


def _server_spoke(dbapi_connection: Any) -> bool:
    """Whether the server sent anything to an idle connection: a terminated backend says goodbye
    (an error message, then the end of the stream), which a poll of the socket sees at no round trip.
    Nothing else is sent to these connections between transactions: they LISTEN for nothing."""
    poller = select.poll()
    poller.register(dbapi_connection.fileno(), select.POLLIN)
    return bool(poller.poll(0))


_READING_STATEMENTS = ("SELECT", "BEGIN", "ROLLBACK")


def _refuse_writes_of_readers(
    connection: Any, _cursor: Any, statement: str, _parameters: Any, _context: Any, _executemany: bool
) -> None:
    refuse_writes(statement)


def refuse_writes(statement: str) -> None:
    """Raise :class:`ReadOnlyViolation` unless ``statement`` only reads.

    A read-only unit of work runs in autocommit on PostgreSQL: a write there would be durable at
    once, whatever the caller meant. It is refused before it reaches the database.
    """
    if not statement.lstrip().upper().startswith(_READING_STATEMENTS):
        raise ReadOnlyViolation(f"a read-only unit of work cannot run {statement.split(None, 1)[0]!r}")


class ReadOnlyViolation(RuntimeError):
    """A write was attempted through a read-only unit of work (a programming error)."""


def _sqlite_engine(target: URL, *, busy_timeout_ms: int, **options: Any) -> Engine:
    database = target.database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    options.setdefault("pool_size", 20)
    options.setdefault("max_overflow", 20)
    connect_args = {"timeout": busy_timeout_ms / 1000, **options.pop("connect_args", {})}
    engine = create_engine(target, connect_args=connect_args, **options)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # SQLAlchemy's documented recipe: take BEGIN away from sqlite3 and emit it ourselves (below).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            cursor.execute("PRAGMA journal_mode=WAL")
        finally:
            cursor.close()
        # SQLite's lower() folds ASCII only; text compared without regard to case (the staff's
        # bookings search) folds as PostgreSQL's lower() does
        dbapi_connection.create_function(UNICODE_LOWER, 1, _unicode_lower, deterministic=True)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # Every writing transaction takes the write lock up front, so two processes can never both
        # read "free" and then both insert an overlapping booking; the other waits (busy_timeout).
        # Readers (read_only_engine) take a WAL snapshot instead and wait for nobody.
        read_only = connection.get_execution_options().get(READ_ONLY_OPTION, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    return engine


def _unicode_lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


def read_only_engine(engine: Engine) -> Engine:
    """``engine`` (same pool) for units of work that only read.

    PostgreSQL: autocommit, so a read costs its statements and nothing else. SQLite: a deferred
    BEGIN, which reads a snapshot without waiting for the write lock. Writes through it are refused.
    """
    if engine.dialect.name == "sqlite":
        readers = engine.execution_options(**{READ_ONLY_OPTION: True})
    else:
        readers = engine.execution_options(isolation_level="AUTOCOMMIT", **{READ_ONLY_OPTION: True})
    # On the derived engine only: its listeners see only its own connections, so the writers'
    # statements (the booking's four among them) skip the event dispatch altogether.
    event.listen(readers, "before_cursor_execute", _refuse_writes_of_readers)
    return readers


def ping(engine: Engine) -> bool:
    """True when the database answers a trivial query (for ``GET /health``)."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:
        return False
    return True
