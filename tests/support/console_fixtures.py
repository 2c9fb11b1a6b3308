"""The console's test data: the HTTP tests' catalog, with passwords for its staff and one customer."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.catalog import validate_catalog, write_catalog
from adapters.passwords import Argon2Passwords
from adapters.sqla import make_engine
from adapters.sqla.migrate import upgrade
from adapters.sqla.unit_of_work import SqlaUnitOfWork
from booking_core.booking import Booking, BookingStatus
from booking_core.ports.repositories import ResourceQuery
from tests.support.http_fixtures import CATALOG, NOW

STAFF_PASSWORD = "staff-long-passphrase"
DESK_EMAIL = "desk@center-court.example"  # desk at Center Court, speaks German (the default)
ADMIN_EMAIL = "admin@platform.example"  # admin of the platform, speaks English
CUSTOMER_EMAIL = "anna@example.com"  # a customer: no console
CUSTOMER_PASSWORD = "anna-long-passphrase"


def _with_password(user: Mapping[str, Any]) -> dict[str, Any]:
    staff = {s["email"] for s in CATALOG["staff"]}
    return {**user, "password": STAFF_PASSWORD} if user["email"] in staff else dict(user)


CONSOLE_CATALOG: Mapping[str, Any] = {**CATALOG, "users": [_with_password(u) for u in CATALOG["users"]]}


def load_console_catalog(url: str) -> None:
    """Migrate ``url`` and load :data:`CONSOLE_CATALOG` into it."""
    upgrade(url)
    engine = make_engine(url)
    try:
        write_catalog(engine, validate_catalog(dict(CONSOLE_CATALOG)), Argon2Passwords(), now=NOW)
    finally:
        engine.dispose()


def store_started_booking(url: str, resource_name: str, start: dt.datetime, minutes: int) -> Booking:
    """Store Anna's confirmed booking of ``resource_name`` straight through the unit of work: a booking
    that has already started cannot be made through the API, and a no-show needs one."""
    engine = make_engine(url)
    try:
        with SqlaUnitOfWork.factory(engine)() as uow:
            anna = uow.users.get_by_email(CUSTOMER_EMAIL)
            assert anna is not None
            query = ResourceQuery(is_active=None, is_bookable=None)
            (resource,) = [r for r in uow.resources.list(query) if r.name == resource_name]
            booking = Booking(
                id="00000000-0000-4000-a000-000000000001",
                reference_code="STARTED1",
                resource_id=resource.id,
                user_id=anna.id,
                start=start,
                end=start + dt.timedelta(minutes=minutes),
                price_per_unit=Decimal("20.00"),
                total_price=Decimal("20.00"),
                status=BookingStatus.CONFIRMED,
                created_at=start - dt.timedelta(days=1),
                updated_at=start - dt.timedelta(days=1),
            )
            uow.bookings.add(booking)
            uow.commit()
    finally:
        engine.dispose()
    return booking


@pytest.fixture(scope="session")
def console_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file with the console's catalog, copied by every test."""
    path = tmp_path_factory.mktemp("console") / "template.sqlite3"
    load_console_catalog(f"sqlite:///{path}")
    return path


@pytest.fixture
def console_sqlite_url(console_sqlite_template: Path, tmp_path: Path) -> str:
    """A fresh SQLite database with the console's catalog."""
    target = tmp_path / "booking.sqlite3"
    shutil.copyfile(console_sqlite_template, target)
    return f"sqlite:///{target}"


_CSRF = re.compile(r'name="_csrf_token" value="([^"]+)"')


def csrf_of(page: str) -> str:
    """The CSRF token of the first form on ``page``."""
    found = _CSRF.search(page)
    assert found is not None, "the page has no form with a CSRF token"
    return found.group(1)


def sign_in(client: TestClient[Any], email: str, password: str = STAFF_PASSWORD) -> Any:
    """Post the sign-in form as a browser would (with the token of the form it was shown)."""
    token = csrf_of(client.get("/console/login").text)
    return client.post(
        "/console/login",
        data={"email": email, "password": password, "_csrf_token": token},
        follow_redirects=False,
    )
