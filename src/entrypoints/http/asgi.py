"""The ASGI application for uvicorn: ``uvicorn --factory entrypoints.http.asgi:create``.

``booking serve`` runs it; each server worker process calls :func:`create` once, and (unless
``BOOKING_INPROCESS_WORKER=false``) runs the background worker in a daemon thread beside the app.
"""

from __future__ import annotations

import threading

from litestar import Litestar

from entrypoints.bootstrap import Services, bootstrap
from entrypoints.config import load_settings
from entrypoints.http.app import create_app
from entrypoints.worker import start_inprocess_worker


def create() -> Litestar:
    """Build the app from the environment."""
    services = bootstrap(load_settings())
    app = create_app(services)
    if services.settings.inprocess_worker:
        _attach_worker(app, services)
    app.on_shutdown.append(services.close)
    return app


def _attach_worker(app: Litestar, services: Services) -> None:
    stops: list[threading.Event] = []

    def start() -> None:
        stops.append(start_inprocess_worker(services))

    def stop() -> None:
        for event in stops:
            event.set()

    app.on_startup.append(start)
    app.on_shutdown.append(stop)
