"""Clients' own ids for our users, resources and venues; unique per (client, external id)."""

from __future__ import annotations

import builtins
from collections.abc import Collection, Sequence

from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import ResourceMappingRow, UserMappingRow, VenueMappingRow
from booking_core.accounts import ApprovalStatus, ResourceMapping, UserMapping, VenueMapping
from booking_core.errors import NotFound


def user_mapping_to_domain(row: UserMappingRow) -> UserMapping:
    return UserMapping(
        id=row.id,
        client_id=row.client_id,
        external_id=row.external_id,
        user_id=row.user_id,
        is_active=row.is_active,
        created_at=row.created_at,
    )


def resource_mapping_to_domain(row: ResourceMappingRow) -> ResourceMapping:
    return ResourceMapping(
        id=row.id,
        client_id=row.client_id,
        external_id=row.external_id,
        resource_id=row.resource_id,
        external_data=dict(row.external_data or {}),
        is_active=row.is_active,
        created_at=row.created_at,
    )


def venue_mapping_to_domain(row: VenueMappingRow) -> VenueMapping:
    return VenueMapping(
        id=row.id,
        client_id=row.client_id,
        external_id=row.external_id,
        venue_id=row.venue_id,
        external_data=dict(row.external_data or {}),
        is_active=row.is_active,
        approval_status=ApprovalStatus(row.approval_status),
        created_at=row.created_at,
    )


@translate_errors
class SqlaUserMappings:
    """Clients' ids for users."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, client_id: int, external_id: str) -> UserMapping | None:
        stmt = select(UserMappingRow).filter_by(client_id=client_id, external_id=external_id)
        row = self._session.scalars(stmt).one_or_none()
        return user_mapping_to_domain(row) if row else None

    def for_user(self, client_id: int, user_id: str) -> UserMapping | None:
        stmt = (
            select(UserMappingRow)
            .filter_by(client_id=client_id, user_id=user_id)
            .order_by(UserMappingRow.is_active.desc(), UserMappingRow.created_at, UserMappingRow.id)
            .limit(1)
        )
        row = self._session.scalars(stmt).first()
        return user_mapping_to_domain(row) if row else None

    def for_users(self, client_id: int, user_ids: Sequence[str]) -> dict[str, UserMapping]:
        if not user_ids:
            return {}
        # one statement for a page of bookings; per user the row for_user would pick comes first
        stmt = (
            select(UserMappingRow)
            .filter_by(client_id=client_id)
            .where(UserMappingRow.user_id.in_(set(user_ids)))
            .order_by(UserMappingRow.is_active.desc(), UserMappingRow.created_at, UserMappingRow.id)
        )
        found: dict[str, UserMapping] = {}
        for row in self._session.scalars(stmt):
            found.setdefault(row.user_id, user_mapping_to_domain(row))
        return found

    def for_pairs(self, pairs: Collection[tuple[int, str]]) -> dict[tuple[int, str], UserMapping]:
        if not pairs:
            return {}
        # per pair the row for_user would pick comes first
        stmt = (
            select(UserMappingRow)
            .where(tuple_(UserMappingRow.client_id, UserMappingRow.user_id).in_(sorted(set(pairs))))
            .order_by(UserMappingRow.is_active.desc(), UserMappingRow.created_at, UserMappingRow.id)
        )
        found: dict[tuple[int, str], UserMapping] = {}
        for row in self._session.scalars(stmt):
            found.setdefault((row.client_id, row.user_id), user_mapping_to_domain(row))
        return found

    def add(self, mapping: UserMapping) -> None:
        self._session.add(
            UserMappingRow(
                id=mapping.id,
                client_id=mapping.client_id,
                external_id=mapping.external_id,
                user_id=mapping.user_id,
                is_active=mapping.is_active,
                created_at=mapping.created_at,
            )
        )
        self._session.flush()

    def list(
        self, client_id: int, *, is_active: bool | None, limit: int, offset: int
    ) -> builtins.list[UserMapping]:
        stmt = select(UserMappingRow).filter_by(client_id=client_id)
        if is_active is not None:
            stmt = stmt.filter_by(is_active=is_active)
        stmt = stmt.order_by(UserMappingRow.created_at, UserMappingRow.id).limit(limit).offset(offset)
        return [user_mapping_to_domain(row) for row in self._session.scalars(stmt)]


@translate_errors
class SqlaResourceMappings:
    """Clients' ids for resources."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, client_id: int, external_id: str) -> ResourceMapping | None:
        stmt = select(ResourceMappingRow).filter_by(client_id=client_id, external_id=external_id)
        row = self._session.scalars(stmt).one_or_none()
        return resource_mapping_to_domain(row) if row else None

    def add(self, mapping: ResourceMapping) -> None:
        self._session.add(
            ResourceMappingRow(
                id=mapping.id,
                client_id=mapping.client_id,
                external_id=mapping.external_id,
                resource_id=mapping.resource_id,
                external_data=dict(mapping.external_data),
                is_active=mapping.is_active,
                created_at=mapping.created_at,
            )
        )
        self._session.flush()

    def list(self, client_id: int, *, limit: int, offset: int) -> builtins.list[ResourceMapping]:
        stmt = (
            select(ResourceMappingRow)
            .filter_by(client_id=client_id)
            .order_by(ResourceMappingRow.created_at, ResourceMappingRow.id)
            .limit(limit)
            .offset(offset)
        )
        return [resource_mapping_to_domain(row) for row in self._session.scalars(stmt)]

    def for_resources(self, client_id: int, resource_ids: Sequence[int]) -> builtins.list[ResourceMapping]:
        stmt = (
            select(ResourceMappingRow)
            .where(
                ResourceMappingRow.client_id == client_id, ResourceMappingRow.resource_id.in_(resource_ids)
            )
            .order_by(ResourceMappingRow.created_at, ResourceMappingRow.id)
        )
        return [resource_mapping_to_domain(row) for row in self._session.scalars(stmt)]


