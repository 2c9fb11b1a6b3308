"""A resource's data version as one statement: shared by the availability reads of a unit of work
(``repositories.availability``) and the event loop's probe (``version_probe``), so both read the
same thing."""

from __future__ import annotations

from sqlalchemy import BigInteger, bindparam, cast, func, select

from adapters.sqla import driver
from adapters.sqla.catalog_cache import revision_subquery
from adapters.sqla.models import BookingRevisionRow
from booking_core.ports import DataVersion

_BOOKING_REVISIONS = BookingRevisionRow.__table__

#: The catalog revision and the resource's booking revision (the sum of its counters, see
#: ``BookingRevisionRow``), in one row; every cached availability read runs it.
DATA_VERSION = driver.DriverStatement(
    select(
        revision_subquery(),
        select(cast(func.sum(_BOOKING_REVISIONS.c.revision), BigInteger))
        .where(_BOOKING_REVISIONS.c.resource_id == bindparam("resource_id", type_=BigInteger))
        .scalar_subquery(),
    )
)


def data_version_of(catalog: int | None, bookings: int | None) -> DataVersion | None:
    """The version :data:`DATA_VERSION`'s row stands for (no catalog revision: none can be told)."""
    return None if catalog is None else (catalog, bookings or 0)
