"""Idempotency-Key support: a retry with the same key and body gets the first response again."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import TypeVar

from booking_core.errors import IdempotencyConflict
from booking_core.ports import IdempotencyRecord, IdempotentRequest, UnitOfWork
from booking_core.usecases.deps import Deps

R = TypeVar("R")


def request_fingerprint(method: str, path: str, body: bytes) -> str:
    """A digest of what makes two requests "the same" for replay purposes."""
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + body).hexdigest()


def replay(deps: Deps, scope: str, key: str, request_hash: str) -> IdempotencyRecord | None:
    """The stored first response for (scope, key); IdempotencyConflict when the body differs."""
    with deps.read() as uow:
        record = uow.idempotency.get(scope, key)
    if record is not None and record.request_hash != request_hash:
        raise IdempotencyConflict("This Idempotency-Key was already used with a different request.")
    return record


def remember_in(uow: UnitOfWork, request: IdempotentRequest[R] | None, result: R, now: datetime) -> None:
    """Store the first answer to ``request`` (if it was sent with a key) in the caller's transaction,
    so that it is durable exactly when the work it answers is. A concurrent request with the same key
    then fails that transaction on the storage's unique key, and its caller replays the winner's
    answer instead."""
    if request is None:
        return
    status_code, body = request.answer(result)
    uow.idempotency.add(
        IdempotencyRecord(
            scope=request.scope,
            key=request.key,
            request_hash=request.request_hash,
            status_code=status_code,
            body=body,
            created_at=now,
        )
    )
