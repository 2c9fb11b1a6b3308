"""The venue's catalog (CONTRACT 7.5): ``GET``/``PUT /operator/venues/{id}/catalog/`` and
``POST /operator/venues/``.

The body is one venue in the catalog file's shape (an entry of the file's ``venues:``, as JSON) and
is checked by the catalog's own validation: a bad key answers 400 ``{"error": "<path>: <message>"}``
with the path read from the venue (``resources[1].booking_interval_minutes: ...``).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post, put
from litestar.di import NamedDependency
from litestar.params import JSONBody

from booking_core.usecases import operator_catalog
from booking_core.usecases.deps import Deps
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS, OPERATOR_WRITE_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.structs.fields import PathId
from entrypoints.http.structs.operator_admin import CatalogSavedOut


@get("/venues/{venue_id:str}/catalog/", sync_to_thread=True, responses=OPERATOR_READ_ANSWERS)
def venue_catalog(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], venue_id: PathId
) -> dict[str, Any]:
    """The venue in the catalog file's shape, with its resources, schedules and catalog closures."""
    return dict(operator_catalog.venue_catalog(deps, provide_staff(request), venue_id))


@put(
    "/venues/{venue_id:str}/catalog/", sync_to_thread=True, status_code=200, responses=OPERATOR_WRITE_ANSWERS
)
def replace_catalog(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue_id: PathId,
    data: JSONBody[dict[str, Any]],
) -> CatalogSavedOut:
    """Upsert the venue from the body (manager, admin) as ``booking catalog load`` does; bookings
    stay as they are, and those now misplaced are listed in ``conflicts``."""
    saved = operator_catalog.replace_venue_catalog(deps, provide_staff(request), venue_id, data)
    return CatalogSavedOut.of(saved)


@post("/venues/", sync_to_thread=True, status_code=201, responses=OPERATOR_WRITE_ANSWERS)
def create_venue(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], data: JSONBody[dict[str, Any]]
) -> CatalogSavedOut:
    """Create a venue from the body (admin); a slug in use is a 400 naming ``slug``."""
    return CatalogSavedOut.of(operator_catalog.create_venue(deps, provide_staff(request), data))


handlers = [venue_catalog, replace_catalog, create_venue]
