"""Repositories over SQLAlchemy sessions, one per port; no ORM object leaves them."""

from adapters.sqla.repositories.account_codes import SqlaAccountCodes
from adapters.sqla.repositories.accounts import SqlaClients, SqlaTokens, SqlaUsers
from adapters.sqla.repositories.blocks import SqlaBlocks
from adapters.sqla.repositories.bookings import PostgresBookings, SqlaBookings, SqliteBookings
from adapters.sqla.repositories.catalog import SqlaResources
from adapters.sqla.repositories.commissions import SqlaCommissions
from adapters.sqla.repositories.ledger import SqlaPayments
from adapters.sqla.repositories.mappings import SqlaResourceMappings, SqlaUserMappings, SqlaVenueMappings
from adapters.sqla.repositories.messaging import SqlaIdempotencyRecords, SqlaOutbox
from adapters.sqla.repositories.refunds import SqlaRefunds
from adapters.sqla.repositories.staff import SqlaAuditLog, SqlaStaffRoles

__all__ = [
    "PostgresBookings",
    "SqlaAccountCodes",
    "SqlaAuditLog",
    "SqlaBlocks",
    "SqlaBookings",
    "SqlaClients",
    "SqlaCommissions",
    "SqlaIdempotencyRecords",
    "SqlaOutbox",
    "SqlaPayments",
    "SqlaRefunds",
    "SqlaResourceMappings",
    "SqlaResources",
    "SqlaStaffRoles",
    "SqlaTokens",
    "SqlaUserMappings",
    "SqlaUsers",
    "SqlaVenueMappings",
    "SqliteBookings",
]
