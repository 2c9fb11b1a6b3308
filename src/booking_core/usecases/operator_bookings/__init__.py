"""Bookings made and changed by a venue's staff (CONTRACT 7.4, 7.9).

Each use case takes the acting member of staff and checks the permission table first: the booking's
venue (or the resource's, for a new booking) decides, and a booking of a venue the member of staff
does not work at reads as not found. Every change is made on the booking re-read under its lock
(:meth:`~booking_core.ports.Bookings.lock_for_change`), decided by the state machine where it is a
transition, and written with its audit entry in one transaction.

Time is claimed as customers claim it (:meth:`~booking_core.ports.Bookings.claim`, and
:meth:`~booking_core.ports.Bookings.reclaim` for a move), so a staff booking, a move, a block and a
customer's booking racing for one resource's time never both win. Staff are held to the booking rules
of :data:`~booking_core.rules.STAFF` (no minimum lead time); a manager's ``override_rules`` to those of
:data:`~booking_core.rules.OVERRIDE`.

A staff booking paid ``online`` is an unpaid hold of its customer like any other, so it counts against
the customer's limit of unpaid bookings (CONTRACT 4.2); one paid ``at_venue`` is confirmed at once and
holds nothing.
"""

from booking_core.usecases.operator_bookings._cancel import (
    StaffCancellation,
    cancel_staff_booking,
    parse_amount,
    parse_refund_choice,
    parse_venue_reason,
)
from booking_core.usecases.operator_bookings._changes import (
    check_in_booking,
    confirm_staff_booking,
    mark_booking_no_show,
    parse_recorded_method,
    record_venue_payment,
)
from booking_core.usecases.operator_bookings._common import BOOKING_NOT_FOUND
from booking_core.usecases.operator_bookings._create import (
    MAX_PRICE,
    CustomerRef,
    StaffBookingRequest,
    StaffPayment,
    create_staff_booking,
    parse_price,
)
from booking_core.usecases.operator_bookings._move import MoveRequest, move_staff_booking
from booking_core.usecases.operator_bookings._read import StaffBookingDetail, staff_booking

__all__ = [
    "BOOKING_NOT_FOUND",
    "MAX_PRICE",
    "CustomerRef",
    "MoveRequest",
    "StaffBookingDetail",
    "StaffBookingRequest",
    "StaffCancellation",
    "StaffPayment",
    "cancel_staff_booking",
    "check_in_booking",
    "confirm_staff_booking",
    "create_staff_booking",
    "mark_booking_no_show",
    "move_staff_booking",
    "parse_amount",
    "parse_price",
    "parse_recorded_method",
    "parse_refund_choice",
    "parse_venue_reason",
    "record_venue_payment",
    "staff_booking",
]
