"""The commissions of a month for admins (CONTRACT 8): the rows of ``GET /operator/commissions/report/`` and
the payout file of ``POST /operator/commissions/payout/`` to download, through the same use cases
(:func:`booking_core.usecases.operator_platform.commissions_report` and ``pay_out``).

The payout answers the same pain.001 file as the API, as a download; with nothing to pay, a page that
says so and names the clients whose records stay open for want of an IBAN. A refusal (no debtor account
set, a month that is none) shows the month's page with the use case's reason, and nothing was paid.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import FromQuery
from litestar.response import Template

from booking_core.staff import Staff
from booking_core.usecases.commissions import CommissionReport
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_platform import commissions_report, pay_out
from entrypoints.console.bookings import REFUSED, form_of
from entrypoints.console.pages import page
from entrypoints.console.session import signed_in_staff
from entrypoints.http.payouts import payout_file, payout_files, without_iban

AnyRequest = Request[Any, Any, Any]


def _month_page(
    request: AnyRequest,
    deps: Deps,
    staff: Staff,
    month: str,
    *,
    problem: str | None = None,
    nothing_to_pay: list[str] | None = None,
    status: int = 200,
) -> Template:
    report: CommissionReport | None = None
    try:
        report = commissions_report(deps, staff, month)
    except REFUSED as exc:  # a month that is none: say why, and show no rows
        problem, status = problem or str(exc), 400
    return page(
        request,
        "commissions.html",
        staff=staff,
        month=month,
        report=report,
        problem=problem,
        nothing_to_pay=nothing_to_pay,
        status=status,
    )


@get("/admin/commissions", sync_to_thread=True, name="console_commissions")
def commissions(
    request: AnyRequest, deps: NamedDependency[Deps], month: FromQuery[str | None] = None
) -> Template:
    """One row per client and currency of the month's commissions (this month's when none is given)."""
    staff = signed_in_staff(request, deps)
    return _month_page(request, deps, staff, month or deps.clock.now().strftime("%Y-%m"))


def _pay_out(request: AnyRequest, deps: Deps, month: str) -> Template | Response[bytes]:
    staff = signed_in_staff(request, deps)
    try:
        outcome = pay_out(deps, staff, month, payout_files(request))
    except REFUSED as exc:
        return _month_page(request, deps, staff, month, problem=str(exc), status=409)
    if outcome.batch is None:
        return _month_page(request, deps, staff, outcome.month, nothing_to_pay=without_iban(outcome))
    return payout_file(outcome.month, outcome.batch)


@post("/admin/commissions/payout", status_code=200)
async def download_payout(request: AnyRequest, deps: NamedDependency[Deps]) -> Template | Response[bytes]:
    """Pay the month's open commissions: the pain.001 file as a download, or a page saying there is none."""
    form = await form_of(request)()
    return await sync_to_thread(_pay_out, request, deps, str(form.get("month", "")))


handlers = [commissions, download_payout]
