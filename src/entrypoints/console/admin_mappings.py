"""Venue mapping approvals for admins (CONTRACT 8): the list of ``GET /operator/venue-mappings/`` with its
approval-status filter, and approve or reject as forms, through the same use cases
(:func:`booking_core.usecases.operator_platform.list_mappings` and ``decide_mapping``).

A refusal shows the list again with the use case's reason; a decision goes back to the list as it was
filtered (a 303, so reloading the page decides nothing twice).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from litestar import Request, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import FromPath, FromQuery
from litestar.response import Redirect, Template

from booking_core.accounts import ApprovalStatus
from booking_core.paging import Page
from booking_core.staff import Staff
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_platform import decide_mapping, list_mappings
from entrypoints.console.bookings import REFUSED, form_of
from entrypoints.console.pages import page
from entrypoints.console.session import signed_in_staff

AnyRequest = Request[Any, Any, Any]
PATH = "/console/admin/mappings"
PAGE_SIZE = 50
#: the button's word in the path, and the decision it stands for
_DECISIONS = {"approve": ApprovalStatus.APPROVED, "reject": ApprovalStatus.REJECTED}


def _list_page(
    request: AnyRequest,
    deps: Deps,
    staff: Staff,
    approval_status: str,
    offset: int,
    *,
    problem: str | None = None,
    done: str | None = None,
    status: int = 200,
) -> Template:
    try:
        found = list_mappings(deps, staff, approval_status, page=Page(limit=PAGE_SIZE, offset=max(0, offset)))
    except REFUSED as exc:  # an unknown status in the address: the list without a filter, and why
        problem, approval_status, status = str(exc), "", 400
        found = list_mappings(deps, staff, None, page=Page(limit=PAGE_SIZE))
    return page(
        request,
        "mappings.html",
        staff=staff,
        found=found.items,
        next_offset=found.next_offset,
        approval_status=approval_status,
        statuses=[s.value for s in ApprovalStatus],
        query=urlencode({"approval_status": approval_status} if approval_status else {}),
        problem=problem,
        done=done,
        status=status,
    )


@get("/admin/mappings", sync_to_thread=True, name="console_mappings")
def mappings(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    approval_status: FromQuery[str | None] = None,
    offset: FromQuery[int] = 0,
    done: FromQuery[str | None] = None,
) -> Template:
    """Every client's venue mappings, oldest first, optionally of one approval status (admins)."""
    staff = signed_in_staff(request, deps)
    return _list_page(request, deps, staff, approval_status or "", offset, done=done)


def _decide(
    request: AnyRequest, deps: Deps, mapping_id: str, decision: str, filtered: str
) -> Template | Redirect:
    status = _DECISIONS.get(decision)
    if status is None:
        raise NotFoundException()
    staff = signed_in_staff(request, deps)
    try:
        decide_mapping(deps, staff, mapping_id, status)
    except REFUSED as exc:
        return _list_page(request, deps, staff, filtered, 0, problem=str(exc), status=409)
    back = urlencode({**({"approval_status": filtered} if filtered else {}), "done": status.value})
    return Redirect(f"{PATH}?{back}", status_code=303)


@post("/admin/mappings/{mapping_id:str}/{decision:str}", status_code=303)
async def decide(
    request: AnyRequest, deps: NamedDependency[Deps], mapping_id: FromPath[str], decision: FromPath[str]
) -> Template | Redirect:
    """Approve or reject one mapping; back to the list as it was filtered."""
    form = await form_of(request)()
    filtered = str(form.get("approval_status", ""))
    return await sync_to_thread(_decide, request, deps, mapping_id, decision, filtered)


handlers = [mappings, decide]
