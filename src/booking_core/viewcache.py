"""Computed results remembered per process, served only while the data they came from is unchanged.

Exact, not time-based: an entry is stored with the :data:`~booking_core.ports.DataVersion` read
*before* its data and with the instant until which time alone cannot change it (the next lapsing
hold, say). A lookup hands in the current version and "now"; anything else is a miss.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from booking_core.ports import DataVersion

DEFAULT_MAX_ENTRIES = 256


@dataclass(frozen=True, slots=True)
class _Entry:
    version: DataVersion
    valid_until: dt.datetime | None
    value: object


class VersionedCache:
    """A bounded, thread-safe map from keys to values computed at a data version (least recently used
    entries go first)."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if max_entries < 0:
            raise ValueError("max_entries must not be negative")
        self._max = max_entries
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, version: DataVersion, now: dt.datetime) -> object | None:
        """The value stored under ``key`` at exactly ``version`` and still valid at ``now``."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.version != version or (entry.valid_until is not None and now >= entry.valid_until):
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry.value

    def put(
        self, key: Hashable, version: DataVersion, valid_until: dt.datetime | None, value: object
    ) -> None:
        """Remember ``value``, computed from data at ``version``, until ``valid_until`` (None: no limit)."""
        if self._max == 0:
            return
        with self._lock:
            self._entries[key] = _Entry(version, valid_until, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
