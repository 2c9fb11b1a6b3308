"""The per-process resource cache is exact: any catalog write is seen by the next read."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import delete, event, select
from sqlalchemy.orm import Session

from adapters.sqla import SqlaUnitOfWork, make_engine, upgrade
from adapters.sqla.models import ResourceRow, TimeSlotRow, UnavailablePeriodRow
from booking_core.catalog import UnavailablePeriod
from booking_core.ports.repositories import ResourceQuery
from tests.support.seed import demo_resource, seed


@pytest.fixture(params=["sqlite", "postgres"])
def uow_factory(request: pytest.FixtureRequest) -> object:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    upgrade(url)
    engine = make_engine(url)
    seed(engine, demo_resource(id=1))
    yield SqlaUnitOfWork.factory(engine), engine
    engine.dispose()


def read(factory: object) -> object:
    with factory() as uow:  # type: ignore[operator]
        return uow.resources.get(1)


def test_unchanged_catalog_is_served_from_the_cache(uow_factory: tuple[object, object]) -> None:
    factory, _engine = uow_factory
    assert read(factory) is read(factory)


def test_every_kind_of_catalog_write_is_seen_at_once(uow_factory: tuple[object, object]) -> None:
    factory, engine = uow_factory
    before = read(factory)
    with Session(engine) as session, session.begin():
        session.scalars(select(ResourceRow).where(ResourceRow.id == 1)).one().base_price = Decimal("99.00")
    after_price = read(factory)
    assert after_price is not before
    assert after_price.base_price == Decimal("99.00")  # type: ignore[attr-defined]

    with Session(engine) as session, session.begin():
        slot = session.scalars(select(TimeSlotRow).order_by(TimeSlotRow.id)).first()
        assert slot is not None
        slot.end_time = time(9)
    shrunk = read(factory)
    first_slots = [s.end_time for sch in shrunk.schedules for s in sch.time_slots]  # type: ignore[attr-defined]
    assert time(9) in first_slots

    with Session(engine) as session, session.begin():
        session.execute(delete(UnavailablePeriodRow))
        session.scalars(select(ResourceRow).where(ResourceRow.id == 1)).one().is_active = False
    assert read(factory).is_active is False  # type: ignore[attr-defined]


@pytest.fixture
def sent(uow_factory: tuple[object, object]) -> list[str]:
    """Every statement the engine sends from here on."""
    _, engine = uow_factory
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    return statements


def _selects(statements: list[str], reading: str = "") -> int:
    """How many of ``statements`` are SELECTs (only the reads: a writing unit of work on SQLite also
    sends BEGIN IMMEDIATE), of those reading ``reading`` where given."""
    return sum(s.lstrip().startswith("SELECT") and reading in s for s in statements)


def _listed(factory: object, sent: list[str]) -> tuple[list[object], int]:
    """The active resources as the list reads them, and how many SELECTs that took."""
    before = len(sent)
    with factory() as uow:  # type: ignore[operator]
        found = uow.resources.list(ResourceQuery(), limit=10)
        return found, _selects(sent[before:])


def test_a_list_takes_its_resources_from_the_cache_and_sees_a_change_at_once(
    uow_factory: tuple[object, object], sent: list[str]
) -> None:
    factory, engine = uow_factory
    seed(engine, demo_resource(id=2, name="Court 2"))
    first, loading = _listed(factory, sent)
    again, cached = _listed(factory, sent)
    assert [r.name for r in again] == ["Court 1", "Court 2"]  # type: ignore[attr-defined]
    assert all(a is b for a, b in zip(again, first, strict=True))
    assert cached == 2 < loading  # the catalog revision, then the ids; nothing else
    assert [r.id for r in again] == [r.id for r in first]  # type: ignore[attr-defined]

    with Session(engine) as session, session.begin():
        session.scalars(select(ResourceRow).where(ResourceRow.id == 2)).one().name = "Court 0"
    changed, _ = _listed(factory, sent)
    assert [r.name for r in changed] == ["Court 0", "Court 1"]  # type: ignore[attr-defined]
    assert changed[1] is not first[0]  # reloaded at the new revision


def test_a_unit_of_work_reads_the_catalog_revision_once_until_it_writes_the_catalog(
    uow_factory: tuple[object, object], sent: list[str]
) -> None:
    """A page of bookings asks for each booking's resource: one revision query, not one each."""
    factory, engine = uow_factory
    seed(engine, demo_resource(id=2, name="Court 2"))
    before = len(sent)
    with factory() as uow:  # type: ignore[operator]
        for resource_id in (1, 2, 1, 2):
            assert uow.resources.get(resource_id) is not None
        assert _selects(sent[before:], "FROM catalog_revision") == 1
        uow.session.scalars(select(ResourceRow).where(ResourceRow.id == 2)).one().name = "Court 9"
        uow.session.flush()
        assert uow.resources.get(2).name == "Court 9"  # the write is seen in the unit of work,
        # from the database: a unit of work that changed the catalog has no committed revision to
        # compare with, so it neither takes from the cache nor fills it
        assert _selects(sent[before:], "FROM catalog_revision") == 1


def test_a_unit_of_work_that_changed_the_catalog_and_rolled_back_leaves_nothing_in_the_cache(
    uow_factory: tuple[object, object],
) -> None:
    """Its revision was its own: had it cached under that number, the next commit of the same number
    (a closure added elsewhere) would be served the resource without that closure."""
    factory, engine = uow_factory
    read(factory)
    with factory() as uow:  # type: ignore[operator]
        uow.blocks.lock([1])  # moves the revision, as placing a block does
        assert uow.resources.get(1).unavailable_periods == ()  # read after its own change
        uow.rollback()
    start = datetime(2026, 6, 3, 8, tzinfo=UTC)
    with Session(engine) as session, session.begin():  # one flush: the revision moves by one
        session.add(UnavailablePeriodRow(resource_id=1, start_at=start, end_at=start + timedelta(hours=2)))
    assert [p.start for p in read(factory).unavailable_periods] == [start]  # type: ignore[attr-defined]


def test_a_block_placed_by_another_process_is_seen_by_the_next_read(
    uow_factory: tuple[object, object],
) -> None:
    factory, engine = uow_factory
    assert read(factory).unavailable_periods == ()  # type: ignore[attr-defined]  # cached now
    elsewhere = SqlaUnitOfWork.factory(engine)  # another process: a cache of its own
    start = datetime(2026, 6, 3, 8, tzinfo=UTC)
    with elsewhere() as uow:
        uow.blocks.lock([1])
        stored = uow.blocks.add(UnavailablePeriod(resource_id=1, start=start, end=start + timedelta(hours=2)))
        uow.commit()
    assert read(factory).unavailable_periods == (stored,)  # type: ignore[attr-defined]
