"""The background worker, every few seconds: send the outbox's due email, expire lapsed holds,
complete past bookings and send again the refund requests the provider has not accepted yet.

``booking worker`` runs :func:`run_forever` in the foreground; ``booking serve`` starts the same loop
in a daemon thread of each server process (:func:`start_inprocess_worker`) unless
``BOOKING_INPROCESS_WORKER=false``. Every sweep is a short transaction, so several workers side by side
are safe: a booking another worker already moved is simply not found again.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from booking_core.errors import DomainError
from booking_core.usecases.operator import complete_past_bookings, expire_holds
from booking_core.usecases.outbox import DispatchResult, dispatch_outbox
from booking_core.usecases.refunds import retry_refunds
from entrypoints.bootstrap import Services

log = logging.getLogger("booking.worker")

INTERVAL_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class SweepResult:
    """What one pass of the worker changed."""

    expired: int
    completed: int
    mail: DispatchResult = field(default_factory=DispatchResult)
    refunds: int = 0

    def __str__(self) -> str:
        bookings = f"expired {self.expired} hold(s), completed {self.completed} booking(s)"
        return f"{bookings}, sent {self.refunds} refund request(s); mail: {self.mail}"

    @property
    def changed(self) -> bool:
        """Whether the pass did anything worth a log line."""
        return bool(self.expired or self.completed or self.refunds or self.mail.total)


def run_once(services: Services) -> SweepResult:
    """One pass: expire lapsed holds, complete bookings whose time has passed, send due email.

    Email goes last, so that a slow mail server delays nothing else; an outage of it only leaves
    messages for a later pass (``booking_core.usecases.outbox``).
    """
    expired = expire_holds(services.deps)
    completed = complete_past_bookings(services.deps)
    refunds = retry_refunds(services.deps)
    return SweepResult(
        expired=expired,
        completed=completed,
        mail=dispatch_outbox(services.deps, services.notifiers()),
        refunds=refunds,
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
            if result.changed:
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
