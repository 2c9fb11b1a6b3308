"""Throw-away PostgreSQL databases for the integration tests.

The server comes from ``BOOKING_TEST_POSTGRES_URL``. Without a reachable server the PostgreSQL tests
skip, except under ``CI=true``, where they are mandatory and fail instead.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import sql

DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
_CONNECT_TIMEOUT_SECONDS = 3


def postgres_admin_url() -> str:
    """URL of a database on the test server with the right to create and drop databases."""
    return os.environ.get("BOOKING_TEST_POSTGRES_URL") or DEFAULT_ADMIN_URL


def postgres_available() -> bool:
    """Whether the test server answers within a few seconds."""
    try:
        with psycopg.connect(postgres_admin_url(), connect_timeout=_CONNECT_TIMEOUT_SECONDS):
            return True
    except psycopg.Error:
        return False


def require_postgres() -> None:
    """Skip the calling test without a server; under ``CI=true`` fail it instead."""
    if postgres_available():
        return
    message = f"PostgreSQL not reachable at {postgres_admin_url()} (set BOOKING_TEST_POSTGRES_URL)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def temporary_database() -> Iterator[str]:
    """Create a uniquely named database, yield its ``postgresql://`` URL, drop it afterwards."""
    admin_url = postgres_admin_url()
    name = f"booking_test_{secrets.token_hex(6)}"
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_SECONDS) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield _with_database(admin_url, name)
    finally:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=_CONNECT_TIMEOUT_SECONDS) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _with_database(url: str, name: str) -> str:
    """The same server, credentials and options as ``url``, pointing at database ``name``."""
    return urlsplit(url)._replace(path=f"/{name}").geturl()
