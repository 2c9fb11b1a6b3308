"""A pooled PostgreSQL connection is pinged before use only when it sat idle (adapters.sqla.engine)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, text

from adapters.sqla import make_engine


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


def test_a_connection_that_died_while_idle_is_replaced_before_use(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(postgres_url, pool_size=1, max_overflow=0, ping_after_idle_s=0.0)
    try:
        pings = _counting_pings(engine, monkeypatch)
        first = _backend_pid(engine)
        _terminate(postgres_url, first)  # as a server restart or an idle timeout would
        second = _backend_pid(engine)  # no error: the ping found it dead, the pool connected anew
        assert second != first
        assert pings != []
    finally:
        engine.dispose()


def test_a_connection_terminated_moments_after_use_is_replaced_before_use(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as pg_terminate_backend under a failover: the goodbye waits on the socket, the ping sees it
    engine = make_engine(postgres_url, pool_size=1, max_overflow=0)
    try:
        pings = _counting_pings(engine, monkeypatch)
        first = _backend_pid(engine)
        _terminate(postgres_url, first)
        second = _backend_pid(engine)
        assert second != first
        assert pings == [1]
    finally:
        engine.dispose()
