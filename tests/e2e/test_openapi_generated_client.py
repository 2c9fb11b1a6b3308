"""A Python client generated from the served document (``openapi-python-client``, offline) runs the
partner flow against a live ``booking serve``: map a user and a resource, read availability, book,
open the payment intent, list, cancel.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.support.http_fixtures import CATALOG, PARTNER
from tests.support.server import serving

pytestmark = pytest.mark.slow

GENERATOR = str(Path(sys.executable).with_name("openapi-python-client"))
PACKAGE = "booking_partner_client"
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("generated-client")
    with serving(f"sqlite:///{tmp / 'booking.sqlite3'}", CATALOG, tmp, workers=1) as base:
        yield base


@pytest.fixture(scope="module")
def generated(live_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The client package generated from ``/schema/openapi.json`` as served, imported."""
    out = tmp_path_factory.mktemp("client")
    spec = out / "openapi.json"
    spec.write_bytes(httpx.get(f"{live_server}/schema/openapi.json").content)
    config = out / "config.yaml"
    config.write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")  # no formatter run needed
    result = subprocess.run(
        [
            GENERATOR,
            "generate",
            "--path",
            str(spec),
            "--output-path",
            str(out / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout + result.stderr, (
        result.stdout + result.stderr
    )  # every part understood
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def _module(package: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{name}")


def _at(day: date, clock: str) -> str:
    """An ISO 8601 date-time with the venue's offset."""
    return datetime.combine(day, time.fromisoformat(clock), BERLIN).isoformat()


def test_partner_flow_through_the_generated_client(generated: ModuleType, live_server: str) -> None:
    api = lambda name: _module(generated, f"api.{name}")  # noqa: E731
    models = _module(generated, "models")
    client = generated.AuthenticatedClient(base_url=live_server, token=PARTNER, prefix="Token")
    user = "partner-user-1"

    # the resource to map, found by browsing
    resources = api("resources.list_resources").sync(client=client)
    court = next(r for r in resources if r.name == "Court 1")

    registered = api("client.register_user").sync_detailed(
        client=client,
        body=models.RegisterUserIn(external_id=user, email="partner-user-1@example.com", first_name="Lena"),
    )
    assert registered.status_code == 201, registered.content
    assert registered.parsed.external_id == user
    assert registered.parsed.created is True

    mapped = api("client.register_resource").sync(
        client=client, body=models.RegisterResourceIn(external_id="court-a", resource_id=court.id)
    )
    assert mapped.resource_id == court.id
    assert mapped.resource_name == "Court 1"

    day = datetime.now(BERLIN).date() + timedelta(days=2)
    availability = api("resources.get_availability").sync(
        client=client, resource_external_id="court-a", start_date=day.isoformat(), end_date=day.isoformat()
    )
    assert isinstance(availability, models.AvailabilityOut), availability
    first = availability.available_ranges[0]
    assert first.start_time == "08:00:00"

    created = api("bookings.create_booking").sync_detailed(
        client=client,
        body=models.CreateBookingIn(
            resource_external_id="court-a",
            start_datetime=_at(first.date, first.start_time),
            end_datetime=_at(first.date, "09:30:00"),
            notes="generated client",
        ),
        x_user_external_id=user,
        idempotency_key="flow-1",
    )
    assert created.status_code == 201, created.content
    booking = created.parsed
    assert isinstance(booking, models.ClientBookingCreated), booking  # the short body, as documented
    assert booking.status == "pending"
    assert booking.total_price == "30.00"

    intent = api("bookings.create_payment_intent").sync(
        client=client, booking_id=UUID(booking.id), x_user_external_id=user
    )
    assert isinstance(intent, models.PaymentIntentOut), intent
    assert intent.amount == "30.00"
    assert intent.client_secret

    listed = api("bookings.list_bookings").sync(client=client, x_user_external_id=user)
    assert [b.id for b in listed] == [booking.id]

    cancelled = api("bookings.cancel_booking").sync(
        client=client,
        booking_id=UUID(booking.id),
        body=models.CancelIn(reason="weather"),
        x_user_external_id=user,
    )
    assert isinstance(cancelled, models.CancelledOut), cancelled
    assert cancelled.status == "cancelled"

    # an error answer is parsed into the documented body
    refused = api("bookings.cancel_booking").sync(
        client=client, booking_id=UUID(booking.id), body=models.CancelIn(), x_user_external_id="nobody"
    )
    assert isinstance(refused, models.ErrorBody), refused
    assert refused.error == "no user found for that external_id"