@translate_errors
class SqlaVenueMappings:
    """Clients' ids for venues, with the operator's approval."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, client_id: int, external_id: str) -> VenueMapping | None:
        stmt = select(VenueMappingRow).filter_by(client_id=client_id, external_id=external_id)
        row = self._session.scalars(stmt).one_or_none()
        return venue_mapping_to_domain(row) if row else None

    def get_by_id(self, mapping_id: str) -> VenueMapping | None:
        row = self._session.get(VenueMappingRow, mapping_id)
        return venue_mapping_to_domain(row) if row else None

    def add(self, mapping: VenueMapping) -> None:
        self._session.add(_apply_venue_mapping(VenueMappingRow(id=mapping.id), mapping))
        self._session.flush()

    def save(self, mapping: VenueMapping) -> None:
        row = self._session.get(VenueMappingRow, mapping.id)
        if row is None:
            raise NotFound(f"Venue mapping {mapping.id} does not exist.")
        _apply_venue_mapping(row, mapping)
        self._session.flush()

    def list(
        self,
        client_id: int | None,
        approval_status: ApprovalStatus | None,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> builtins.list[VenueMapping]:
        stmt = select(VenueMappingRow).order_by(VenueMappingRow.created_at, VenueMappingRow.id)
        if client_id is not None:
            stmt = stmt.filter_by(client_id=client_id)
        if approval_status is not None:
            stmt = stmt.filter_by(approval_status=approval_status.value)
        stmt = stmt.limit(limit).offset(offset)
        return [venue_mapping_to_domain(row) for row in self._session.scalars(stmt)]


def _apply_venue_mapping(row: VenueMappingRow, mapping: VenueMapping) -> VenueMappingRow:
    row.client_id = mapping.client_id
    row.external_id = mapping.external_id
    row.venue_id = mapping.venue_id
    row.external_data = dict(mapping.external_data)
    row.is_active = mapping.is_active
    row.approval_status = mapping.approval_status.value
    row.created_at = mapping.created_at
    return row
