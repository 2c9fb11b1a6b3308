"""The real HTTP app over real databases, for the ``test_http_*`` modules.

Each test gets a fresh database copied from a template that is migrated and loaded with
:data:`CATALOG` once per session (a file copy on SQLite, ``CREATE DATABASE ... TEMPLATE`` on
PostgreSQL), the services of :func:`entrypoints.bootstrap.bootstrap` with a clock the test controls,
and a :class:`litestar.testing.TestClient` on :func:`entrypoints.http.app.create_app`.

Test modules import the fixtures they use by name (``from tests.support.http_fixtures import api``).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email import message_from_bytes
from email import policy as email_policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import psycopg
import pytest
from litestar.testing import TestClient
from psycopg import sql

from adapters.catalog import validate_catalog, write_catalog
from adapters.mail import FileMailer
from adapters.passwords import Argon2Passwords
from adapters.payments import StripeGateway
from adapters.payments.sandbox import sign
from adapters.payments.stripe import CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS
from adapters.sqla import make_engine
from adapters.sqla.migrate import upgrade
from booking_core.paging import Page
from booking_core.ports import ResourceQuery
from booking_core.usecases.browse import list_resources
from booking_core.usecases.email_notifier import email_only
from booking_core.usecases.outbox import dispatch_outbox
from entrypoints.bootstrap import Services, bootstrap
from entrypoints.config import Settings
from entrypoints.http.app import create_app
from tests.support.postgres import postgres_admin_url, require_postgres, temporary_database

logging.getLogger("httpx").setLevel(logging.WARNING)

#: Monday 2026-06-01, 08:00 in Berlin (CEST, +02:00): every test starts here.
NOW = datetime(2026, 6, 1, 6, 0, tzinfo=UTC)

ANNA = "user-token-anna"
BEN = "user-token-ben"
PARTNER = "client-token-partner"
OTHER = "client-token-other"
ANNA_PASSWORD = "anna-long-passphrase"
#: Staff tokens (CONTRACT 7.1): desk and manager at center-court, manager at harbour-padel, admin.
DESK = "staff-token-desk"
MANAGER = "staff-token-manager"
HARBOUR_MANAGER = "staff-token-harbour"
ADMIN = "staff-token-admin"
OPERATOR = "/api/v1/operator"

_DAILY = [
    {"start_time": "08:00:00", "end_time": "17:00:00", "price_per_unit": "20.00"},
    {"start_time": "17:00:00", "end_time": "22:00:00", "price_per_unit": "30.00", "label": "Peak"},
]
_EVERY_DAY = [{"day_of_week": d, "time_slots": _DAILY} for d in range(1, 8)]


def _resource(name: str, **overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "description": f"{name} for tests",
        "capacity": 4,
        "base_price": "20.00",
        "currency": "EUR",
        "price_unit": "hour",
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 180,
        "prevent_unbookable_gaps": True,
        "activity_types": ["tennis"],
        "attributes": {"surface": "clay"},
        "schedules": _EVERY_DAY,
    }
    return base | overrides


CATALOG: Mapping[str, Any] = {
    "venues": [
        {
            "slug": "center-court",
            "name": "Center Court Club",
            "description": "Clay courts",
            "short_description": "Clay",
            "venue_type": "tennis_club",
            "street_address": "Hauptstrasse 1",
            "city": "Berlin",
            "postal_code": "10115",
            "country": "DE",
            "latitude": "52.520008",
            "longitude": "13.404954",
            "timezone": "Europe/Berlin",
            "operator_email": "ops@center-court.example",
            "resources": [
                _resource(
                    "Court 1",
                    unavailable_periods=[
                        {
                            "start_datetime": "2026-06-05T08:00:00+02:00",
                            "end_datetime": "2026-06-05T12:00:00+02:00",
                            "reason": "maintenance",
                        }
                    ],
                ),
                _resource(
                    "Court 2",
                    prevent_unbookable_gaps=False,
                    max_booking_duration_minutes=120,
                    attributes={"surface": "hard"},
                    dynamic_pricing={"enabled": True, "min_price": "15.00", "max_price": "45.00"},
                ),
                _resource("Old Court", is_active=False),
            ],
        },
        {
            "slug": "harbour-padel",
            "name": "Harbour Padel",
            "venue_type": "padel_center",
            "street_address": "1 Pier Street",
            "city": "New York",
            "postal_code": "10004",
            "country": "US",
            "latitude": "40.700000",
            "longitude": "-74.010000",
            "timezone": "America/New_York",
            "operator_email": "ops@harbour.example",
            "provider_account_id": "acct_harbour",
            "resources": [
                _resource(
                    "Padel A",
                    base_price="32.00",
                    currency="USD",
                    booking_interval_minutes=60,
                    max_booking_duration_minutes=None,
                    prevent_unbookable_gaps=False,
                    cancellation_deadline_hours=24,
                    activity_types=["padel"],
                    attributes={"indoor": True},
                    schedules=[*_EVERY_DAY, {"specific_date": "2026-06-10", "time_slots": []}],
                ),
            ],
        },
    ],
    "users": [
        {
            "email": "anna@example.com",
            "first_name": "Anna",
            "last_name": "Schmidt",
            "language": "en",
            "password": ANNA_PASSWORD,
            "token": ANNA,
        },
        {"email": "ben@example.com", "first_name": "Ben", "last_name": "Meyer", "token": BEN},
        {"email": "desk@center-court.example", "first_name": "Dora", "last_name": "Desk", "token": DESK},
        {
            "email": "manager@center-court.example",
            "first_name": "Max",
            "last_name": "Manager",
            "token": MANAGER,
        },
        {
            "email": "manager@harbour.example",
            "first_name": "Hal",
            "last_name": "Harbour",
            "token": HARBOUR_MANAGER,
        },
        {
            "email": "admin@platform.example",
            "first_name": "Ada",
            "last_name": "Admin",
            "language": "en",
            "token": ADMIN,
        },
    ],
    "clients": [
        {
            "name": "PartnerApp",
            "commission_percent": "10.00",
            "contact_email": "finance@partner.example",
            "token": PARTNER,
        },
        {
            "name": "OtherApp",
            "commission_percent": "5.00",
            "contact_email": "finance@other.example",
            "token": OTHER,
        },
    ],
    "staff": [
        {"email": "desk@center-court.example", "role": "desk", "venues": ["center-court"]},
        {"email": "manager@center-court.example", "role": "manager", "venues": ["center-court"]},
        {"email": "manager@harbour.example", "role": "manager", "venues": ["harbour-padel"]},
        {"email": "admin@platform.example", "role": "admin"},
    ],
}


class FixedClock:
    """A clock that stands still until the test moves it."""

    def __init__(self, now: datetime = NOW) -> None:
        self.current = now

    def now(self) -> datetime:
        """The instant the test set."""
        return self.current

    def advance(self, **delta: float) -> None:
        """Move the clock forward, e.g. ``advance(minutes=20)``."""
        self.current += timedelta(**delta)


def auth(token: str | None = None, **headers: str) -> dict[str, str]:
    """Request headers: ``Authorization: Token <token>`` plus ``headers`` (``_`` becomes ``-``)."""
    out = {key.replace("_", "-"): value for key, value in headers.items()}
    if token is not None:
        out["Authorization"] = f"Token {token}"
    return out


@dataclass
class Api:
    """One test's running app: the HTTP client, the services behind it and their clock."""

    client: TestClient[Any]
    services: Services
    clock: FixedClock
    resources: dict[str, int]
    venues: dict[str, int]


