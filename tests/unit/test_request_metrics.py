"""The request metrics keep the names and labels of Litestar's Prometheus middleware (request_metrics)."""

from __future__ import annotations

from litestar import Litestar, get
from litestar.params import FromPath
from litestar.testing import TestClient
from prometheus_client import REGISTRY

from entrypoints.http.request_metrics import request_metrics


@get("/ok/{n:int}", sync_to_thread=False)
def ok(n: FromPath[int]) -> dict[str, int]:
    return {"n": n}


@get("/boom", sync_to_thread=False)
def boom() -> None:
    raise RuntimeError("boom")


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_requests_are_counted_and_timed_by_routed_path_and_status() -> None:
    app = Litestar([ok, boom], middleware=[request_metrics(app_name="metrics-test", prefix="booking")])
    labels = {"method": "GET", "path": "/ok/{n}", "status_code": "200", "app_name": "metrics-test"}
    failed = {**labels, "path": "/boom", "status_code": "500"}
    before = _value("booking_requests_total", **labels)
    errors_before = _value("booking_requests_error_total", **failed)
    with TestClient(app) as client:
        assert client.get("/ok/1").status_code == 200
        assert client.get("/ok/2").status_code == 200
        assert client.get("/boom").status_code == 500
    assert _value("booking_requests_total", **labels) == before + 2
    assert _value("booking_request_duration_seconds_count", **labels) >= 2
    assert _value("booking_requests_error_total", **failed) == errors_before + 1
    assert _value("booking_requests_error_total", **labels) == 0
    running = {**labels, "status_code": "200"}
    assert _value("booking_requests_in_progress", **running) == 0
