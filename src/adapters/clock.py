"""The real clock."""

from __future__ import annotations

from datetime import UTC, datetime


class SystemClock:
    """``now`` from the system clock, always timezone-aware UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)
