"""The background worker: expire lapsed holds, complete past bookings and send refund requests the
provider has not accepted yet, every few seconds.

``booking worker`` runs :func:`run_forever` in the foreground; ``booking serve`` starts the same loop
in a daemon thread of each server process (:func:`start_inprocess_worker`) unless
``BOOKING_INPROCESS_WORKER=false``. Every sweep is a short transaction, so several workers side by side
are safe: a booking another worker already moved is simply not found again.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from booking_core.errors import DomainError
from booking_core.usecases.operator import complete_past_bookings, expire_holds
from booking_core.usecases.refunds import retry_refunds
from entrypoints.bootstrap import Services

log = logging.getLogger("booking.worker")

INTERVAL_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class SweepResult:
    """What one pass of the worker changed."""

    expired: int
    completed: int
    refunds: int = 0

    def __str__(self) -> str:
        done = f"expired {self.expired} hold(s), completed {self.completed} booking(s)"
        return f"{done}, sent {self.refunds} refund request(s)"


def run_once(services: Services) -> SweepResult:
    """One pass: expire lapsed holds, then complete bookings whose time has passed."""
    # TODO(outbox issue): dispatch due outbox messages here as well.
    deps = services.deps
    return SweepResult(
        expired=expire_holds(deps), completed=complete_past_bookings(deps), refunds=retry_refunds(deps)
    )


def run_forever(services: Services, stop: threading.Event, interval: float = INTERVAL_SECONDS) -> None:
    """Sweep every ``interval`` seconds until ``stop`` is set; a failing pass is logged and retried."""
    while not stop.is_set():
        try:
            result = run_once(services)
        except DomainError as exc:  # e.g. StorageUnavailable: try again on the next tick
            log.warning("worker pass failed: %s", exc)
        except Exception:
            log.exception("worker pass failed unexpectedly")
        else:
            if result.expired or result.completed or result.refunds:
                log.info("worker: %s", result)
        stop.wait(interval)


def start_inprocess_worker(services: Services, interval: float = INTERVAL_SECONDS) -> threading.Event:
    """Run the worker loop in a daemon thread of this process; set the returned event to stop it.

    Meant for the HTTP app's ``on_startup`` hook (``on_shutdown`` sets the event) when
    ``services.settings.inprocess_worker`` is true.
    """
    stop = threading.Event()
    thread = threading.Thread(
        target=run_forever, args=(services, stop, interval), name="booking-worker", daemon=True
    )
    thread.start()
    return stop
