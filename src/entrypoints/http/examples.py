"""Examples of request and response bodies for the OpenAPI document, by the struct they illustrate.

Taken from a real run of the partner flow; a test validates each against its schema in the served
document, so they cannot drift from the structs they illustrate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from entrypoints.http.structs.auth import (
    ConfirmEmailIn,
    CredentialsIn,
    EmailIn,
    MessageOut,
    Registered,
    RegisterIn,
    ResetPasswordIn,
    TokenOut,
)
from entrypoints.http.structs.availability import AvailabilityOut, AvailableRangeOut
from entrypoints.http.structs.booking_requests import CancelIn, CreateBookingIn
from entrypoints.http.structs.bookings import BookingItem, CancelledOut, ClientBookingCreated
from entrypoints.http.structs.mappings import (
    RegisterResourceIn,
    RegisterUserIn,
    ResourceRegistered,
    UserMappingOut,
    UserRegistered,
)
from entrypoints.http.structs.payments import PaymentIntentOut
from entrypoints.http.structs.resources import ResourceItem
from entrypoints.http.structs.venues import RegisterVenueIn, VenueRegistered

_BOOKING_ID = "1cf0a098-1595-40de-9d4e-0afa984a7b9d"
_USER_ID = "f27d5f0e-6977-4245-a0c5-1be2b169dc8d"
_INTENT = "pi_sandbox_3000_eur_63e21f55805193f9dd881fda"

_BOOKING: dict[str, Any] = {
    "id": _BOOKING_ID,
    "reference_code": "BP9WMN22",
    "resource_name": "Court 1",
    "venue_name": "Center Court Club",
    "venue_address": "Hauptstrasse 1, 10115 Berlin",
    "start_datetime": "2026-06-03T10:00:00+02:00",
    "end_datetime": "2026-06-03T11:30:00+02:00",
    "duration_minutes": 90,
    "participant_count": 1,
    "price_per_unit": "20.00",
    "pricing_unit": "hour",
    "total_price": "30.00",
    "currency": "EUR",
    "status": "pending",
    "can_cancel": True,
    "is_upcoming": True,
    "notes": "Bring balls",
    "confirmed_at": None,
    "paid_at": None,
    "cancelled_at": None,
    "created_at": "2026-06-01T06:00:00Z",
    "updated_at": "2026-06-01T06:00:00Z",
}

EXAMPLES: Mapping[type[msgspec.Struct], Mapping[str, Any]] = {
    # ------------------------------------------------------------------ requests
    CreateBookingIn: {
        "resource_external_id": "court-a",
        "start_datetime": "2026-06-03T10:00:00+02:00",
        "end_datetime": "2026-06-03T11:30:00+02:00",
        "participant_count": 2,
        "notes": "Bring balls",
    },
    CancelIn: {"reason": "weather", "notes": "Rain forecast"},
    RegisterUserIn: {
        "external_id": "partner-user-42",
        "email": "lena@example.com",
        "first_name": "Lena",
        "last_name": "Kraus",
        "language": "en",
    },
    RegisterResourceIn: {"external_id": "court-a", "resource_id": 1, "external_data": {"court": "A"}},
    RegisterVenueIn: {"external_id": "club-7", "venue_id": 1},
    RegisterIn: {
        "email": "max@example.com",
        "password": "a-long-passphrase",
        "first_name": "Max",
        "language": "de",
    },
    CredentialsIn: {"email": "max@example.com", "password": "a-long-passphrase"},
    EmailIn: {"email": "max@example.com"},
    ConfirmEmailIn: {"email": "max@example.com", "code": "40917263"},
    ResetPasswordIn: {"email": "max@example.com", "code": "83310572", "password": "another-long-passphrase"},
    # ------------------------------------------------------------------ answers
    BookingItem: {**_BOOKING, "resource": 1},
    ClientBookingCreated: {
        "id": _BOOKING_ID,
        "reference_code": "BP9WMN22",
        "status": "pending",
        "resource_id": 1,
        "resource_name": "Court 1",
        "venue_name": "Center Court Club",
        "start_datetime": "2026-06-03T10:00:00+02:00",
        "end_datetime": "2026-06-03T11:30:00+02:00",
        "total_price": "30.00",
        "currency": "EUR",
        "participant_count": 1,
        "created_at": "2026-06-01T06:00:00Z",
    },
    PaymentIntentOut: {
        "client_secret": f"{_INTENT}_secret_c5aa902896e4badb",
        "payment_intent_id": _INTENT,
        "amount": "30.00",
        "currency": "EUR",
        "publishable_key": "pk_test_sandbox",
    },
    CancelledOut: {
        "id": _BOOKING_ID,
        "reference_code": "BP9WMN22",
        "status": "cancelled",
        "cancelled_at": "2026-06-01T08:00:00+02:00",
    },
    UserRegistered: {
        "user_id": _USER_ID,
        "external_id": "partner-user-42",
        "email": "lena@example.com",
        "created": True,
        "mapping_created": True,
    },
    UserMappingOut: {
        "id": "75cb5073-dfa5-4d70-8f1b-a19f3280ba1b",
        "external_id": "partner-user-42",
        "user_id": _USER_ID,
        "user_email": "lena@example.com",
        "is_active": True,
        "created_at": "2026-06-01T06:00:00Z",
    },
    ResourceRegistered: {
        "external_id": "court-a",
        "resource_id": 1,
        "resource_name": "Court 1",
        "venue_name": "Center Court Club",
        "created": True,
    },
    VenueRegistered: {
        "external_id": "club-7",
        "venue_id": 1,
        "venue_name": "Center Court Club",
        "venue_slug": "center-court",
        "venue_city": "Berlin",
        "approval_status": "pending",
        "created": True,
    },
    AvailableRangeOut: {
        "date": "2026-06-03",
        "start_time": "17:00:00",
        "end_time": "22:00:00",
        "price_per_hour": "30.00",
        "currency": "EUR",
        "label": "Peak",
        "slot_prices": None,
    },
    AvailabilityOut: {
        "resource_id": 1,
        "resource_name": "Court 1",
        "start_date": "2026-06-03",
        "end_date": "2026-06-03",
        "timezone": "Europe/Berlin",
        "booking_interval_minutes": 30,
        "min_duration_minutes": 60,
        "max_duration_minutes": 180,
        "prevent_unbookable_gaps": True,
        "min_advance_booking_minutes": 0,
        "max_advance_booking_days": 90,
        "available_ranges": [
            {
                "date": "2026-06-03",
                "start_time": "08:00:00",
                "end_time": "10:00:00",
                "price_per_hour": "20.00",
                "currency": "EUR",
                "label": "",
                "slot_prices": None,
            },
            {
                "date": "2026-06-03",
                "start_time": "11:30:00",
                "end_time": "17:00:00",
                "price_per_hour": "20.00",
                "currency": "EUR",
                "label": "",
                "slot_prices": None,
            },
        ],
    },
    ResourceItem: {
        "id": 1,
        "name": "Court 1",
        "description": "Clay court",
        "venue": 1,
        "venue_name": "Center Court Club",
        "venue_slug": "center-court",
        "capacity": 4,
        "base_price": "20.00",
        "currency": "EUR",
        "price_unit": "hour",
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 180,
        "prevent_unbookable_gaps": True,
        "is_active": True,
        "is_bookable": True,
        "attributes": {"surface": "clay"},
    },
    Registered: {
        "user_id": "2bf72d37-3d0a-44e4-bda9-96bcf2b89117",
        "email": "max@example.com",
        "token": "zMxcP-oKdHhYJMURg4nErWXo7ZeYjOtw6LMLnb06DBE",
    },
    TokenOut: {"token": "XGeOLxOAVW0cMXyxdtp-jDZWK041Uhk-iLFS0hlQe7U"},
    MessageOut: {"detail": "Email address confirmed."},
}
