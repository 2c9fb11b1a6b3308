"""Running a use case again when a concurrent transaction got in its way.

Two transactions that lock rows may deadlock, and the database then aborts one of them (the lock
order of :class:`~booking_core.ports.UnitOfWork` keeps the service's own paths from it; this is the
safety net); a serializable read may fail. Neither says anything about the request: the same use
case, run again from the start on a fresh unit of work, succeeds. A lock that was not granted within
the lock timeout is not such a conflict: the request has waited as long as it may, and answers 503.
A use case that writes is wrapped with :func:`retried`, the one place that decides how often and how
long to wait.

A retried use case must not have done anything outside its transaction before the conflict that a
second run would repeat wrongly: provider calls inside it carry idempotency keys, and anything sent
after the commit is not reached by a conflict.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from booking_core.errors import TransientConflict

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

#: Ten runs: the pauses between them add up to about five seconds, as long as a request may wait
#: for one lock (``BOOKING_DB_LOCK_TIMEOUT_MS``). Six (0.3 s of pauses) ran out once when a hundred
#: claims of four kinds raced for one hour of one court (``tests/e2e/test_operator_race_mixed.py``).
ATTEMPTS = 10
_FIRST_PAUSE_S = 0.01


def retried(use_case: Callable[P, R]) -> Callable[P, R]:
    """``use_case``, run again (up to ``ATTEMPTS`` times in all) while it meets a :class:`TransientConflict`.

    The pauses grow from 10 ms, doubling, with jitter, so that the contenders do not meet again.
    The last conflict reaches the caller (as storage that is unavailable: 503, please retry).
    """

    @functools.wraps(use_case)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return use_case(*args, **kwargs)
            except TransientConflict as conflict:
                if attempt == ATTEMPTS:
                    log.warning("%s: still conflicting after %d attempts", use_case.__name__, attempt)
                    raise
                log.info("%s: %s; running it again", use_case.__name__, conflict.message)
                time.sleep(_FIRST_PAUSE_S * 2 ** (attempt - 1) * random.uniform(0.5, 1.5))
        raise AssertionError("unreachable")  # pragma: no cover

    return run
