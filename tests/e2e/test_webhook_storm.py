"""The webhook storm of ``tests.support.storm``: events for many bookings, each delivered twice,
shuffled, posted at once to four server processes on PostgreSQL while the mail server is down.

``make test`` runs it scaled down (20 bookings: 100 events, 200 deliveries); ``make storm`` runs the
issue's size (``BOOKING_STORM_BOOKINGS=200``: 1,000 events, 2,000 deliveries) and prints the figures.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.postgres import require_postgres, temporary_database
from tests.support.storm import EVENTS_PER_BOOKING, run_storm

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

BOOKINGS = int(os.environ.get("BOOKING_STORM_BOOKINGS", "20"))


def test_a_storm_of_shuffled_duplicated_events_ends_as_each_applied_once_in_order(tmp_path: Path) -> None:
    require_postgres()
    with temporary_database() as url:
        figures = run_storm(url, tmp_path, bookings=BOOKINGS)
    print(f"\n{figures}")
    events = BOOKINGS * EVENTS_PER_BOOKING
    assert (figures.events, figures.deliveries) == (events, 2 * events)
