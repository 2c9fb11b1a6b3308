"""The booking as a calendar event (``.ics``, made with ``icalendar``)."""

from __future__ import annotations

from datetime import datetime

from icalendar import Calendar, Event

from booking_core.notifications import BookingFacts

PRODID = "-//Booking service//bookings//EN"


def event_uid(booking_id: str, sender: str) -> str:
    """The event's UID: one per booking, the same in every email about it."""
    return f"booking-{booking_id}@{sender.rpartition('@')[2] or 'localhost'}"


def booking_calendar(facts: BookingFacts, *, sender: str, now: datetime, sequence: int = 0) -> str:
    """A ``VCALENDAR`` with one event in the venue's time zone, the venue's address as location.

    Every version of a booking's event has the booking's UID; a later one (a move) has a higher
    ``sequence``, so a calendar that holds the earlier one replaces it (RFC 5545, 3.8.7.4).
    """
    uid = event_uid(facts.booking_id, sender)
    event = Event.new(
        uid=uid,
        summary=f"{facts.resource_name}, {facts.venue_name}",
        start=facts.start,
        end=facts.end,
        location=", ".join(p for p in (facts.venue_name, facts.venue_address) if p),
        description=f"{facts.resource_name}, {facts.reference_code}",
        stamp=now,
        sequence=sequence,
    )
    calendar = Calendar.new(prodid=PRODID, method="PUBLISH", uid=uid, subcomponents=[event])
    calendar.add_missing_timezones()
    return calendar.to_ical().decode()
