"""The platform operator over HTTP (CONTRACT 7.8), admins only: venue mapping approval, the
commissions report and the payout.

``POST /operator/commissions/payout/?month=`` answers the pain.001 file itself (``application/xml``)
under 4.6's rules, paying from the ``BOOKING_SEPA_DEBTOR_*`` account; without that account it is a
400 naming the first missing variable, and nothing is read or written. With no file to write it
answers ``{"detail": "nothing to pay out", "without_iban": [...]}``.
"""

from __future__ import annotations

from typing import Any

from litestar import MediaType, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath

from booking_core.accounts import ApprovalStatus
from booking_core.limits import DEFAULT_PAGE_SIZE
from booking_core.paging import Page
from booking_core.usecases import operator_platform
from booking_core.usecases.deps import Deps
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS, OPERATOR_WRITE_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.paging import LINK_HEADER, paged_response
from entrypoints.http.payouts import payout_file, payout_files, without_iban
from entrypoints.http.structs.fields import Limit, Offset, QueryText
from entrypoints.http.structs.operator_admin import CommissionTotalsOut, NothingToPayOut, OpVenueMappingOut

NOTHING_TO_PAY = "nothing to pay out"


@get("/venue-mappings/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=OPERATOR_READ_ANSWERS)
def venue_mappings(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    approval_status: QueryText = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[OpVenueMappingOut]]:
    """Every client's venue mappings, oldest first, optionally of one approval status."""
    found = operator_platform.list_mappings(
        deps, provide_staff(request), approval_status, page=Page(limit=limit, offset=offset)
    )
    return paged_response(request, found, OpVenueMappingOut.of_client)


def _decide(
    request: Request[Any, Any, Any], deps: Deps, mapping_id: str, status: ApprovalStatus
) -> OpVenueMappingOut:
    decided = operator_platform.decide_mapping(deps, provide_staff(request), mapping_id, status)
    return OpVenueMappingOut.of_client(decided)


@post(
    "/venue-mappings/{mapping_id:str}/approve/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def approve(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], mapping_id: FromPath[str]
) -> OpVenueMappingOut:
    """Approve a client's venue mapping."""
    return _decide(request, deps, mapping_id, ApprovalStatus.APPROVED)


@post(
    "/venue-mappings/{mapping_id:str}/reject/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def reject(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], mapping_id: FromPath[str]
) -> OpVenueMappingOut:
    """Reject a client's venue mapping."""
    return _decide(request, deps, mapping_id, ApprovalStatus.REJECTED)


@get("/commissions/report/", sync_to_thread=True, responses=OPERATOR_READ_ANSWERS)
def commissions_report(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], month: QueryText = None
) -> list[CommissionTotalsOut]:
    """One row per client and currency of the month's records, as ``booking commissions report``."""
    report = operator_platform.commissions_report(deps, provide_staff(request), month or "")
    return [CommissionTotalsOut.of(row) for row in report.rows]


@post("/commissions/payout/", sync_to_thread=True, status_code=200, responses=OPERATOR_WRITE_ANSWERS)
def commissions_payout(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], month: QueryText = None
) -> Response[Any]:
    """Pay the month's open commissions: the pain.001 file, or why there is none."""
    staff = provide_staff(request)
    files = payout_files(request)
    outcome = operator_platform.pay_out(deps, staff, month or "", files)
    if outcome.batch is None:
        return Response(
            content=NothingToPayOut(detail=NOTHING_TO_PAY, without_iban=without_iban(outcome)),
            media_type=MediaType.JSON,
        )
    return payout_file(outcome.month, outcome.batch)


handlers = [venue_mappings, approve, reject, commissions_report, commissions_payout]
