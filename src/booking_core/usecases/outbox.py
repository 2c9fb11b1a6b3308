"""Delivering the outbox: claim what is due, send it, settle each try; and the operator's view.

Each message goes out through the notifier registered for its ``kind`` (its channel, see
:class:`~booking_core.ports.Notifier`); the composition root registers them, e-mail first
(:class:`~booking_core.usecases.email_notifier.EmailNotifier`). A claim is a short transaction of its
own and sending happens outside any transaction, so a slow mail server holds no database lock. A
claimed batch is leased to its worker (``RetryPolicy.lease``) and another worker takes a message
only once its lease has run out. Behind a slow mail server a batch takes longer than a lease, so the
worker starts each send only with most of a lease left (``RetryPolicy.needs_renewal``): when less is
left, it first extends the lease of every message it still has to send, in one short transaction,
and drops those another worker has taken meanwhile (``lost``: only a worker that stalled past its
lease loses any). A fast mail server gets through a batch within its first lease and costs no
renewal. So a message goes out twice (with the same ``Message-ID``) only when its worker died, or
stalled past its lease, between sending it and recording that; no worker that is alive sends a
message another holds. A sent message forgets its secrets (``booking_core.outbox.SECRET_FIELDS``).
"""

from __future__ import annotations

import logging
import random
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from booking_core.errors import DeliveryFailed
from booking_core.outbox import OutboxEntry, OutboxStatus, RetryPolicy, without_secrets
from booking_core.ports import Mailer, Notifiers
from booking_core.usecases.deps import Deps
from booking_core.usecases.email_notifier import email_only

log = logging.getLogger(__name__)

DEFAULT_POLICY = RetryPolicy()
BATCH = 50


@dataclass(frozen=True, slots=True)
class DispatchResult:
    """What one pass over the outbox did."""

    sent: int = 0
    skipped: int = 0
    retrying: int = 0
    failed: int = 0
    #: claimed, but taken over by another worker before their turn came (their lease ran out)
    lost: int = 0

    def __str__(self) -> str:
        counts = (
            f"sent {self.sent}, skipped {self.skipped}, "
            f"to retry {self.retrying}, failed {self.failed} message(s)"
        )
        return f"{counts}, {self.lost} left to another worker" if self.lost else counts

    @property
    def total(self) -> int:
        """Messages claimed in the pass."""
        return self.sent + self.skipped + self.retrying + self.failed + self.lost

    def __add__(self, other: DispatchResult) -> DispatchResult:
        return DispatchResult(
            self.sent + other.sent,
            self.skipped + other.skipped,
            self.retrying + other.retrying,
            self.failed + other.failed,
            self.lost + other.lost,
        )


def dispatch_outbox(
    deps: Deps,
    notifiers: Notifiers | Mailer,
    *,
    policy: RetryPolicy = DEFAULT_POLICY,
    limit: int = BATCH,
    jitter: Callable[[], float] = random.random,
) -> DispatchResult:
    """Send the messages that are due now (at most ``limit``), each tried once by this worker through
    the notifier of its ``kind`` in ``notifiers``; a message of a kind without one fails for good.

    Deprecated: a :class:`~booking_core.ports.Mailer` in place of ``notifiers`` (the signature of
    releases before channels) is still taken, as the e-mail channel alone, for one release.
    """
    channels = _channels(notifiers)
    now = deps.clock.now()
    with deps.uow() as uow:
        claimed = uow.outbox_queue.claim_due(now, lease=policy.lease, limit=limit)
        uow.commit()
    counts = {"sent": 0, "skipped": 0, "retrying": 0, "failed": 0, "lost": 0}
    batch = deque(claimed)
    while batch:
        # the whole batch shares one lease (from the claim, or the last renewal)
        if policy.needs_renewal(batch[0].due_at, deps.clock.now()):
            still_held = _renew_leases(deps, batch, policy)
            counts["lost"] += len(batch) - len(still_held)
            batch = deque(still_held)
            continue
        counts[_deliver(deps, channels, batch.popleft(), policy, jitter)] += 1
    return DispatchResult(**counts)


