"""Idempotency-Key support: a retry with the same key and body gets the first response again."""

from __future__ import annotations

import hashlib
from datetime import datetime

from booking_core.errors import IdempotencyConflict
from booking_core.ports import IdempotencyRecord, UnitOfWork
from booking_core.usecases.deps import Deps


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


def remember_in(
    uow: UnitOfWork, scope: str, key: str, request_hash: str, status_code: int, body: bytes, now: datetime
) -> None:
    """Store the first response in the caller's transaction, so that it is durable exactly when the
    work it answers is. A concurrent request with the same key then fails that transaction on the
    storage's unique key, and the caller replays the winner's response instead."""
    uow.idempotency.add(
        IdempotencyRecord(
            scope=scope,
            key=key,
            request_hash=request_hash,
            status_code=status_code,
            body=body,
            created_at=now,
        )
    )
