"""Venue staff and what each role may do (CONTRACT 7.1).

Staff are users holding roles: ``admin`` for the whole platform, ``manager`` or ``desk`` at a venue.
Every operator use case asks :meth:`Staff.sees` and :meth:`Staff.may` before it reads or changes
anything of a venue; the permission table lives here and nowhere else.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from booking_core.accounts import User


class Role(enum.StrEnum):
    """A staff role. ``admin`` holds for every venue; the others for one venue each."""

    ADMIN = "admin"
    MANAGER = "manager"
    DESK = "desk"


class Action(enum.StrEnum):
    """Kinds of operator action, as the columns of the permission table group them."""

    #: day sheet, bookings, blocks and audit log of a venue
    VIEW = "view"
    #: manual booking, block, cancel with the policy's or the full refund, move, check-in, no-show,
    #: confirm, record a payment
    OPERATE = "operate"
    #: refund nothing or a chosen amount, a price of one's own, bookings outside the rules
    OVERRIDE = "override"
    #: the venue's catalog, its report, its desk staff
    MANAGE_VENUE = "manage venue"
    #: venues, staff of any role, clients, venue mappings, commissions and payouts
    ADMINISTER = "administer"


_ALLOWED: dict[Role, frozenset[Action]] = {
    Role.DESK: frozenset({Action.VIEW, Action.OPERATE}),
    Role.MANAGER: frozenset({Action.VIEW, Action.OPERATE, Action.OVERRIDE, Action.MANAGE_VENUE}),
    Role.ADMIN: frozenset(Action),
}


def role_allows(role: Role, action: Action) -> bool:
    """Whether ``role`` may take ``action`` (at a venue where it holds)."""
    return action in _ALLOWED[role]


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffRole:
    """One role of one user; ``venue_id`` is None exactly for ``admin``."""

    user_id: str
    role: Role
    venue_id: int | None = None
    created_at: datetime

    def __post_init__(self) -> None:
        if (self.role is Role.ADMIN) != (self.venue_id is None):
            raise ValueError("admin holds for every venue; manager and desk for one venue")


@dataclass(frozen=True, slots=True, kw_only=True)
class Staff:
    """A user with at least one staff role: who an operator request acts for."""

    user: User
    roles: tuple[StaffRole, ...]

    @property
    def user_id(self) -> str:
        """The staff member's user id."""
        return self.user.id

    @property
    def is_admin(self) -> bool:
        """True for the platform's operator."""
        return any(r.role is Role.ADMIN for r in self.roles)

    @property
    def venue_ids(self) -> frozenset[int]:
        """The venues a venue-scoped role holds for (an admin's are all venues, not listed here)."""
        return frozenset(r.venue_id for r in self.roles if r.venue_id is not None)

    def role_at(self, venue_id: int) -> Role | None:
        """The strongest role at ``venue_id``: ``admin`` anywhere for an admin, None where none holds."""
        if self.is_admin:
            return Role.ADMIN
        held = {r.role for r in self.roles if r.venue_id == venue_id}
        if Role.MANAGER in held:
            return Role.MANAGER
        return Role.DESK if Role.DESK in held else None

    def sees(self, venue_id: int) -> bool:
        """Whether the venue exists for this member of staff (another venue's objects read as 404)."""
        return self.role_at(venue_id) is not None

    def may(self, action: Action, venue_id: int | None = None) -> bool:
        """Whether ``action`` at ``venue_id`` (None: platform-wide) is allowed."""
        if venue_id is None:
            return self.is_admin or (
                action is not Action.ADMINISTER and any(role_allows(r.role, action) for r in self.roles)
            )
        role = self.role_at(venue_id)
        return role is not None and role_allows(role, action)
