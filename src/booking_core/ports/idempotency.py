"""Storage of first responses for requests sent with an Idempotency-Key."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True, kw_only=True)
class IdempotencyRecord:
    """The first response given to one (scope, key)."""

    scope: str
    key: str
    request_hash: str
    status_code: int
    body: bytes
    created_at: datetime


class IdempotencyRecords(Protocol):
    """Replays of earlier responses. ``scope`` names the caller and the endpoint."""

    def get(self, scope: str, key: str) -> IdempotencyRecord | None:
        """The stored record, if any."""

    def add(self, record: IdempotencyRecord) -> None:
        """Store a first response."""
