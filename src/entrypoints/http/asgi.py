"""The ASGI application for uvicorn: ``uvicorn --factory entrypoints.http.asgi:create``.

``booking serve`` runs it; each server worker process calls :func:`create` once, and (unless
``BOOKING_INPROCESS_WORKER=false``) runs the background worker in a daemon thread beside the app.
"""

from __future__ import annotations

import gc
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
    app.on_startup.append(freeze_startup_objects)
    app.on_shutdown.append(services.close)
    return app


def freeze_startup_objects() -> None:
    """Keep what start-up built out of the garbage collector's full passes.

    The modules, the application, SQLAlchemy's mappers and compiled statements are some 160,000
    objects that live as long as the process. Under load a full collection walked them all every few
    seconds and stalled every request of the process meanwhile: 65 to 490 ms on the shared benchmark
    machine, the largest part of the slow answers (docs/performance.md). Frozen, they are never
    walked again; a full pass then sees the ten thousand or so objects made since, in 2 to 3 ms.
    """
    gc.collect()
    gc.freeze()


def _attach_worker(app: Litestar, services: Services) -> None:
    stops: list[threading.Event] = []

    def start() -> None:
        stops.append(start_inprocess_worker(services))

    def stop() -> None:
        for event in stops:
            event.set()

    app.on_startup.append(start)
    app.on_shutdown.append(stop)
