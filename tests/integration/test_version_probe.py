"""``adapters.sqla.version_probe``: the data version on the event loop reads what the repository reads."""

from __future__ import annotations

import asyncio

import pytest

from adapters.sqla.version_probe import DataVersionProbe
from booking_core.ports import DataVersion
from tests.support.http_fixtures import (
    ANNA,
    Api,
    book,
    clone_postgres,
    postgres_template,
    start,
)
from tests.support.server import free_port

__all__ = ["clone_postgres", "postgres_template"]

pytestmark = pytest.mark.postgres


def _probed(probe: DataVersionProbe, resource_ids: list[int]) -> list[DataVersion | None]:
    async def read() -> list[DataVersion | None]:
        await probe.start()
        try:
            return [await probe.version(rid) for rid in resource_ids]
        finally:
            await probe.stop()

    return asyncio.run(read())


def _read(api: Api, resource_id: int) -> DataVersion | None:
    with api.services.deps.read() as uow:
        return uow.availability.version(resource_id)


def test_it_reads_the_repositorys_version_and_sees_each_change(clone_postgres: str) -> None:
    for api in start(clone_postgres):
        probe = api.services.version_probe()
        assert probe is not None
        court, other = api.resources["Court 1"], api.resources["Court 2"]
        before = _probed(probe, [court, other])
        assert before == [_read(api, court), _read(api, other)]
        book(api, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
        after = _probed(probe, [court, other])
        assert after == [_read(api, court), _read(api, other)]
        assert after[0] != before[0]
        assert after[1] == before[1]


def test_it_cannot_tell_before_start_or_after_stop(clone_postgres: str) -> None:
    probe = DataVersionProbe(clone_postgres)

    async def outside() -> tuple[DataVersion | None, DataVersion | None, DataVersion | None]:
        unstarted = await probe.version(1)
        await probe.start()
        started = await probe.version(1)
        await probe.stop()
        return unstarted, started, await probe.version(1)

    unstarted, started, stopped = asyncio.run(outside())
    assert started is not None
    assert unstarted is None
    assert stopped is None


def test_a_database_that_does_not_answer_gives_none_not_an_error() -> None:
    # nothing listens on the port: the pool gives up after its checkout timeout
    probe = DataVersionProbe(f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere")
    assert _probed(probe, [1]) == [None]


def test_it_needs_postgresql(tmp_path: object) -> None:
    with pytest.raises(ValueError, match="PostgreSQL"):
        DataVersionProbe(f"sqlite:///{tmp_path}/booking.sqlite3")
