"""Venue staff: who they are, what their roles let them do, and granting and taking roles (CONTRACT 7.1).

Every operator use case takes the acting :class:`~booking_core.staff.Staff` and calls :func:`require`
before it reads or changes anything of a venue. The command line acts with ``staff=None``: the
person at the server's shell is the platform's operator.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from booking_core.accounts import User
from booking_core.audit import AuditAction
from booking_core.errors import NotFound, PermissionDenied, ValidationFailed
from booking_core.ports import UnitOfWork
from booking_core.staff import Action, Role, Staff, StaffRole
from booking_core.usecases.audit import audit
from booking_core.usecases.auth import normalize_email, parse_language, password_user
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import VENUE_NOT_FOUND, require


def staff_in(uow: UnitOfWork, user: User) -> Staff:
    """``user`` with their roles, read in ``uow``; a user holding none is refused (403)."""
    roles = uow.staff.roles_of(user.id)
    if not roles:
        raise PermissionDenied()
    return Staff(user=user, roles=tuple(roles))


def staff_of(deps: Deps, user_id: str) -> Staff:
    """The member of staff with user id ``user_id``.

    Raises:
        PermissionDenied: the user holds no staff role (or does not exist).
    """
    with deps.read() as uow:
        user = uow.users.get(user_id)
        if user is None or not user.is_active:
            raise PermissionDenied()
        return staff_in(uow, user)


def sign_in_staff(deps: Deps, *, email: str, password: str) -> Staff:
    """The member of staff whose email and password match: the console's sign-in (CONTRACT 8).

    The password is checked as for a token (:func:`~booking_core.usecases.auth.password_user`);
    a matching user without a staff role is refused after it, so only the right password learns that.

    Raises:
        ValidationFailed: a malformed email, or no user with that email and password.
        PermissionDenied: the user holds no staff role.
    """
    with deps.read() as uow:
        return staff_in(uow, password_user(deps, uow, email=email, password=password))


@dataclass(frozen=True, slots=True, kw_only=True)
class NewStaff:
    """A role to grant: to the user with ``email`` (created, without a password, when missing)."""

    email: str
    role: Role
    venue_ids: Sequence[int] = ()
    first_name: str = ""
    last_name: str = ""
    language: str | None = None
    password: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Granted:
    """What granting did: the user, whether it was created, and the roles it newly holds."""

    user: User
    created: bool
    granted: tuple[StaffRole, ...]


def parse_role(role: str) -> Role:
    """A role name (400 naming ``role`` when unknown)."""
    try:
        return Role(role)
    except ValueError:
        raise ValidationFailed("Role must be one of admin, manager, desk.", field="role") from None


def grant_staff(deps: Deps, staff: Staff | None, new: NewStaff) -> Granted:
    """Grant ``new.role`` (at each of ``new.venue_ids``) to the user with ``new.email``; idempotent.

    Admins grant any role; managers grant ``desk`` at their own venues. A user who does not exist
    is created, confirmed (staff vouch for them) and without a password unless one is given: they
    set one through the password reset.
    """
    email = normalize_email(new.email)
    venue_ids = _checked_venues(new.role, new.venue_ids)
    for venue_id in _each(venue_ids):
        require(staff, Action.ADMINISTER if new.role is not Role.DESK else Action.MANAGE_VENUE, venue_id)
    language = parse_language(new.language)
    now = deps.clock.now()
    with deps.uow() as uow:
        for venue_id in venue_ids:
            if uow.resources.get_venue(venue_id) is None:
                raise NotFound(VENUE_NOT_FOUND)
        user = uow.users.get_by_email(email)
        created = user is None
        if user is None:
            user = User(
                id=deps.ids.new_id(),
                email=email,
                first_name=new.first_name,
                last_name=new.last_name,
                language=language,
                password_hash=deps.passwords.hash(new.password) if new.password else None,
                created_at=now,
            )
            uow.users.add(user)
        granted = []
        for venue_id in _each(venue_ids):
            role = StaffRole(user_id=user.id, role=new.role, venue_id=venue_id, created_at=now)
            if uow.staff.grant(role):
                granted.append(role)
                audit(
                    deps,
                    uow,
                    staff,
                    AuditAction.STAFF_GRANT,
                    venue_id=venue_id,
                    object_type="user",
                    object_id=user.id,
                    details={"email": user.email, "role": role.role.value},
                )
        uow.commit()
    return Granted(user=user, created=created, granted=tuple(granted))


def _each(venue_ids: list[int]) -> list[int | None]:
    """The venues a grant is at, None standing for an admin's every venue."""
    return [*venue_ids] if venue_ids else [None]


def _checked_venues(role: Role, venue_ids: Sequence[int]) -> list[int]:
    unique = sorted(set(venue_ids))
    if role is Role.ADMIN and unique:
        raise ValidationFailed("An admin holds for every venue; give no venue.", field="venue_ids")
    if role is not Role.ADMIN and not unique:
        raise ValidationFailed("A manager or desk role needs at least one venue.", field="venue_ids")
    return unique


def generated_password() -> str:
    """A password for a new member of staff created without one, to be printed once."""
    return secrets.token_urlsafe(15)


def list_staff(deps: Deps, staff: Staff | None) -> list[tuple[User, StaffRole]]:
    """Every role with its user: all for an admin (and the command line), a manager's venues' otherwise."""
    require(staff, Action.VIEW)
    with deps.read() as uow:
        roles = uow.staff.list(None if staff is None or staff.is_admin else staff.venue_ids)
        users = uow.users.get_many({r.user_id for r in roles})
    return [(users[r.user_id], r) for r in roles if r.user_id in users]


def remove_staff(
    deps: Deps, staff: Staff | None, user_id: str, venue_id: int | None = None
) -> list[StaffRole]:
    """Take the user's roles away: all of them, or those at ``venue_id``.

    A manager takes away only ``desk`` roles at their own venues (``venue_id`` required); an admin
    any. Taking away roles the user does not hold changes nothing.
    """
    if staff is not None and not staff.is_admin:
        if venue_id is None:
            raise ValidationFailed("Name the venue to take the role away at.", field="venue")
        require(staff, Action.MANAGE_VENUE, venue_id)
    with deps.uow() as uow:
        held = [r for r in uow.staff.roles_of(user_id) if venue_id is None or r.venue_id == venue_id]
        if staff is not None and not staff.is_admin and any(r.role is not Role.DESK for r in held):
            raise PermissionDenied()
        user = uow.users.get(user_id)
        if user is None:
            raise NotFound("User not found.")
        taken = uow.staff.revoke(user_id, venue_id)
        for role in taken:
            audit(
                deps,
                uow,
                staff,
                AuditAction.STAFF_REVOKE,
                venue_id=role.venue_id,
                object_type="user",
                object_id=user_id,
                details={"email": user.email, "role": role.role.value},
            )
        uow.commit()
    return taken
