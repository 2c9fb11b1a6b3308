"""The HTTP request metrics for ``GET /metrics``, at a fraction of the cost per request.

Same names, labels and buckets as Litestar's Prometheus plugin middleware
(``<prefix>_requests_total``, ``_request_duration_seconds``, ``_requests_in_progress``,
``_requests_error_total``; labels ``method``, ``path`` as routed, ``status_code``, ``app_name``),
so dashboards see no difference. That middleware built a request object, two dictionaries of labels
and five labelled series for every request: a tenth of the time of the cheapest endpoint
(docs/performance.md). Here each series is looked up once per route and status and then reused.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import Counter, Gauge, Histogram

_LABELS = ("method", "path", "status_code", "app_name")
#: The in-progress gauge carries the status label too, always 200 (as the plugin's does).
_IN_PROGRESS_STATUS = 200


class _Series:
    """The process's metric families of one prefix, and their series by label values."""

    def __init__(self, prefix: str) -> None:
        self.count = Counter(f"{prefix}_requests_total", "Total requests", _LABELS)
        self.time = Histogram(f"{prefix}_request_duration_seconds", "Request duration, in seconds", _LABELS)
        self.in_progress = Gauge(
            f"{prefix}_requests_in_progress",
            "Total requests currently in progress",
            _LABELS,
            multiprocess_mode="livesum",
        )
        self.errors = Counter(f"{prefix}_requests_error_total", "Total errors in requests", _LABELS)
        self._done: dict[tuple[str, str, int, str], tuple[Any, Any, Any]] = {}
        self._running: dict[tuple[str, str, str], Any] = {}

    def running(self, method: str, path: str, app_name: str) -> Any:
        key = (method, path, app_name)
        series = self._running.get(key)
        if series is None:
            series = self._running[key] = self.in_progress.labels(method, path, _IN_PROGRESS_STATUS, app_name)
        return series

    def finished(self, method: str, path: str, status: int, app_name: str) -> tuple[Any, Any, Any]:
        """The count, duration and (for a 5xx) error series of a finished request."""
        key = (method, path, status, app_name)
        series = self._done.get(key)
        if series is None:
            values = (method, path, status, app_name)
            error = self.errors.labels(*values) if status >= 500 else None
            series = self._done[key] = (self.count.labels(*values), self.time.labels(*values), error)
        return series


#: One set of families per prefix and process: a registry refuses a name twice (tests build many apps).
_FAMILIES: dict[str, _Series] = {}


def request_metrics(app_name: str, prefix: str) -> Callable[[ASGIApp], ASGIApp]:
    """The middleware counting and timing every HTTP request of the application."""
    families = _FAMILIES.get(prefix)
    if families is None:
        families = _FAMILIES[prefix] = _Series(prefix)

    def middleware(app: ASGIApp) -> ASGIApp:
        async def measured(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started = time.perf_counter()
            method, path = scope["method"], scope.get("path_template", scope["path"])  # type: ignore[typeddict-item]
            status, duration = 200, 0.0

            async def timed_send(message: Message) -> None:
                nonlocal status, duration
                if message["type"] == "http.response.start":
                    status = message["status"]
                elif message["type"] == "http.response.body":
                    duration = time.perf_counter() - started
                await send(message)

            running = families.running(method, path, app_name)
            running.inc()
            try:
                await app(scope, receive, timed_send)
            finally:
                running.dec()
                count, timing, errors = families.finished(method, path, status, app_name)
                if errors is not None:
                    errors.inc()
                count.inc()
                timing.observe(duration)

        return measured

    return middleware
