"""The operator API's bodies for the venue's catalog (7.5), the audit log (7.6), staff and the
platform operator's mappings and commissions (7.8)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from booking_core.accounts import User
from booking_core.audit import AuditEntry
from booking_core.commission import MonthlyTotals
from booking_core.staff import StaffRole
from booking_core.usecases.operator_catalog import CatalogSaved
from booking_core.usecases.operator_platform import MappingOfClient
from entrypoints.http.structs._format import utc
from entrypoints.http.structs.fields import Email, Int64
from entrypoints.http.structs.operator import OpBooking
from entrypoints.http.structs.venues import VenueMappingOut


class CatalogSavedOut(msgspec.Struct, kw_only=True):
    """``PUT /operator/venues/{id}/catalog/`` and ``POST /operator/venues/``: what the upsert created
    and updated (``venue center-court``, ``resource Court 1``) and the live bookings now outside
    opening hours or inside a block."""

    venue_id: int
    created: list[str]
    updated: list[str]
    conflicts: list[OpBooking]

    @classmethod
    def of(cls, saved: CatalogSaved) -> CatalogSavedOut:
        """The representation of ``saved``."""
        return cls(
            venue_id=saved.venue_id,
            created=list(saved.created),
            updated=list(saved.updated),
            conflicts=[OpBooking.of_op(op) for op in saved.conflicts],
        )


class AuditActorOut(msgspec.Struct, kw_only=True):
    """Who acted (null on an entry: the command line)."""

    user_id: str
    email: str


class AuditEntryOut(msgspec.Struct, kw_only=True):
    """One entry of the audit log."""

    id: str
    at: datetime
    actor: AuditActorOut | None
    action: str
    venue_id: int | None
    object_type: str
    object_id: str
    details: dict[str, Any]

    @classmethod
    def of(cls, entry: AuditEntry) -> AuditEntryOut:
        """The representation of ``entry``."""
        actor = entry.actor
        return cls(
            id=entry.id,
            at=utc(entry.at),
            actor=None if actor is None else AuditActorOut(user_id=actor.user_id, email=actor.email),
            action=entry.action.value,
            venue_id=entry.venue_id,
            object_type=entry.object_type,
            object_id=entry.object_id,
            details=dict(entry.details),
        )


class StaffGrantIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /operator/staff/``: the role to grant, at ``venue_ids`` (none for admin)."""

    email: Email
    role: str
    venue_ids: list[Int64] = []


class StaffMemberOut(msgspec.Struct, kw_only=True):
    """One role of one member of staff (``venue_id`` null for admin)."""

    user_id: str
    email: str
    name: str
    role: str
    venue_id: int | None
    created_at: datetime

    @classmethod
    def of(cls, pair: tuple[User, StaffRole]) -> StaffMemberOut:
        """The representation of a user and one of their roles."""
        user, role = pair
        return cls(
            user_id=user.id,
            email=user.email,
            name=user.full_name,
            role=role.role.value,
            venue_id=role.venue_id,
            created_at=utc(role.created_at),
        )


class StaffGrantedOut(msgspec.Struct, kw_only=True):
    """Answer of ``POST /operator/staff/``: the user, whether it was created, and the roles granted now
    (empty when the user held them already)."""

    user_id: str
    email: str
    created: bool
    granted: list[StaffMemberOut]


class OpVenueMappingOut(VenueMappingOut, kw_only=True):
    """A client's venue mapping as the platform operator sees it: with the client."""

    client_id: int
    client_name: str

    @classmethod
    def of_client(cls, found: MappingOfClient) -> OpVenueMappingOut:
        """The representation of ``found``."""
        base = VenueMappingOut.of((found.mapping, found.venue))
        fields = {name: getattr(base, name) for name in base.__struct_fields__}
        name = found.client.name if found.client is not None else ""
        return cls(**fields, client_id=found.mapping.client_id, client_name=name)


class CommissionTotalsOut(msgspec.Struct, kw_only=True):
    """A row of ``booking commissions report``: one client and currency, sums as decimal strings."""

    client: str
    currency: str
    records: int
    open: str
    paid_out: str
    reversed: str

    @classmethod
    def of(cls, row: MonthlyTotals) -> CommissionTotalsOut:
        """The representation of ``row``."""
        return cls(
            client=str(row.client),
            currency=row.currency,
            records=int(row.records),
            open=str(row.open),
            paid_out=str(row.paid_out),
            reversed=str(row.reversed),
        )


class NothingToPayOut(msgspec.Struct, kw_only=True):
    """A payout with no file to write: the clients whose open records stay open for want of an IBAN."""

    detail: str
    without_iban: list[str]
