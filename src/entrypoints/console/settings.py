"""A resource's settings (CONTRACT 8): opening hours and prices per weekday and the booking rules,
edited through the venue catalog's use cases of the operator API
(:func:`~booking_core.usecases.operator_catalog.venue_catalog` and
:func:`~booking_core.usecases.operator_catalog.replace_venue_catalog`).

The page changes the resource's part of the venue's document (``settings_form`` reads it,
``settings_document`` writes it) and sends the whole document, which the use case checks and upserts
as ``PUT /operator/venues/{id}/catalog/`` does. A bad value is shown on its field with what was typed,
nothing written; after saving, the bookings now outside the opening hours are listed for staff to
move or cancel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar import Request, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Template

from booking_core.catalog import Resource, Venue
from booking_core.errors import BadRequest, NotFound
from booking_core.staff import Action, Staff
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_catalog import CatalogSaved, replace_venue_catalog, venue_catalog
from booking_core.usecases.permissions import require
from entrypoints.console.bookings import form_of
from entrypoints.console.i18n import Formats
from entrypoints.console.new_booking import venue_of
from entrypoints.console.pages import page
from entrypoints.console.session import language, signed_in_staff
from entrypoints.console.settings_document import Problem, locate, with_settings
from entrypoints.console.settings_form import (
    COLUMNS,
    RULES,
    WEEKDAYS,
    Settings,
    kept_schedules,
    posted_settings,
    resource_in,
    stored_settings,
    written_as,
)

AnyRequest = Request[Any, Any, Any]
PATH = "/venues/{venue_id:int}/resources/{resource_id:int}/settings"


def _resource(deps: Deps, staff: Staff, venue_id: int, resource_id: int) -> tuple[Venue, Resource]:
    found = venue_of(deps, staff, venue_id)
    for resource in found.resources:
        if resource.id == resource_id:
            return found.venue, resource
    raise NotFound("Resource not found.")


def _as_stored(request: AnyRequest, stored: Mapping[str, Any]) -> Settings:
    """The stored settings, their prices written as the staff member's language writes decimals."""
    return written_as(stored_settings(stored), Formats(language(request)).decimal_field)


def _page(
    request: AnyRequest,
    deps: Deps,
    staff: Staff,
    venue_id: int,
    resource_id: int,
    settings: Settings | None = None,
    *,
    problem: Problem | None = None,
    saved: CatalogSaved | None = None,
    status: int = 200,
) -> Template:
    """The form with ``settings`` (None: as stored), the refusal ``problem`` or what ``saved`` found."""
    venue, resource = _resource(deps, staff, venue_id, resource_id)
    _index, stored = resource_in(venue_catalog(deps, staff, venue_id), resource.name)
    return page(
        request,
        "settings.html",
        staff=staff,
        venue=venue,
        resource=resource,
        tz=venue.tz,
        currency=stored.get("currency", ""),
        price_unit=stored.get("price_unit", ""),
        values=settings if settings is not None else _as_stored(request, stored),
        kept=kept_schedules(stored),
        weekdays=WEEKDAYS,
        rules=RULES,
        columns=tuple(COLUMNS),
        problem=problem,
        saved=saved,
        status=status,
    )


@get(PATH, sync_to_thread=True, name="console_resource_settings")
def settings_page(
    request: AnyRequest, deps: NamedDependency[Deps], venue_id: FromPath[int], resource_id: FromPath[int]
) -> Template:
    """The form, for those who may edit the venue's catalog (a desk is refused as the use case refuses)."""
    staff = signed_in_staff(request, deps)
    require(staff, Action.MANAGE_VENUE, venue_id)  # the permission of replace_venue_catalog, asked first
    return _page(request, deps, staff, venue_id, resource_id)


def _save(request: AnyRequest, deps: Deps, venue_id: int, resource_id: int, form: dict[str, Any]) -> Template:
    staff = signed_in_staff(request, deps)
    _venue, resource = _resource(deps, staff, venue_id, resource_id)
    posted = posted_settings(form)
    document, fields = with_settings(venue_catalog(deps, staff, venue_id), resource.name, posted)
    try:
        saved = replace_venue_catalog(deps, staff, venue_id, document)
    except BadRequest as exc:
        problem = locate(str(exc), fields)
        return _page(request, deps, staff, venue_id, resource_id, posted, problem=problem, status=400)
    return _page(request, deps, staff, venue_id, resource_id, saved=saved)


@post(PATH, status_code=200)
async def save_settings(
    request: AnyRequest, deps: NamedDependency[Deps], venue_id: FromPath[int], resource_id: FromPath[int]
) -> Template:
    """Save through the catalog's use case; the page again, with the bookings now misplaced."""
    form = await form_of(request)()
    return await sync_to_thread(_save, request, deps, venue_id, resource_id, form)


handlers = [settings_page, save_settings]