def _load(url: str) -> None:
    upgrade(url)
    engine = make_engine(url)
    try:
        write_catalog(engine, validate_catalog(dict(CATALOG)), Argon2Passwords(), now=NOW)
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file with the catalog, copied by every test."""
    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    _load(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """The name of a migrated PostgreSQL database with the catalog, cloned by every test."""
    require_postgres()
    with temporary_database() as url:
        _load(url)
        yield url.rsplit("/", 1)[1]


def _sqlite_url(template: Path, directory: Path) -> str:
    target = directory / "booking.sqlite3"
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


@pytest.fixture
def clone_postgres(postgres_template: str) -> Iterator[str]:
    """A fresh PostgreSQL database cloned from the template."""
    admin = postgres_admin_url()
    name = f"booking_http_{secrets.token_hex(6)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(postgres_template)
            )
        )
    try:
        yield admin.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, loaded database on each backend."""
    if request.param == "postgres":
        url: str = request.getfixturevalue("clone_postgres")
        return url
    return _sqlite_url(request.getfixturevalue("sqlite_template"), tmp_path)


@pytest.fixture
def loaded_sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A fresh, loaded SQLite database (for tests of the HTTP edge that do not depend on storage)."""
    return _sqlite_url(sqlite_template, tmp_path)


def start(
    url: str,
    *,
    rate_limit_per_minute: int = 0,
    customize: Callable[[Services], Services] | None = None,
    **settings: Any,
) -> Iterator[Api]:
    """Build the services and the app for ``url`` (and other ``settings``) and run a test client on it."""
    clock = FixedClock()
    services = bootstrap(Settings(database_url=url, rate_limit_per_minute=rate_limit_per_minute, **settings))
    services = replace(services, deps=replace(services.deps, clock=clock))
    if customize is not None:
        services = customize(services)
    found = list_resources(
        services.deps, ResourceQuery(is_active=None, is_bookable=None), page=Page(limit=1000)
    ).items
    try:
        with TestClient(create_app(services), raise_server_exceptions=False) as client:
            yield Api(
                client=client,
                services=services,
                clock=clock,
                resources={r.name: r.id for r in found},
                venues={r.venue.slug: r.venue.id for r in found},
            )
    finally:
        services.close()


#: The publishable key the services hand out when ``start_on_fake_stripe`` runs them.
FAKE_STRIPE_PUBLISHABLE_KEY = "pk_test_flow"


def start_on_fake_stripe(
    url: str,
    fake_url: str,
    mail_dir: Path,
    *,
    webhook_secret: str,
    timeout: tuple[float, float] | None = None,
) -> Iterator[Api]:
    """``start`` with the real Stripe gateway talking to the fake Stripe at ``fake_url``
    (``tests.support.fake_stripe``), webhooks signed with ``webhook_secret`` and mail written as files
    to ``mail_dir``; ``timeout`` (connect, read seconds) replaces the gateway's own."""

    def with_stripe(services: Services) -> Services:
        settings = replace(
            services.settings,
            payment_provider="stripe",
            stripe_secret_key="sk_test_flow",
            stripe_publishable_key=FAKE_STRIPE_PUBLISHABLE_KEY,
            stripe_webhook_secret=webhook_secret,
            stripe_api_base=fake_url,
        )
        gateway = StripeGateway(
            secret_key=settings.stripe_secret_key,
            publishable_key=settings.stripe_publishable_key,
            api_base=fake_url,
            timeout=(CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS) if timeout is None else timeout,
            webhook_secret=webhook_secret,
            currencies=services.deps.currencies,
        )
        mailer = FileMailer(mail_dir, sender="bookings@service.example")
        return replace(
            services, settings=settings, deps=replace(services.deps, payments=gateway), mailer=mailer
        )

    yield from start(url, customize=with_stripe)


