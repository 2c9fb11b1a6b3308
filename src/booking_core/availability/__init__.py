"""Availability: what is still free to book, and the raw material it is computed from.

Availability offers exactly what the booking rules accept (CONTRACT 4.1). The free ranges are the
time covered by the bookings the rules accept: the longest booking from every start they accept
(:func:`booking_core.bookable.longest_bookings`, the model the validator asks too), joined, cut to
the queried dates and split where the date, price, pricing unit or label changes, each part from
the first start the rules accept in it, so that every range can be booked from its start. Free
blocks are taken whole, beyond the queried dates as far as a booking or the gap rule can see
(:func:`availability_span`), so a date's ranges do not depend on the query's other dates.

The free ranges are in :mod:`._offer`, how far beyond the dates they look in :mod:`._reach`, and
the raw material as the raw endpoint shows it in :mod:`._raw`.
"""

from booking_core.availability._offer import AvailableRange, available_ranges, available_ranges_until
from booking_core.availability._raw import BookedSlot, RawAvailability, raw_availability
from booking_core.availability._reach import availability_span, local_days

__all__ = [
    "AvailableRange",
    "BookedSlot",
    "RawAvailability",
    "availability_span",
    "available_ranges",
    "available_ranges_until",
    "local_days",
    "raw_availability",
]
