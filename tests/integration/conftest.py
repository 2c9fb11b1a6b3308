"""Fixtures shared by the integration tests: empty (unmigrated) databases, and the HTTP app over a
loaded database of each backend (``tests.integration.http_fixtures``), available to every module
without importing them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.http_fixtures import (
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
