"""``GET /api/v1/``: where a partner starts reading (and the cheapest JSON endpoint we serve)."""

from __future__ import annotations

import msgspec
from litestar import get

from entrypoints.http.openapi import API_INDEX_ANSWERS


class ApiIndex(msgspec.Struct, kw_only=True):
    """The API version and its top-level collections."""

    version: str
    resources: str
    bookings: str
    client: str
    schema: str


@get("/", sync_to_thread=False, tags=["operations"], responses=API_INDEX_ANSWERS)
def api_index() -> ApiIndex:
    """The version of this API and links to its collections and its OpenAPI document."""
    return ApiIndex(
        version="v1",
        resources="/api/v1/resources/",
        bookings="/api/v1/bookings/",
        client="/api/v1/client/",
        schema="/schema/openapi.json",
    )