@pytest.fixture
def api(database_url: str) -> Iterator[Api]:
    """The app on a fresh database of each backend, rate limit off."""
    yield from start(database_url)


# --------------------------------------------------------------------------- request helpers

BOOKINGS = "/api/v1/bookings/"


def book(
    api: Api,
    token: str,
    resource: str,
    start: str,
    end: str,
    *,
    expect: int | None = 201,
    headers: Mapping[str, str] | None = None,
    **body: Any,
) -> dict[str, Any]:
    """POST a booking of ``resource`` (by name) and return the JSON answer (checking ``expect``)."""
    payload = {"resource": api.resources[resource], "start_datetime": start, "end_datetime": end, **body}
    response = api.client.post(BOOKINGS, json=payload, headers={**auth(token), **(headers or {})})
    if expect is not None:
        assert response.status_code == expect, response.text
    answer: dict[str, Any] = response.json()
    return answer


def post_event(api: Api, event: Mapping[str, Any], *, at: datetime | None = None) -> Any:
    """Deliver a correctly signed provider webhook."""
    payload = json.dumps(event).encode()
    timestamp = int((at or api.clock.now()).timestamp())
    signature = sign(payload, api.services.settings.stripe_webhook_secret, timestamp)
    return api.client.post(
        "/webhooks/provider/",
        content=payload,
        headers={"Stripe-Signature": signature, "Content-Type": "application/json"},
    )


def pay(api: Api, token: str, booking_id: str, headers: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Open the payment intent of a booking and settle it through the signed webhook."""
    response = api.client.post(
        f"{BOOKINGS}{booking_id}/create-payment-intent/", headers={**auth(token), **(headers or {})}
    )
    assert response.status_code == 200, response.text
    intent: dict[str, Any] = response.json()
    amount = int(Decimal(intent["amount"]) * 100)
    event = {
        "id": f"evt_{secrets.token_hex(8)}",
        "type": "payment_intent.succeeded",
        "data": {
            "object": {
                "id": intent["payment_intent_id"],
                "object": "payment_intent",
                "amount": amount,
                "currency": intent["currency"].lower(),
                "metadata": {"booking_id": booking_id},
            }
        },
    }
    delivered = post_event(api, event)
    assert delivered.status_code == 200, delivered.text
    return event


# --------------------------------------------------------------------------- mailed one-time codes

AUTH = "/api/v1/auth"
_CODE = re.compile(r"\b(\d{8})\b")


def mailed(api: Api, recipient: str) -> list[EmailMessage]:
    """Send what the outbox holds through the file mail backend; the messages to ``recipient``."""
    directory = Path(tempfile.mkdtemp(prefix="mail-"))
    try:
        dispatch_outbox(
            api.services.deps, email_only(FileMailer(directory, sender="bookings@service.example"))
        )
        messages = [
            message_from_bytes(path.read_bytes(), policy=email_policy.default)
            for path in sorted(directory.glob("*.eml"))
        ]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return [m for m in messages if isinstance(m, EmailMessage) and recipient in str(m["To"])]


def mailed_code(api: Api, recipient: str) -> str:
    """The one-time code of the one mail the outbox held for ``recipient`` (read from the .eml)."""
    (message,) = mailed(api, recipient)
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    found = _CODE.search(body.get_content())
    assert found is not None, body.get_content()
    return found.group(1)


def register_confirmed(
    api: Api, email: str, password: str = "ten-chars-or-more", **fields: str
) -> dict[str, Any]:
    """Register a direct user and confirm the address with the code from the mail; the 201 answer."""
    response = api.client.post(f"{AUTH}/register/", json={"email": email, "password": password, **fields})
    assert response.status_code == 201, response.text
    confirmed = api.client.post(
        f"{AUTH}/confirm-email/", json={"email": email, "code": mailed_code(api, email)}
    )
    assert confirmed.status_code == 200, confirmed.text
    registered: dict[str, Any] = response.json()
    return registered
