"""``GET /metrics``: Prometheus text format, the HTTP metrics plus the outbox's gauges.

The outbox gauges are read from the database at each scrape, so every API process reports the same
numbers whichever worker sends the mail.
"""

from __future__ import annotations

import logging
import os

from litestar import Response, get
from litestar.datastructures import State
from litestar.openapi import ResponseSpec
from litestar.plugins.prometheus import PrometheusController
from prometheus_client import REGISTRY, CollectorRegistry, Gauge, generate_latest, multiprocess
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from booking_core.errors import DomainError
from booking_core.outbox import OutboxStatus
from booking_core.usecases.outbox import outbox_counts
from entrypoints.http.ratelimit import UNLIMITED_OPT_KEY

log = logging.getLogger(__name__)

_GAUGES = {
    OutboxStatus.PENDING: ("booking_outbox_pending_messages", "Email waiting to be sent, first try or retry"),
    OutboxStatus.FAILED: ("booking_outbox_failed_messages", "Email given up on; see `booking outbox list`"),
}


def outbox_metrics(state: State) -> bytes:
    """The outbox gauges in the text format; nothing when the database does not answer."""
    try:
        counts = outbox_counts(state.deps)
    except DomainError as error:
        log.warning("metrics: outbox counts unavailable: %s", error)
        return b""
    registry = CollectorRegistry(auto_describe=False)
    for status, (name, text) in _GAUGES.items():
        Gauge(name, text, registry=registry).set(counts.get(status, 0))
    return generate_latest(registry)


class MetricsController(PrometheusController):
    """``GET /metrics``; never rate limited."""

    opt = {UNLIMITED_OPT_KEY: True}  # noqa: RUF012 - Litestar reads it as a class attribute
    tags = ["operations"]  # noqa: RUF012

    @get(
        sync_to_thread=True,
        operation_id="metrics",
        responses={200: ResponseSpec(str, media_type="text/plain", description="Prometheus text format")},
    )
    def get(self, state: State) -> Response[bytes]:  # type: ignore[override]
        """The process's HTTP metrics and the outbox's pending and failed counts."""
        registry = REGISTRY
        if "PROMETHEUS_MULTIPROC_DIR" in os.environ or "prometheus_multiproc_dir" in os.environ:
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        body = generate_latest(registry) + outbox_metrics(state)
        return Response(body, status_code=200, headers={"Content-Type": CONTENT_TYPE_LATEST})
