"""The availability reads on SQL: the data version's own statement, the data from the repositories."""

from __future__ import annotations

import builtins
from datetime import datetime

from sqlalchemy.orm import Session

from adapters.sqla import driver
from adapters.sqla.data_version import DATA_VERSION, data_version_of
from adapters.sqla.errors import translate_errors
from booking_core.availability import BookedSlot
from booking_core.catalog import Resource
from booking_core.ports import Bookings, DataVersion, Resources
from booking_core.timerange import TimeRange


@translate_errors
class SqlaAvailabilityReads:
    """:class:`~booking_core.ports.AvailabilityReads` in one session: the version is
    :data:`~adapters.sqla.data_version.DATA_VERSION`, the data is what the repositories read."""

    def __init__(self, session: Session, resources: Resources, bookings: Bookings) -> None:
        self._session = session
        self._resources = resources
        self._bookings = bookings

    def version(self, resource_id: int) -> DataVersion | None:
        ((catalog, bookings),) = driver.execute(self._session, DATA_VERSION, {"resource_id": resource_id})
        return data_version_of(catalog, bookings)

    def resource(self, resource_id: int) -> Resource | None:
        return self._resources.get(resource_id)

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        return self._bookings.blocked_slots(resource_id, span, now)

    def live_spans(self, resource_id: int, span: TimeRange) -> builtins.list[TimeRange]:
        return self._bookings.live_spans(resource_id, span)
