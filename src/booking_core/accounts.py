"""Who calls the service: users, partner clients, their tokens and id mappings."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from booking_core.errors import InvalidTransition


class Language(enum.StrEnum):
    """Languages the service writes email in."""

    DE = "de"
    EN = "en"


@dataclass(frozen=True, slots=True, kw_only=True)
class User:
    """A person who books. ``password_hash`` is None for users created by a client.

    ``email_confirmed`` is False only for a self-registered account whose owner has not yet shown
    that the address is theirs (CONTRACT 4.5); users a client, staff or the catalog create are
    vouched for and confirmed from the start.
    """

    id: str
    email: str
    first_name: str = ""
    last_name: str = ""
    language: Language = Language.DE
    password_hash: str | None = None
    is_active: bool = True
    email_confirmed: bool = True
    created_at: datetime

    @property
    def full_name(self) -> str:
        """First and last name, or the email when both are empty."""
        return " ".join(p for p in (self.first_name, self.last_name) if p) or self.email


@dataclass(frozen=True, slots=True, kw_only=True)
class Client:
    """A partner application that books on behalf of its users and earns commission."""

    id: int
    name: str
    commission_percent: Decimal = Decimal("0.00")
    contact_email: str = ""
    iban: str | None = None
    is_active: bool = True
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class Principal:
    """The authenticated caller behind a token: a user or a client's service account.

    ``email_confirmed`` is False for the token of a user who has not confirmed their address yet.
    """

    user_id: str | None = None
    client_id: int | None = None
    email_confirmed: bool = True

    @property
    def is_client(self) -> bool:
        """True for a client's service-account token."""
        return self.client_id is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class Actor:
    """Who a request acts for: a user, possibly through a client."""

    user_id: str | None
    client_id: int | None = None
    external_user_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMapping:
    """A client's own id for one of our users."""

    id: str
    client_id: int
    external_id: str
    user_id: str
    is_active: bool = True
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceMapping:
    """A client's own id for one of our resources."""

    id: str
    client_id: int
    external_id: str
    resource_id: int
    external_data: Mapping[str, Any] = field(default_factory=dict)
    is_active: bool = True
    created_at: datetime


class ApprovalStatus(enum.StrEnum):
    """The operator's decision on a client's venue mapping."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True, kw_only=True)
class VenueMapping:
    """A client's own id for one of our venues; usable only once the operator approves it."""

    id: str
    client_id: int
    external_id: str
    venue_id: int
    external_data: Mapping[str, Any] = field(default_factory=dict)
    is_active: bool = True
    approval_status: ApprovalStatus = ApprovalStatus.PENDING
    created_at: datetime

    def decide(self, status: ApprovalStatus) -> VenueMapping:
        """Approve or reject a pending mapping (a decision can be revised by the operator)."""
        if status is ApprovalStatus.PENDING:
            raise InvalidTransition("A venue mapping can only be approved or rejected.")
        return replace(self, approval_status=status)
