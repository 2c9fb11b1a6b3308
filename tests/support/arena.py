"""A small venue with hourly courts, users and a client, and signed provider events, for the fault and
race tests that run ``booking serve`` (``tests.support.server``) and talk to it over real HTTP."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import psycopg

from adapters.payments.sandbox import sign

BERLIN = ZoneInfo("Europe/Berlin")
USER, OTHER, CLIENT = "arena-user", "arena-other", "arena-client"
#: The token of the venue's desk staff (CONTRACT 7.1).
DESK = "arena-desk"
SECRET = "whsec_dev"
#: An hour on a court costs 20.00 EUR: 2000 in the provider's minor units.
HOUR_MINOR = 2000


def court(
    name: str,
    *,
    interval_minutes: int = 60,
    gaps: bool = False,
    hours: tuple[str, str] = ("07:00:00", "23:00:00"),
) -> dict[str, Any]:
    """A court open ``hours`` every day at 20.00 an hour, booked in steps of ``interval_minutes`` for one
    to four hours, with the gap rule when ``gaps``."""
    slots = [{"start_time": hours[0], "end_time": hours[1], "price_per_unit": "20.00"}]
    return {
        "name": name,
        "capacity": 4,
        "base_price": "20.00",
        "currency": "EUR",
        "price_unit": "hour",
        "booking_interval_minutes": interval_minutes,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 240,
        "prevent_unbookable_gaps": gaps,
        "schedules": [{"day_of_week": d, "time_slots": slots} for d in range(1, 8)],
    }


def berlin_venue(slug: str, name: str, resources: list[dict[str, Any]]) -> dict[str, Any]:
    """A venue in Berlin holding ``resources``."""
    return {
        "slug": slug,
        "name": name,
        "venue_type": "tennis_club",
        "street_address": "Ringstrasse 9",
        "city": "Berlin",
        "postal_code": "10115",
        "country": "DE",
        "latitude": "52.52",
        "longitude": "13.40",
        "timezone": "Europe/Berlin",
        "operator_email": f"ops@{slug}.example",
        "resources": resources,
    }


def person(email: str, token: str) -> dict[str, str]:
    """A user of the catalog file, signed in by ``token``."""
    first, _, last = email.partition("@")
    return {"email": email, "first_name": first.capitalize(), "last_name": last.split(".")[0], "token": token}


def desk_of(email: str, *slugs: str) -> dict[str, Any]:
    """The catalog file's grant of the desk role at ``slugs`` to the user ``email``."""
    return {"email": email, "role": "desk", "venues": list(slugs)}


def catalog(courts: int = 4) -> dict[str, Any]:
    """One Berlin venue with ``courts`` courts open 07:00-23:00 at 20.00 an hour, two users, one client."""
    return {
        "venues": [berlin_venue("arena", "Fault Arena", [court(f"Court {n}") for n in range(1, courts + 1)])],
        "users": [
            person("player@example.com", USER),
            person("rival@example.com", OTHER),
            person("desk@arena.example", DESK),
        ],
        "staff": [desk_of("desk@arena.example", "arena")],
        "clients": [
            {
                "name": "ArenaApp",
                "commission_percent": "10.00",
                "contact_email": "finance@arena-app.example",
                "token": CLIENT,
            }
        ],
    }


#: The racing customer's token of :func:`race_catalog`, and its desk member's.
RACER, RACE_DESK = "race-user-token", "race-desk-token"


def race_catalog() -> dict[str, Any]:
    """The race tests' venue: two courts open 08:00-22:00 in half-hour steps, Court 1 with the gap rule
    (its bookings are checked one after another under the court's lock) and Court 2 without (the overlap
    constraint decides between bookings running side by side); a customer and a desk member."""
    hours = ("08:00:00", "22:00:00")
    courts = [court(f"Court {n}", interval_minutes=30, gaps=n == 1, hours=hours) for n in (1, 2)]
    return {
        "venues": [berlin_venue("race", "Race Arena", courts)],
        "users": [person("racer@example.com", RACER), person("desk@race.example", RACE_DESK)],
        "staff": [desk_of("desk@race.example", "race")],
        "clients": [],
    }


def as_user(token: str = USER) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


def as_client(external_id: str = "arena-player") -> dict[str, str]:
    return {"Authorization": f"Token {CLIENT}", "X-User-External-ID": external_id}


def hour(court: int, n: int, *, days_ahead: int = 3) -> dict[str, Any]:
    """The booking body of the ``n``-th hour (07:00-23:00, day after day) on ``court``."""
    day = datetime.now(BERLIN).date() + timedelta(days=days_ahead + n // 16)
    start = datetime(day.year, day.month, day.day, 7 + n % 16, tzinfo=BERLIN)
    end = start + timedelta(hours=1)
    return {"resource": court, "start_datetime": start.isoformat(), "end_datetime": end.isoformat()}


def event(
    event_id: str,
    kind: str,
    booking_id: str,
    intent_id: str,
    *,
    amount: int = HOUR_MINOR,
    refunded: int | None = None,
) -> bytes:
    """The body of a provider event of ``kind`` about the booking's intent (as Stripe shapes it);
    ``refunded`` is a ``charge.refunded``'s ``amount_refunded`` (part of ``amount``: a partial refund)."""
    found: dict[str, Any] = {"amount": amount, "currency": "eur", "metadata": {"booking_id": booking_id}}
    if kind.startswith("charge."):
        found |= {"id": f"ch_{intent_id}", "object": "charge", "payment_intent": intent_id}
        found["refunded"] = kind == "charge.refunded" and (refunded is None or refunded >= amount)
        if refunded is not None:
            found["amount_refunded"] = refunded
    else:
        found |= {"id": intent_id, "object": "payment_intent"}
    if kind == "payment_intent.payment_failed":
        found["last_payment_error"] = {"message": "Your card was declined."}
    return json.dumps({"id": event_id, "object": "event", "type": kind, "data": {"object": found}}).encode()


def signed(payload: bytes) -> dict[str, str]:
    """Headers of one delivery of ``payload``, signed now (the provider signs each delivery anew)."""
    return {"Stripe-Signature": sign(payload, SECRET, int(time.time())), "Content-Type": "application/json"}


def intent_ids(url: str) -> dict[str, str]:
    """booking id -> its latest payment intent id."""
    with psycopg.connect(url) as db:
        rows = db.execute("SELECT booking_id, payment_intent_id FROM payments ORDER BY created_at").fetchall()
    return {str(booking_id): str(intent) for booking_id, intent in rows}
