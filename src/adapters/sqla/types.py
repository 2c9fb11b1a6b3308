"""Column types shared by the models."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, BindParameter, DateTime, Dialect, Numeric, literal
from sqlalchemy.types import TypeDecorator


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware instant, stored in UTC and always read back aware.

    SQLite has no timezone type and returns naive values; those are UTC by construction.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r} given where an aware instant is required")
        utc = value.astimezone(UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def Money() -> Numeric[Any]:  # noqa: N802 - reads like a type in column declarations
    """An exact amount with cents; never a float."""
    return Numeric(12, 2, asdecimal=True)


def Percent() -> Numeric[Any]:  # noqa: N802
    """A percentage with two decimals, e.g. 12.50."""
    return Numeric(5, 2, asdecimal=True)


def int64(value: int) -> BindParameter[int]:
    """A caller's integer compared with an INTEGER column, bound as BIGINT.

    PostgreSQL would otherwise be asked to cast it to INTEGER, and refuse a value beyond 32 bits;
    as BIGINT any value the API accepts (64 bits) compares, and simply finds nothing.
    """
    return literal(value, BigInteger)
