"""SQLAlchemy models of every table. The migrations, not ``create_all``, create the schema."""

from adapters.sqla.models.accounts import (
    AccountCodeRow,
    ClientRow,
    ResourceMappingRow,
    TokenRow,
    UserMappingRow,
    UserRow,
    VenueMappingRow,
)
from adapters.sqla.models.base import Base
from adapters.sqla.models.bookings import (
    CLOSED_TIME_GUARD,
    NO_OVERLAP_CONSTRAINT,
    BookingRevisionRow,
    BookingRow,
)
from adapters.sqla.models.catalog import (
    ActivityTypeRow,
    CatalogRevisionRow,
    ResourceRow,
    ScheduleRow,
    TimeSlotRow,
    UnavailablePeriodRow,
    VenueRow,
    resource_activity_types,
)
from adapters.sqla.models.ledger import (
    CommissionRow,
    PaymentRow,
    PayoutBatchRow,
    ProcessedEventRow,
    RefundRequestRow,
)
from adapters.sqla.models.messaging import IdempotencyRecordRow, OutboxRow
from adapters.sqla.models.staff import AuditRow, StaffRoleRow

metadata = Base.metadata

__all__ = [
    "CLOSED_TIME_GUARD",
    "NO_OVERLAP_CONSTRAINT",
    "AccountCodeRow",
    "ActivityTypeRow",
    "AuditRow",
    "Base",
    "BookingRevisionRow",
    "BookingRow",
    "CatalogRevisionRow",
    "ClientRow",
    "CommissionRow",
    "IdempotencyRecordRow",
    "OutboxRow",
    "PaymentRow",
    "PayoutBatchRow",
    "ProcessedEventRow",
    "RefundRequestRow",
    "ResourceMappingRow",
    "ResourceRow",
    "ScheduleRow",
    "StaffRoleRow",
    "TimeSlotRow",
    "TokenRow",
    "UnavailablePeriodRow",
    "UserMappingRow",
    "UserRow",
    "VenueMappingRow",
    "VenueRow",
    "metadata",
    "resource_activity_types",
]
