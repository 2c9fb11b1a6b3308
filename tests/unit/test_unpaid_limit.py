"""The limit of unpaid bookings and the demand level that holds do not move, on the in-memory ports."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

import pytest

from booking_core.catalog import DynamicPricing
from booking_core.errors import ValidationFailed
from booking_core.memory import FixedClock, InMemoryStore
from booking_core.usecases import bookings, browse, operator
from booking_core.usecases.deps import Deps
from tests.unit.test_usecase_flow import at, book, clock, court, deps, gateway, pay, store, user_actor

__all__ = ["clock", "deps", "gateway", "store"]

TOO_MANY = r"^Too many unpaid bookings: pay or cancel one first\.$"


def test_the_limit_counts_live_holds_until_one_is_paid_cancelled_or_lapses(
    deps: Deps, clock: FixedClock
) -> None:
    deps = replace(deps, max_unpaid_per_user=2)
    anna, ben = user_actor(deps), user_actor(deps, "ben@example.com")
    first, _second = book(deps, anna, at(2, 8)), book(deps, anna, at(2, 9))
    with pytest.raises(ValidationFailed, match=TOO_MANY):
        book(deps, anna, at(2, 10))
    book(deps, ben, at(2, 10))  # one limit per user
    pay(deps, first, anna)
    third = book(deps, anna, at(2, 11))
    with pytest.raises(ValidationFailed, match=TOO_MANY):
        book(deps, anna, at(2, 12))
    bookings.cancel_booking(deps, anna, third.booking.id)
    book(deps, anna, at(2, 12))
    with pytest.raises(ValidationFailed, match=TOO_MANY):
        book(deps, anna, at(2, 13))
    clock.advance(timedelta(minutes=deps.hold_minutes))  # the holds lapse
    book(deps, anna, at(2, 13))


def test_holds_do_not_move_the_demand_level_and_paid_bookings_do(store: InMemoryStore, deps: Deps) -> None:
    store.add_resource(court(3, dynamic_pricing=DynamicPricing(enabled=True), prevent_unbookable_gaps=False))
    anna = user_actor(deps)
    held = [book(deps, anna, at(2, 8 + 2 * n), hours=2, resource=3) for n in range(5)]
    assert browse.get_resource(deps, 3).demand_level == Decimal("0.0000")
    operator.confirm_booking(deps, held[0].booking.reference_code)  # to be paid at the venue
    assert browse.get_resource(deps, 3).demand_level == Decimal("0.0204")  # 2 of the week's 98 open hours
