"""Sending refund requests to the provider, right after the commit that decided them, and again later.

A request is stored in the transaction that decides the refund, so it cannot be lost. It is sent as
soon as that transaction commits; when the provider fails or cannot be reached, the worker's sweep
(:func:`retry_refunds`) sends it again, with growing pauses, until the provider accepts it or reports
the refund. The idempotency key of a request never changes, so the provider refunds once however
often it is sent. A request of part of a payment (a venue's choice, CONTRACT 9.2) sends its amount,
the same on every attempt.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from booking_core.errors import PaymentProviderError, StorageUnavailable
from booking_core.payments import RefundRequest, is_venue_intent
from booking_core.usecases.deps import Deps
from booking_core.usecases.retry import retried

log = logging.getLogger(__name__)

#: How long a claimed request waits before anyone sends it again, should its attempt never report back.
LEASE = timedelta(minutes=2)
_FIRST_RETRY = timedelta(seconds=30)
_LONGEST_PAUSE = timedelta(hours=1)


def send_refunds(deps: Deps, requests: Iterable[RefundRequest]) -> None:
    """Send requests just stored (after their transaction committed); failures are left to the worker."""
    for request in requests:
        try:
            _attempt(deps, request.payment_id)
        except StorageUnavailable as error:  # what decided the refund committed: it must not fail now
            log.warning("refund of %s left to the worker: %s", request.payment_intent_id, error.message)


def retry_refunds(deps: Deps, limit: int = 50) -> int:
    """The worker's sweep: send the requests the provider has not accepted yet. Returns how many it took."""
    with deps.read() as uow:
        due = uow.refunds.due(deps.clock.now(), limit)
    return sum(_attempt(deps, request.payment_id) for request in due)


def _attempt(deps: Deps, payment_id: str) -> bool:
    claimed = _claim(deps, payment_id)
    if claimed is None:  # accepted meanwhile, or someone else is sending it right now
        return False
    request, currency = claimed
    try:
        refund_id = deps.payments.refund(
            request.payment_intent_id,
            idempotency_key=request.idempotency_key,
            amount=request.amount,
            currency=currency,
        )
    except PaymentProviderError as error:
        intent, attempt = request.payment_intent_id, request.attempts
        log.warning("refund of %s failed (attempt %d): %s", intent, attempt, error)
        _failed(deps, request, error.message)
        return False
    except Exception:  # the request is stored: never let a surprise fail what already committed
        log.exception("refund of %s failed unexpectedly", request.payment_intent_id)
        _failed(deps, request, "unexpected error")
        return False
    _accepted(deps, payment_id, refund_id)
    log.info("refund of %s accepted by the provider as %s", request.payment_intent_id, refund_id)
    return True


@retried
def _claim(deps: Deps, payment_id: str) -> tuple[RefundRequest, str] | None:
    """The request, taken for one attempt, and the currency of its payment."""
    now = deps.clock.now()
    with deps.uow() as uow:
        waiting = uow.refunds.get(payment_id)
        if waiting is not None and is_venue_intent(waiting.payment_intent_id):
            return None  # handed back at the venue's desk: no provider to ask (the cancel reports it)
        if not uow.refunds.claim(payment_id, now, now + LEASE):
            return None
        claimed = uow.refunds.get(payment_id)
        payment = uow.payments.by_intent(claimed.payment_intent_id) if claimed is not None else None
        uow.commit()
    if claimed is None:
        return None
    return claimed, payment.currency if payment is not None else ""


@retried
def _failed(deps: Deps, request: RefundRequest, error: str) -> None:
    pause = min(_FIRST_RETRY * 2 ** min(max(request.attempts - 1, 0), 8), _LONGEST_PAUSE)
    with deps.uow() as uow:
        uow.refunds.failed(request.payment_id, error, deps.clock.now() + pause)
        uow.commit()


@retried
def _accepted(deps: Deps, payment_id: str, refund_id: str) -> None:
    with deps.uow() as uow:
        uow.refunds.accepted(payment_id, refund_id, deps.clock.now())
        uow.commit()
