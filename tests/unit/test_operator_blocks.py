"""Blocks and the day sheet through the use cases on the in-memory ports (CONTRACT 7.2, 7.3)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from booking_core.audit import AuditAction
from booking_core.booking import BookingStatus, CancellationReason
from booking_core.catalog import BlockSource, UnavailablePeriod
from booking_core.errors import BadRequest, NotFound, SlotUnavailable, ValidationFailed
from booking_core.memory import (
    FixedClock,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_blocks import (
    BlockOverlapsBookings,
    NewBlock,
    create_blocks,
    delete_block,
    list_blocks,
)
from booking_core.usecases.operator_day import day_sheet
from entrypoints.bootstrap import charging_currencies
from tests.unit.test_usecase_flow import NOW, at, book, court, pay, user_actor


@pytest.fixture
def store() -> InMemoryStore:
    store = InMemoryStore()
    store.add_resource(court(1))
    store.add_resource(court(2))
    return store


@pytest.fixture
def deps(store: InMemoryStore) -> Deps:
    return Deps(
        uow=store.uow,
        clock=FixedClock(NOW),
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=InMemoryPaymentGateway(),
        currencies=charging_currencies(),
    )


VENUE = 1


def block(start_hour: int, end_hour: int, **fields: object) -> NewBlock:
    return NewBlock(start=at(3, start_hour), end=at(3, end_hour), **fields)  # type: ignore[arg-type]


def test_a_block_is_refused_over_a_live_booking_and_nothing_is_written(
    deps: Deps, store: InMemoryStore
) -> None:
    view = book(deps, user_actor(deps), at(3, 10))
    with pytest.raises(BlockOverlapsBookings) as refused:
        create_blocks(deps, None, VENUE, block(9, 12, resource_ids=(1,)))
    assert [c.booking.id for c in refused.value.conflicts] == [view.booking.id]
    assert all(not r.unavailable_periods for r in store.tables.resources.values())
    assert store.tables.audit == []


def test_a_block_closes_every_resource_and_refuses_bookings_in_it(deps: Deps, store: InMemoryStore) -> None:
    placed = create_blocks(deps, None, VENUE, block(9, 12, reason="holiday", note="fair"))
    assert [(b.resource.id, b.block.source, b.block.reason.value) for b in placed.blocks] == [
        (1, BlockSource.STAFF, "holiday"),
        (2, BlockSource.STAFF, "holiday"),
    ]
    with pytest.raises(SlotUnavailable):
        book(deps, user_actor(deps), at(3, 11))
    assert [e.action for e in store.tables.audit] == [AuditAction.BLOCK_CREATE] * 2
    listed = list_blocks(deps, None, VENUE, date(2026, 6, 3), date(2026, 6, 3))
    assert [b.block.id for b in listed.items] == [b.block.id for b in placed.blocks]
    assert list_blocks(deps, None, VENUE, date(2026, 6, 4), None).items == []


def test_cancel_makes_room_and_refunds_a_paid_booking(deps: Deps, store: InMemoryStore) -> None:
    actor = user_actor(deps)
    view = book(deps, actor, at(3, 10))
    pay(deps, view, actor)
    placed = create_blocks(
        deps, None, VENUE, block(9, 12, resource_ids=(1,), reason="weather", on_conflict="cancel")
    )
    (done,) = placed.cancelled
    assert (done.booking.status, done.booking.cancellation_reason) == (
        BookingStatus.CANCELLED,
        CancellationReason.WEATHER,
    )
    assert str(done.refund_amount) == "20.00"
    assert sorted(e.action for e in store.tables.audit) == [
        AuditAction.BLOCK_CREATE,
        AuditAction.BOOKING_CANCEL,
    ]


@pytest.mark.parametrize(
    ("cmd", "field"),
    [
        (block(10, 9), "end_datetime"),
        (block(9, 10, reason="rain"), "reason"),
        (block(9, 10, on_conflict="skip"), "on_conflict"),
        (block(9, 10, resource_ids=()), "resource_ids"),
    ],
)
def test_bad_commands_name_their_field(deps: Deps, cmd: NewBlock, field: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        create_blocks(deps, None, VENUE, cmd)
    assert refused.value.field == field


def test_unknown_resources_and_catalog_periods(deps: Deps, store: InMemoryStore) -> None:
    with pytest.raises(NotFound):
        create_blocks(deps, None, VENUE, block(9, 10, resource_ids=(99,)))
    with pytest.raises(NotFound):
        create_blocks(deps, None, 42, block(9, 10))
    placed = create_blocks(deps, None, VENUE, block(9, 10, resource_ids=(2,)))
    block_id = placed.blocks[0].block.id
    assert block_id is not None
    delete_block(deps, None, block_id)
    with pytest.raises(NotFound):
        delete_block(deps, None, block_id)
    catalog = UnavailablePeriod(id=500, resource_id=1, start=at(5, 8), end=at(5, 12))
    store.tables.resources[1] = replace(store.tables.resources[1], unavailable_periods=(catalog,))
    with pytest.raises(BadRequest):
        delete_block(deps, None, 500)


def test_the_day_sheet_offers_time_without_the_lead_time(deps: Deps, store: InMemoryStore) -> None:
    store.tables.resources[2] = replace(store.tables.resources[2], min_advance_booking_minutes=24 * 60)
    view = book(deps, user_actor(deps), at(1, 12))
    create_blocks(deps, None, VENUE, NewBlock(resource_ids=(2,), start=at(1, 18), end=at(1, 20)))

    sheet = day_sheet(deps, None, VENUE, None, include_cancelled=False)

    assert sheet.date == date(2026, 6, 1)  # today in Berlin
    court_1, court_2 = sheet.resources
    assert [b.booking.id for b in court_1.bookings] == [view.booking.id]
    # now is 08:00: the gap rule (60 minutes) lets the first start be 09:00
    assert [(f.start_time.hour, f.end_time.hour) for f in court_1.free] == [(9, 12), (13, 22)]
    # a day's lead time hides all of today from customers; staff still see it free
    assert [(f.start_time.hour, f.end_time.hour) for f in court_2.free] == [(9, 18), (20, 22)]
    assert [b.start for b in court_2.blocks] == [at(1, 18)]
