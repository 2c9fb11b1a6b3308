"""Translation of database errors into the domain's errors."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)

from adapters.sqla.models import CLOSED_TIME_GUARD, NO_OVERLAP_CONSTRAINT
from booking_core.errors import (
    BadRequest,
    DomainError,
    SlotUnavailable,
    StorageUnavailable,
    TransientConflict,
)

_EXCLUSION_VIOLATION = "23P01"
_FOREIGN_KEY_VIOLATION = "23503"
_DEADLOCK_DETECTED = "40P01"
#: PostgreSQL: serialization_failure, deadlock_detected.
_TRANSIENT_SQLSTATES = frozenset({"40001", _DEADLOCK_DETECTED})
#: PostgreSQL: lock_not_available, what ``lock_timeout`` raises.
_LOCK_TIMEOUT_SQLSTATE = "55P03"
#: SQLite primary result codes: SQLITE_BUSY, SQLITE_LOCKED (extended codes carry them in the low byte).
_SQLITE_BUSY_CODES = frozenset({5, 6})
#: SQLite: plain SQLITE_BUSY is what a writer gets once the busy timeout ran out waiting for the lock.
_SQLITE_BUSY_TIMED_OUT = 5

T = TypeVar("T")


def translate(error: SQLAlchemyError) -> DomainError | None:
    """The domain error for a database error, or None when it is a programming error to let through.

    No message names a table, a column or a constraint: those are the database's business. A lock
    waited for longer than the lock timeout (``BOOKING_DB_LOCK_TIMEOUT_MS``) is storage that is
    unavailable, not a conflict to run again: the request has waited as long as it may.
    """
    if _lock_timed_out(error):
        return StorageUnavailable("A lock was held longer than the lock timeout; please retry.")
    if _transient(error):
        if getattr(getattr(error, "orig", None), "sqlstate", None) == _DEADLOCK_DETECTED:
            return TransientConflict("A deadlock with a concurrent transaction; please retry.")
        return TransientConflict("A concurrent change got in the way; please retry.")
    if isinstance(error, IntegrityError):
        return _integrity(error)
    if isinstance(error, DataError):
        # a value the column cannot hold (out of range, NUL byte, bad encoding): the caller's input
        return BadRequest("A value in the request cannot be stored (out of range or malformed).")
    if isinstance(error, OperationalError | InterfaceError):
        return StorageUnavailable("The database is unavailable; please retry later.")
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return StorageUnavailable("The database connection was lost; please retry later.")
    return None


def _lock_timed_out(error: SQLAlchemyError) -> bool:
    orig = getattr(error, "orig", None)
    if getattr(orig, "sqlstate", None) == _LOCK_TIMEOUT_SQLSTATE:
        return True
    return (
        isinstance(error, OperationalError)
        and getattr(orig, "sqlite_errorcode", None) == _SQLITE_BUSY_TIMED_OUT
    )


def _transient(error: SQLAlchemyError) -> bool:
    """A conflict with a concurrent transaction, which the same work, run again, gets past."""
    orig = getattr(error, "orig", None)
    if getattr(orig, "sqlstate", None) in _TRANSIENT_SQLSTATES:
        return True
    code = getattr(orig, "sqlite_errorcode", None)
    return isinstance(error, OperationalError) and code is not None and code & 0xFF in _SQLITE_BUSY_CODES


def _integrity(error: IntegrityError) -> DomainError:
    sqlstate = getattr(error.orig, "sqlstate", None)
    constraint = getattr(getattr(error.orig, "diag", None), "constraint_name", None)
    if sqlstate == _EXCLUSION_VIOLATION or constraint == NO_OVERLAP_CONSTRAINT:
        return SlotUnavailable()
    if CLOSED_TIME_GUARD in str(error.orig):  # SQLite's trigger: RAISE(ABORT) names only the guard
        return SlotUnavailable()
    if sqlstate == _FOREIGN_KEY_VIOLATION or "FOREIGN KEY" in str(error.orig):
        return BadRequest("The request refers to a record that does not exist.")
    return BadRequest("The request conflicts with data already stored.")


@contextmanager
def translated() -> Iterator[None]:
    """Raise database errors inside the block as domain errors (chained to the original)."""
    try:
        yield
    except SQLAlchemyError as error:
        _raise_translated(error)


def _raise_translated(error: SQLAlchemyError) -> NoReturn:
    domain = translate(error)
    if domain is None:
        raise error
    raise domain from error


def translate_errors(cls: type[T]) -> type[T]:
    """Class decorator: every public method of a repository raises domain errors only."""
    for name, attribute in list(vars(cls).items()):
        if callable(attribute) and not name.startswith("_"):
            setattr(cls, name, _wrap(attribute))
    return cls


def _wrap(method: Callable[..., Any]) -> Callable[..., Any]:
    # ``translated()`` spelled out: a generator-based context manager costs more than the hot
    # repository calls it would wrap
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except SQLAlchemyError as error:
            _raise_translated(error)

    return wrapper
