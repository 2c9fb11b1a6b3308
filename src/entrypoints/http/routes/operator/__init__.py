"""The operator API (CONTRACT 7): everything a venue's staff and the platform's operator do over HTTP.

Every path needs a staff member's token (:func:`~entrypoints.http.operator_auth.staff_required`);
each handler reads the staff member with ``provide_staff`` and hands it to the use case, which checks
the permission table (:func:`booking_core.usecases.permissions.require`) before anything else.
Each sub-module lists its handlers in ``handlers``.
"""

from __future__ import annotations

from litestar import Router

from entrypoints.http.openapi import STAFF_ONLY
from entrypoints.http.operator_auth import staff_required
from entrypoints.http.routes.operator import (
    audit,
    blocks,
    bookings,
    catalog,
    day,
    me,
    platform,
    report,
    search,
    staff,
)

router = Router(
    path="/operator",
    guards=[staff_required],
    route_handlers=[
        *me.handlers,
        *day.handlers,
        *blocks.handlers,
        *bookings.handlers,
        *report.handlers,
        *search.handlers,
        *catalog.handlers,
        *audit.handlers,
        *platform.handlers,
        *staff.handlers,
    ],
    tags=["operator"],
    security=STAFF_ONLY,
)
