"""Settings and fixtures shared by every test: empty (unmigrated) databases, and the HTTP app over a
loaded database of each backend (``tests.support.http_fixtures``), available to every module of
``tests/integration`` and ``tests/e2e`` without importing them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support import server
from tests.support.http_fixtures import (
    api,
    clone_postgres,
    database_url,
    loaded_sqlite_url,
    postgres_template,
    sqlite_template,
)
from tests.support.postgres import require_postgres, temporary_database

__all__ = [
    "api",
    "clone_postgres",
    "database_url",
    "loaded_sqlite_url",
    "postgres_template",
    "sqlite_template",
]

_SERVERS_BEFORE = pytest.StashKey[int]()

# Speed is measured by the benchmarks, not by per-example deadlines that flake on a busy CI machine.
settings.register_profile("booking", deadline=None, print_blob=True)
settings.register_profile("thorough", parent=settings.get_profile("booking"), max_examples=1500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "booking"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_SERVERS_BEFORE] = len(server.started())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test's report ends with the tail of the log of every ``booking serve`` it ran against
    (the whole log stays in the test's temporary directory)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not report.failed or _SERVERS_BEFORE not in item.stash:
        return
    for log in server.logs_of_test(item.stash[_SERVERS_BEFORE]):
        report.sections.append((f"booking serve log {log} (last lines)", server.tail(log)))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """``sqlite:///`` URL of a database file that does not exist yet."""
    return f"sqlite:///{tmp_path / 'booking.sqlite3'}"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """URL of a fresh, empty PostgreSQL database, dropped afterwards (skips without a server)."""
    require_postgres()
    with temporary_database() as url:
        yield url