def _channels(notifiers: Notifiers | Mailer) -> Notifiers:
    if isinstance(notifiers, Mapping):
        return notifiers
    warnings.warn(
        "dispatch_outbox(deps, mailer) is deprecated: pass the notifiers by kind, "
        "e.g. email_only(mailer) of booking_core.usecases.email_notifier",
        DeprecationWarning,
        stacklevel=3,
    )
    return email_only(notifiers)


def _renew_leases(deps: Deps, batch: Iterable[OutboxEntry], policy: RetryPolicy) -> list[OutboxEntry]:
    """The messages of ``batch`` this worker still holds, each leased for another full lease from now.

    A message is lost only when its worker stalled past the lease between two sends (or in one) and
    another worker took it meanwhile: that worker sends it now.
    """
    until = deps.clock.now() + policy.lease
    still_held = []
    with deps.uow() as uow:
        for entry in batch:
            if uow.outbox_queue.extend_lease(entry, until):
                still_held.append(replace(entry, due_at=until))
            else:
                log.warning("outbox %s: its lease ran out before its turn; another worker has it", entry.id)
        uow.commit()
    return still_held


def _deliver(
    deps: Deps, channels: Notifiers, entry: OutboxEntry, policy: RetryPolicy, jitter: Callable[[], float]
) -> str:
    notifier = channels.get(entry.kind)
    if notifier is None:
        error = f"unknown message kind {entry.kind!r}"
        return _failed(deps, entry, error, entry.message_id, True, policy, jitter)
    message_id = entry.message_id or notifier.delivery_id(entry.id)
    try:
        note = notifier.deliver(entry, delivery_id=message_id, read=deps.read)
    except DeliveryFailed as error:
        return _failed(deps, entry, str(error), message_id, error.permanent, policy, jitter)
    now = deps.clock.now()
    with deps.uow() as uow:
        settled = uow.outbox_queue.mark_sent(
            entry, now, message_id=message_id, note=note, payload=without_secrets(entry.payload)
        )
        uow.commit()
    if not settled:
        log.warning("outbox %s: sent, but another worker had taken the message over", entry.id)
    if note:
        log.info(
            "outbox %s (%s %s, booking %s) %s", entry.id, entry.kind, entry.template, entry.booking_id, note
        )
        return "skipped"
    return "sent"


def _failed(
    deps: Deps,
    entry: OutboxEntry,
    error: str,
    message_id: str | None,
    permanent: bool,
    policy: RetryPolicy,
    jitter: Callable[[], float],
) -> str:
    now = deps.clock.now()
    give_up = permanent or policy.gives_up(entry.attempts)
    with deps.uow() as uow:
        if give_up:
            uow.outbox_queue.mark_failed(entry, now, error=error, message_id=message_id)
        else:
            due = now + policy.delay(entry.attempts, jitter())
            uow.outbox_queue.mark_retry(entry, due, error=error, message_id=message_id)
        uow.commit()
    level = logging.ERROR if give_up else logging.WARNING
    outcome = "failed for good" if give_up else "will be retried"
    log.log(level, "outbox %s (%s) try %d %s: %s", entry.id, entry.template, entry.attempts, outcome, error)
    return "failed" if give_up else "retrying"


def list_outbox(deps: Deps, status: OutboxStatus | None = None, *, limit: int = 100) -> list[OutboxEntry]:
    """Messages in ``status`` (all when None), newest first, for the operator."""
    with deps.read() as uow:
        return uow.outbox_queue.list(status, limit=limit)


def retry_failed(deps: Deps, ids: Iterable[str] | None = None) -> int:
    """Send failed messages again (those in ``ids``, or every one): due now, attempts from zero."""
    with deps.uow() as uow:
        count = uow.outbox_queue.retry(None if ids is None else list(ids), deps.clock.now())
        uow.commit()
    return count


def outbox_counts(deps: Deps) -> Mapping[OutboxStatus, int]:
    """How many messages are pending, sent and failed."""
    with deps.read() as uow:
        counts = uow.outbox_queue.counts()
    return {status: counts.get(status, 0) for status in OutboxStatus}
