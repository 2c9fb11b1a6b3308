"""The per-process resource cache is exact: any catalog write is seen by the next read."""

from __future__ import annotations

from datetime import time
from decimal import Decimal

import pytest
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from adapters.sqla import SqlaUnitOfWork, make_engine, upgrade
from adapters.sqla.models import ResourceRow, TimeSlotRow, UnavailablePeriodRow
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
