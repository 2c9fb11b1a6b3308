"""Storage of first responses for requests sent with an Idempotency-Key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, Protocol, TypeVar

R = TypeVar("R")


@dataclass(frozen=True, slots=True, kw_only=True)
class IdempotencyRecord:
    """The first response given to one (scope, key)."""

    scope: str
    key: str
    request_hash: str
    status_code: int
    body: bytes
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class IdempotentRequest(Generic[R]):
    """A request sent with an Idempotency-Key, whose first answer is stored with the work it answers.

    ``scope`` names the caller and the endpoint, ``request_hash`` what makes a retry "the same".
    ``answer`` gives the status and body the caller is sent for the use case's result: a pure
    function of that result (the web layer's encoding), so the use case can store the answer in its
    own transaction, durable exactly when the work is.
    """

    scope: str
    key: str
    request_hash: str
    answer: Callable[[R], tuple[int, bytes]]


class IdempotencyRecords(Protocol):
    """Replays of earlier responses. ``scope`` names the caller and the endpoint."""

    def get(self, scope: str, key: str) -> IdempotencyRecord | None:
        """The stored record, if any."""

    def add(self, record: IdempotencyRecord) -> None:
        """Store a first response."""
