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


def catalog(courts: int = 4) -> dict[str, Any]:
    """One Berlin venue with ``courts`` courts open 07:00-23:00 at 20.00 an hour, two users, one client."""
    slots = [{"start_time": "07:00:00", "end_time": "23:00:00", "price_per_unit": "20.00"}]
    court = {
        "capacity": 4,
        "base_price": "20.00",
        "currency": "EUR",
        "price_unit": "hour",
        "booking_interval_minutes": 60,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 240,
        "prevent_unbookable_gaps": False,
        "schedules": [{"day_of_week": d, "time_slots": slots} for d in range(1, 8)],
    }
    return {
        "venues": [
            {
                "slug": "arena",
                "name": "Fault Arena",
                "venue_type": "tennis_club",
                "street_address": "Ringstrasse 9",
                "city": "Berlin",
                "postal_code": "10115",
                "country": "DE",
                "latitude": "52.52",
                "longitude": "13.40",
                "timezone": "Europe/Berlin",
                "operator_email": "ops@arena.example",
                "resources": [{"name": f"Court {n}", **court} for n in range(1, courts + 1)],
            }
        ],
        "users": [
            {"email": "player@example.com", "first_name": "Pla", "last_name": "Yer", "token": USER},
            {"email": "rival@example.com", "first_name": "Ri", "last_name": "Val", "token": OTHER},
            {"email": "desk@arena.example", "first_name": "De", "last_name": "Sk", "token": DESK},
        ],
        "staff": [{"email": "desk@arena.example", "role": "desk", "venues": ["arena"]}],
        "clients": [
            {
                "name": "ArenaApp",
                "commission_percent": "10.00",
                "contact_email": "finance@arena-app.example",
                "token": CLIENT,
            }
        ],
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
