"""booking_core: the pure domain of the booking service (standard library only).

The names below are the stable public API; submodules hold the details.

Example::

    from booking_core import available_ranges, quote, validate_booking
"""

from booking_core.accounts import Actor, ApprovalStatus, Client, Language, Principal, User
from booking_core.availability import (
    AvailableRange,
    BookedSlot,
    RawAvailability,
    availability_span,
    available_ranges,
    available_ranges_until,
    raw_availability,
)
from booking_core.bookable import BookingRules, gap_violation, longest_bookings
from booking_core.booking import BLOCKING_STATUSES, Booking, BookingStatus, CancellationReason
from booking_core.catalog import (
    ActivityType,
    DynamicPricing,
    PriceUnit,
    Resource,
    Schedule,
    TimeSlot,
    UnavailablePeriod,
    Venue,
)
from booking_core.commission import (
    Commission,
    CommissionStatus,
    MonthlyTotals,
    commission_amount,
    commission_month,
    monthly_totals,
    parse_month,
)
from booking_core.errors import (
    BadRequest,
    DomainError,
    Forbidden,
    InvalidTransition,
    NotFound,
    PermissionDenied,
    SlotUnavailable,
    ValidationFailed,
)
from booking_core.iban import parse_bic, parse_iban
from booking_core.money import CurrencyUnit, UnknownCurrency
from booking_core.payout import HeldBack, PayoutBatch, PayoutPlan, PayoutStatus, Transfer, plan_payout
from booking_core.pricing import Quote, demand_level, dynamic_price, quote
from booking_core.rules import (
    booking_span,
    validate_against_bookings,
    validate_booking,
    validate_request,
)
from booking_core.schedule import Window, expand_windows
from booking_core.timerange import TimeRange, intersect, merge, subtract

__all__ = [
    "BLOCKING_STATUSES",
    "ActivityType",
    "Actor",
    "ApprovalStatus",
    "AvailableRange",
    "BadRequest",
    "BookedSlot",
    "Booking",
    "BookingRules",
    "BookingStatus",
    "CancellationReason",
    "Client",
    "Commission",
    "CommissionStatus",
    "CurrencyUnit",
    "DomainError",
    "DynamicPricing",
    "Forbidden",
    "HeldBack",
    "InvalidTransition",
    "Language",
    "MonthlyTotals",
    "NotFound",
    "PayoutBatch",
    "PayoutPlan",
    "PayoutStatus",
    "PermissionDenied",
    "PriceUnit",
    "Principal",
    "Quote",
    "RawAvailability",
    "Resource",
    "Schedule",
    "SlotUnavailable",
    "TimeRange",
    "TimeSlot",
    "Transfer",
    "UnavailablePeriod",
    "UnknownCurrency",
    "User",
    "ValidationFailed",
    "Venue",
    "Window",
    "availability_span",
    "available_ranges",
    "available_ranges_until",
    "booking_span",
    "commission_amount",
    "commission_month",
    "demand_level",
    "dynamic_price",
    "expand_windows",
    "gap_violation",
    "intersect",
    "longest_bookings",
    "merge",
    "monthly_totals",
    "parse_bic",
    "parse_iban",
    "parse_month",
    "plan_payout",
    "quote",
    "raw_availability",
    "subtract",
    "validate_against_bookings",
    "validate_booking",
    "validate_request",
]
