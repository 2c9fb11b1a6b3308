"""The check every operator use case makes first (CONTRACT 7.1)."""

from __future__ import annotations

from booking_core.errors import NotFound, PermissionDenied
from booking_core.staff import Action, Staff

VENUE_NOT_FOUND = "Venue not found."


def require(staff: Staff | None, action: Action, venue_id: int | None = None) -> None:
    """Refuse unless ``staff`` may take ``action`` at ``venue_id`` (None: a platform-wide action).

    A venue the member of staff holds no role at reads as not found (404); an action the role does
    not allow is refused (403). ``staff`` None is the command line, which may do everything.

    Raises:
        NotFound: the venue is not one of the staff member's.
        PermissionDenied: the role does not allow ``action``.
    """
    if staff is None:
        return
    if venue_id is not None and not staff.sees(venue_id):
        raise NotFound(VENUE_NOT_FOUND)
    if not staff.may(action, venue_id):
        raise PermissionDenied()
