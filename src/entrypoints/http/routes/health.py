"""``GET /health``: 200 once the database answers, 503 otherwise."""

from __future__ import annotations

import logging

import msgspec
from litestar import Response, get
from litestar.datastructures import State
from litestar.openapi import ResponseSpec

from entrypoints.http.ratelimit import UNLIMITED_OPT_KEY

log = logging.getLogger(__name__)


class HealthOut(msgspec.Struct, kw_only=True):
    """Whether the service can serve requests."""

    status: str


@get(
    "/health",
    sync_to_thread=True,
    opt={UNLIMITED_OPT_KEY: True},
    responses={503: ResponseSpec(HealthOut, description="The database does not answer")},
    tags=["operations"],
)
def health(state: State) -> Response[HealthOut]:
    """Liveness and readiness: the database must answer."""
    try:
        ok = bool(state.ping())
    except Exception:
        log.exception("health check failed")
        ok = False
    if ok:
        return Response(HealthOut(status="ok"))
    return Response(HealthOut(status="unavailable"), status_code=503)
