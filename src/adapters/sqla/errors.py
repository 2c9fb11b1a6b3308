"""Translation of database errors into the domain's errors."""

from __future__ import annotations

import functools
import re
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

from adapters.sqla.models import NO_OVERLAP_CONSTRAINT
from booking_core.errors import BadRequest, DomainError, SlotUnavailable, StorageUnavailable

_EXCLUSION_VIOLATION = "23P01"
_FOREIGN_KEY_VIOLATION = "23503"
_SQLITE_UNIQUE = re.compile(r"UNIQUE constraint failed: (?P<columns>[\w., ]+)")

T = TypeVar("T")


def translate(error: SQLAlchemyError) -> DomainError | None:
    """The domain error for a database error, or None when it is a programming error to let through."""
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


def _integrity(error: IntegrityError) -> DomainError:
    sqlstate = getattr(error.orig, "sqlstate", None)
    constraint = getattr(getattr(error.orig, "diag", None), "constraint_name", None)
    if sqlstate == _EXCLUSION_VIOLATION or constraint == NO_OVERLAP_CONSTRAINT:
        return SlotUnavailable()
    if sqlstate == _FOREIGN_KEY_VIOLATION or "FOREIGN KEY" in str(error.orig):
        return BadRequest("The request refers to a record that does not exist.")
    match = _SQLITE_UNIQUE.search(str(error.orig))
    if match:
        columns = ", ".join(c.split(".")[-1] for c in match["columns"].split(", "))
        return BadRequest(f"A record with the same {columns} already exists.")
    if constraint:
        return BadRequest(f"A record conflicting with an existing one was refused ({constraint}).")
    return BadRequest("The change conflicts with data already stored.")


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
