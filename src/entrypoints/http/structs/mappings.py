"""The client API's user and resource mappings: registration bodies and answers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from booking_core.accounts import ResourceMapping, User, UserMapping
from booking_core.catalog import Resource
from booking_core.usecases.clients import ResourceRegistration, UserRegistration
from entrypoints.http.structs._format import utc
from entrypoints.http.structs.fields import Email, ExternalId, Int64, Language, PersonName


class RegisterUserIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /client/users/register/``."""

    external_id: ExternalId
    email: Email
    first_name: PersonName = ""
    last_name: PersonName = ""
    language: Language | None = None


class RegisterResourceIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /client/resources/register/``."""

    external_id: ExternalId
    resource_id: Int64
    external_data: dict[str, Any] | None = None


class UserRegistered(msgspec.Struct, kw_only=True):
    """Answer to a user registration; ``created`` is a new user, ``mapping_created`` a new mapping."""

    user_id: str
    external_id: str
    email: str
    created: bool
    mapping_created: bool

    @classmethod
    def of(cls, reg: UserRegistration) -> UserRegistered:
        """The representation of ``reg``."""
        return cls(
            user_id=reg.user.id,
            external_id=reg.mapping.external_id,
            email=reg.user.email,
            created=reg.created,
            mapping_created=reg.mapping_created,
        )


class UserMappingOut(msgspec.Struct, kw_only=True):
    """A client's id for one of our users."""

    id: str
    external_id: str
    user_id: str
    user_email: str
    is_active: bool
    created_at: datetime

    @classmethod
    def of(cls, pair: tuple[UserMapping, User]) -> UserMappingOut:
        """The representation of a mapping and its user."""
        m, u = pair
        return cls(
            id=m.id,
            external_id=m.external_id,
            user_id=u.id,
            user_email=u.email,
            is_active=m.is_active,
            created_at=utc(m.created_at),
        )


class ResourceRegistered(msgspec.Struct, kw_only=True):
    """Answer to a resource registration."""

    external_id: str
    resource_id: int
    resource_name: str
    venue_name: str
    created: bool

    @classmethod
    def of(cls, reg: ResourceRegistration) -> ResourceRegistered:
        """The representation of ``reg``."""
        return cls(
            external_id=reg.mapping.external_id,
            resource_id=reg.resource.id,
            resource_name=reg.resource.name,
            venue_name=reg.resource.venue.name,
            created=reg.created,
        )


class ResourceMappingOut(msgspec.Struct, kw_only=True):
    """A client's id for one of our resources."""

    id: str
    external_id: str
    resource_id: int
    resource_name: str
    venue_name: str
    is_active: bool
    created_at: datetime

    @classmethod
    def of(cls, pair: tuple[ResourceMapping, Resource]) -> ResourceMappingOut:
        """The representation of a mapping and its resource."""
        m, r = pair
        return cls(
            id=m.id,
            external_id=m.external_id,
            resource_id=r.id,
            resource_name=r.name,
            venue_name=r.venue.name,
            is_active=m.is_active,
            created_at=utc(m.created_at),
        )
