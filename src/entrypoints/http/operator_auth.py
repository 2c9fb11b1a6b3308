"""Who calls the operator API: a valid token of a user who holds a staff role (CONTRACT 7.1).

The guard authenticates the token as every guard does, refuses a client's token, then reads the
user's roles (in a worker thread: it is a database read) and keeps the :class:`Staff` in the
request's state for the handler (:func:`provide_staff`). A user without a role gets 403.
"""

from __future__ import annotations

from typing import Any

from litestar.concurrency import sync_to_thread
from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler

from booking_core.errors import NotAuthenticated, PermissionDenied
from booking_core.staff import Staff
from booking_core.usecases.staff import staff_of
from entrypoints.http.auth import NOT_PROVIDED, deps_of, principal_of, token_required

_STAFF = "staff"


async def staff_required(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Guard of ``/operator/``: a staff member's user token (401 without a valid token, else 403)."""
    await token_required(connection, handler)
    principal = principal_of(connection)
    if principal is None or principal.user_id is None:
        raise PermissionDenied()
    connection.state[_STAFF] = await sync_to_thread(staff_of, deps_of(connection), principal.user_id)


def provide_staff(connection: ASGIConnection[Any, Any, Any, Any]) -> Staff:
    """The member of staff an operator request acts for (behind :func:`staff_required`)."""
    staff: Staff | None = connection.state.get(_STAFF)
    if staff is None:
        raise NotAuthenticated(NOT_PROVIDED)
    return staff
