"""Ports: what the domain needs from storage, payment, notification channels, time and randomness."""

from booking_core.ports.account_codes import AccountCodes
from booking_core.ports.blocks import Blocks
from booking_core.ports.catalog import CatalogChange, CatalogFiles, CatalogUpsert, CheckedVenue
from booking_core.ports.currencies import Currencies
from booking_core.ports.idempotency import IdempotencyRecord, IdempotencyRecords, IdempotentRequest
from booking_core.ports.mail import Mailer, OutboxQueue
from booking_core.ports.notifier import Notifier, Notifiers
from booking_core.ports.payouts import PayoutFiles
from booking_core.ports.reads import AvailabilityReads, CatalogRevision, DataVersion, DataVersions
from booking_core.ports.refunds import Refunds
from booking_core.ports.reports import VenueReports
from booking_core.ports.repositories import (
    BookingQuery,
    Bookings,
    Clients,
    Commissions,
    Payments,
    ResourceMappings,
    ResourceQuery,
    Resources,
    SearchKey,
    StaffBookingQuery,
    Tokens,
    UserMappings,
    Users,
    VenueMappings,
    VenueSpan,
)
from booking_core.ports.services import (
    Clock,
    IdGenerator,
    Outbox,
    OutboxMessage,
    PasswordHasher,
    PaymentEvent,
    PaymentGateway,
    ProviderIntent,
)
from booking_core.ports.staff import AuditLog, StaffRoles
from booking_core.ports.unit_of_work import UnitOfWork

__all__ = [
    "AccountCodes",
    "AuditLog",
    "AvailabilityReads",
    "Blocks",
    "BookingQuery",
    "Bookings",
    "CatalogChange",
    "CatalogFiles",
    "CatalogRevision",
    "CatalogUpsert",
    "CheckedVenue",
    "Clients",
    "Clock",
    "Commissions",
    "Currencies",
    "DataVersion",
    "DataVersions",
    "IdGenerator",
    "IdempotencyRecord",
    "IdempotencyRecords",
    "IdempotentRequest",
    "Mailer",
    "Notifier",
    "Notifiers",
    "Outbox",
    "OutboxMessage",
    "OutboxQueue",
    "PasswordHasher",
    "PaymentEvent",
    "PaymentGateway",
    "Payments",
    "PayoutFiles",
    "ProviderIntent",
    "Refunds",
    "ResourceMappings",
    "ResourceQuery",
    "Resources",
    "SearchKey",
    "StaffBookingQuery",
    "StaffRoles",
    "Tokens",
    "UnitOfWork",
    "UserMappings",
    "Users",
    "VenueMappings",
    "VenueReports",
    "VenueSpan",
]
