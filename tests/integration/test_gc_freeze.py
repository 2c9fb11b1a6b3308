"""The served application keeps its start-up objects out of the collector's full passes (asgi.create)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from litestar.testing import TestClient

from entrypoints.http.asgi import create


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
