"""The served application's process settings (asgi.create): start-up objects kept out of the collector's
full passes, and few threads for the synchronous handlers."""

from __future__ import annotations

import gc
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from litestar import get
from litestar.testing import TestClient

from entrypoints.http.asgi import HANDLER_THREADS, create


def test_startup_objects_are_frozen_once_the_app_has_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOOKING_DATABASE_URL", f"sqlite:///{tmp_path / 'booking.sqlite3'}")
    monkeypatch.setenv("BOOKING_INPROCESS_WORKER", "false")
    gc.unfreeze()
    app = create()
    assert gc.get_freeze_count() == 0
    try:
        with TestClient(app):
            # the modules, the app and the mappers: far more than any request leaves behind
            assert gc.get_freeze_count() > 50_000
    finally:
        gc.unfreeze()


def test_sync_handlers_run_on_a_few_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOOKING_DATABASE_URL", f"sqlite:///{tmp_path / 'booking.sqlite3'}")
    monkeypatch.setenv("BOOKING_INPROCESS_WORKER", "false")
    threads: set[str] = set()

    @get("/thread", sync_to_thread=True)
    def which() -> str:
        threads.add(threading.current_thread().name)
        time.sleep(0.01)
        return "ok"

    app = create()
    app.register(which)
    try:
        with TestClient(app) as client, ThreadPoolExecutor(16) as callers:
            assert all(r.status_code == 200 for r in callers.map(lambda _: client.get("/thread"), range(64)))
    finally:
        gc.unfreeze()
    assert threads
    assert all(name.startswith("handler") for name in threads)
    assert len(threads) <= HANDLER_THREADS
