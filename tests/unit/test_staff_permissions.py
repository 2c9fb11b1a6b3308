"""The permission table of CONTRACT 7.1, as :class:`booking_core.staff.Staff` answers it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from booking_core.accounts import User
from booking_core.errors import NotFound, PermissionDenied
from booking_core.staff import Action, Role, Staff, StaffRole
from booking_core.usecases.permissions import require

NOW = datetime(2026, 6, 1, tzinfo=UTC)
HOME, ELSEWHERE = 1, 2


def _staff(*roles: tuple[Role, int | None]) -> Staff:
    user = User(id="u1", email="s@example.com", created_at=NOW)
    return Staff(
        user=user, roles=tuple(StaffRole(user_id="u1", role=r, venue_id=v, created_at=NOW) for r, v in roles)
    )


#: The table of CONTRACT 7.1: which role may take which kind of action at its venue.
TABLE = {
    Action.VIEW: {Role.DESK, Role.MANAGER, Role.ADMIN},
    Action.OPERATE: {Role.DESK, Role.MANAGER, Role.ADMIN},
    Action.OVERRIDE: {Role.MANAGER, Role.ADMIN},
    Action.MANAGE_VENUE: {Role.MANAGER, Role.ADMIN},
    Action.ADMINISTER: {Role.ADMIN},
}


@pytest.mark.parametrize("action", list(Action))
@pytest.mark.parametrize("role", list(Role))
def test_each_role_may_exactly_what_the_table_says(role: Role, action: Action) -> None:
    staff = _staff((role, None if role is Role.ADMIN else HOME))
    assert staff.may(action, HOME) is (role in TABLE[action])


@pytest.mark.parametrize("role", [Role.DESK, Role.MANAGER])
def test_another_venue_reads_as_not_found_and_changes_nothing(role: Role) -> None:
    staff = _staff((role, HOME))
    assert not staff.sees(ELSEWHERE)
    for action in Action:
        assert not staff.may(action, ELSEWHERE)
        with pytest.raises(NotFound):
            require(staff, action, ELSEWHERE)


def test_the_strongest_role_at_a_venue_counts() -> None:
    staff = _staff((Role.DESK, HOME), (Role.MANAGER, HOME), (Role.DESK, ELSEWHERE))
    assert staff.role_at(HOME) is Role.MANAGER
    assert staff.role_at(ELSEWHERE) is Role.DESK
    require(staff, Action.OVERRIDE, HOME)
    with pytest.raises(PermissionDenied):
        require(staff, Action.OVERRIDE, ELSEWHERE)
    assert staff.venue_ids == {HOME, ELSEWHERE}


def test_an_admin_sees_every_venue_and_platform_actions_need_admin() -> None:
    admin = _staff((Role.ADMIN, None))
    assert admin.sees(12345)
    assert admin.role_at(12345) is Role.ADMIN
    require(admin, Action.ADMINISTER)
    with pytest.raises(PermissionDenied):
        require(_staff((Role.MANAGER, HOME)), Action.ADMINISTER)
    require(None, Action.ADMINISTER)  # the command line


def test_an_admin_role_has_no_venue_and_a_venue_role_has_one() -> None:
    with pytest.raises(ValueError, match="admin"):
        StaffRole(user_id="u", role=Role.ADMIN, venue_id=1, created_at=NOW)
    with pytest.raises(ValueError, match="admin"):
        StaffRole(user_id="u", role=Role.DESK, venue_id=None, created_at=NOW)
