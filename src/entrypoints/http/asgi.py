"""The ASGI application for uvicorn: ``uvicorn --factory entrypoints.http.asgi:create``.

``booking serve`` runs it; each server worker process calls :func:`create` once, and (unless
``BOOKING_INPROCESS_WORKER=false``) runs the background worker in a daemon thread beside the app.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from concurrent.futures import ThreadPoolExecutor

from litestar import Litestar

from entrypoints.bootstrap import Services, bootstrap
from entrypoints.config import load_settings
from entrypoints.http.app import create_app
from entrypoints.secret_key import with_secret_key
from entrypoints.worker import start_inprocess_worker


def create() -> Litestar:
    """Build the app from the environment."""
    services = bootstrap(with_secret_key(load_settings()))
    app = create_app(services)
    if services.settings.inprocess_worker:
        _attach_worker(app, services)
    app.on_startup.append(freeze_startup_objects)
    app.on_startup.append(use_few_handler_threads)
    app.on_shutdown.append(services.close)
    return app


#: Threads per process for the synchronous handlers (and the guards' token checks).
HANDLER_THREADS = 4


def use_few_handler_threads() -> None:
    """Run the synchronous handlers on ``HANDLER_THREADS`` threads instead of asyncio's default six.

    Each thread spends most of a request waiting for PostgreSQL and needs the GIL back after every
    answer; with six of them and the event loop contending for it, single requests waited up to 1.9 s
    to run again while the database sat idle (p99 of raw availability 0.3-0.9 s on a quiet machine,
    against 15 ms for the floor). With four: p99 14 ms, maximum 84 ms, and more requests per second
    (docs/performance.md).
    """
    executor = ThreadPoolExecutor(max_workers=HANDLER_THREADS, thread_name_prefix="handler")
    asyncio.get_running_loop().set_default_executor(executor)


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
