"""A pooled PostgreSQL connection is pinged before use only when it sat idle (adapters.sqla.engine)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, text

from adapters.sqla import make_engine
from adapters.sqla.engine import PING_AFTER_IDLE_S


def _backend_pid(engine: Engine) -> int:
    with engine.connect() as connection:
        pid: int = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
    return pid


def _terminate(postgres_url: str, pid: int) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))  # waits until it is gone


def _counting_pings(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    real = engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return real(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", counted)
    return pings


def test_a_connection_back_from_use_moments_ago_is_not_pinged(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(postgres_url, pool_size=1, max_overflow=0)
    try:
        pings = _counting_pings(engine, monkeypatch)
        pids = {_backend_pid(engine) for _ in range(5)}
        assert pings == []
        assert len(pids) == 1  # one pooled connection, reused each time
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "ping_after_idle_s",
    [
        pytest.param(0.0, id="after sitting idle"),  # a server restart or an idle timeout
        # a failover (pg_terminate_backend): the goodbye waits on the socket
        pytest.param(PING_AFTER_IDLE_S, id="moments after use"),
    ],
)
def test_a_connection_ended_in_the_pool_is_replaced_before_use(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, ping_after_idle_s: float
) -> None:
    engine = make_engine(postgres_url, pool_size=1, max_overflow=0, ping_after_idle_s=ping_after_idle_s)
    try:
        pings = _counting_pings(engine, monkeypatch)
        first = _backend_pid(engine)
        _terminate(postgres_url, first)
        second = _backend_pid(engine)  # no error: the ping found it dead, the pool connected anew
        assert second != first
        assert pings == [1]
    finally:
        engine.dispose()
