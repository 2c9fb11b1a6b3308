"""A Python client generated from the served document (``openapi-python-client``, offline) runs the
partner flow against a live ``booking serve``: map a user and a resource, read availability, book,
open the payment intent, list, cancel; and the staff flow of the operator API (CONTRACT 7): the day
sheet, a walk-in, a block refused for its conflict, a cancel with a partial refund, a move.
"""

from __future__ import annotations

import importlib
import json
import secrets
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

from adapters.payments.sandbox import sign
from entrypoints.config import Settings
from tests.support.http_fixtures import ANNA, CATALOG, DESK, MANAGER, PARTNER
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import serving

pytestmark = pytest.mark.slow

GENERATOR = str(Path(sys.executable).with_name("openapi-python-client"))
PACKAGE = "booking_partner_client"
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def live_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``booking serve`` on a fresh database of each backend, the catalog loaded."""
    tmp = tmp_path_factory.mktemp("generated-client")
    if request.param == "sqlite":
        with serving(f"sqlite:///{tmp / 'booking.sqlite3'}", CATALOG, tmp, workers=1) as base:
            yield base
        return
    require_postgres()
    with temporary_database() as url, serving(url, CATALOG, tmp, workers=1) as base:
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


def _settle(live_server: str, intent: Any, booking_id: str) -> None:
    """Settle a payment intent as the provider does: its signed ``payment_intent.succeeded`` webhook."""
    event = {
        "id": f"evt_{secrets.token_hex(8)}",
        "type": "payment_intent.succeeded",
        "data": {
            "object": {
                "id": intent.payment_intent_id,
                "object": "payment_intent",
                "amount": int(float(intent.amount) * 100),
                "currency": intent.currency.lower(),
                "metadata": {"booking_id": booking_id},
            }
        },
    }
    payload = json.dumps(event).encode()
    signature = sign(payload, Settings().stripe_webhook_secret, int(datetime.now(BERLIN).timestamp()))
    delivered = httpx.post(
        f"{live_server}/webhooks/provider/",
        content=payload,
        headers={"Stripe-Signature": signature, "Content-Type": "application/json"},
    )
    assert delivered.status_code == 200, delivered.text


def test_staff_flow_through_the_generated_client(generated: ModuleType, live_server: str) -> None:
    api = lambda name: _module(generated, f"api.{name}")  # noqa: E731
    models = _module(generated, "models")
    desk = generated.AuthenticatedClient(base_url=live_server, token=DESK, prefix="Token")
    manager = generated.AuthenticatedClient(base_url=live_server, token=MANAGER, prefix="Token")
    anna = generated.AuthenticatedClient(base_url=live_server, token=ANNA, prefix="Token")

    (venue,) = api("operator.venues").sync(client=desk)
    assert venue.slug == "center-court"
    assert venue.role == "desk"
    court = next(r for r in venue.resources if r.name == "Court 1")
    day = datetime.now(BERLIN).date() + timedelta(days=3)

    # the day sheet: Court 1 free, nothing booked yet
    sheet = api("operator.venue_day").sync(client=desk, venue_id=venue.id, date=day.isoformat())
    assert isinstance(sheet, models.DaySheetOut), sheet
    assert sheet.date == day
    assert sheet.timezone == "Europe/Berlin"
    row = next(r for r in sheet.resources if r.id == court.id)
    assert row.bookings == []
    assert row.free[0].start_time == "08:00:00"

    # a walk-in, paid at the venue: confirmed at once
    walk_in = api("operator.create_staff_booking").sync_detailed(
        client=desk,
        body=models.StaffBookingIn(
            resource=court.id,
            start_datetime=_at(day, "10:00:00"),
            end_datetime=_at(day, "11:00:00"),
            customer=models.StaffCustomerIn(email="walk-in@example.com", first_name="Walter"),
            payment=models.StaffBookingInPayment.AT_VENUE,
            notes="walk-in",
        ),
        idempotency_key="walk-in-1",
    )
    assert walk_in.status_code == 201, walk_in.content
    booked = walk_in.parsed
    assert isinstance(booked, models.OpBooking), booked
    assert (booked.status, booked.source, booked.payment_method) == ("confirmed", "staff", "at_venue")
    assert booked.customer.email == "walk-in@example.com"
    assert booked.total_price == "20.00"

    # a block over it is refused: 409 with the conflicts, read as the documented body
    refused = api("operator.place_blocks").sync_detailed(
        client=desk,
        venue_id=venue.id,
        body=models.BlockIn(
            resource_ids=[court.id],
            start_datetime=_at(day, "10:30:00"),
            end_datetime=_at(day, "11:30:00"),
            reason=models.BlockInReason.MAINTENANCE,
        ),
    )
    assert refused.status_code == 409, refused.content
    conflict = refused.parsed
    assert isinstance(conflict, models.ConflictBody), conflict
    assert conflict.error == "the block overlaps bookings"
    assert [(c.booking_id, c.reference_code, c.resource_id, c.status) for c in conflict.conflicts] == [
        (booked.id, booked.reference_code, court.id, "confirmed")
    ]
    blocks = api("operator.venue_blocks").sync(
        client=desk, venue_id=venue.id, from_=day.isoformat(), to=day.isoformat()
    )
    assert blocks == []  # nothing written

    # a customer's booking, paid online, cancelled by the manager with a partial refund
    created = api("bookings.create_booking").sync_detailed(
        client=anna,
        body=models.CreateBookingIn(
            resource=court.id, start_datetime=_at(day, "12:00:00"), end_datetime=_at(day, "13:00:00")
        ),
        idempotency_key="anna-1",
    )
    assert created.status_code == 201, created.content
    paid_id = created.parsed.id
    intent = api("bookings.create_payment_intent").sync(client=anna, booking_id=UUID(paid_id))
    assert isinstance(intent, models.PaymentIntentOut), intent
    _settle(live_server, intent, paid_id)
    sheet = api("operator.venue_day").sync(client=desk, venue_id=venue.id, date=day.isoformat())
    row = next(r for r in sheet.resources if r.id == court.id)
    assert {(b.id, b.status) for b in row.bookings} == {(booked.id, "confirmed"), (paid_id, "paid")}

    partial = models.StaffCancelIn(
        reason=models.StaffCancelInReasonType1.OTHER,
        refund=models.StaffCancelInRefund.AMOUNT,
        amount="5.00",
        notes="court damaged",
    )
    as_desk = api("operator.cancel_staff_booking").sync_detailed(
        client=desk, booking_id=UUID(paid_id), body=partial
    )
    assert as_desk.status_code == 403, as_desk.content  # a chosen amount is the manager's
    assert isinstance(as_desk.parsed, models.DetailBody), as_desk.parsed
    cancelled = api("operator.cancel_staff_booking").sync(
        client=manager, booking_id=UUID(paid_id), body=partial
    )
    assert isinstance(cancelled, models.OpCancelledOut), cancelled
    assert cancelled.id == paid_id
    assert cancelled.status == "cancelled"  # a part refunded: cancelled, not refunded
    assert cancelled.cancelled_at is not None
    assert isinstance(cancelled.refund, models.OpRefundOut), cancelled.refund
    assert (cancelled.refund.amount, cancelled.refund.currency) == ("5.00", "EUR")

    # the walk-in moved to the afternoon: same booking, new time
    moved = api("operator.move_staff_booking").sync(
        client=desk,
        booking_id=UUID(booked.id),
        body=models.MoveBookingIn(start_datetime=_at(day, "14:00:00"), end_datetime=_at(day, "15:00:00")),
    )
    assert isinstance(moved, models.OpBooking), moved
    assert (moved.id, moved.reference_code, moved.status) == (booked.id, booked.reference_code, "confirmed")
    assert moved.start_datetime == datetime.combine(day, time(14), BERLIN)

    # the day sheet shows the day as it is now
    sheet = api("operator.venue_day").sync(client=desk, venue_id=venue.id, date=day.isoformat())
    row = next(r for r in sheet.resources if r.id == court.id)
    assert [(b.id, b.start_datetime) for b in row.bookings] == [(booked.id, moved.start_datetime)]
