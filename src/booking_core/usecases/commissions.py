"""The operator's side of commissions: the monthly report, and the payout by bank transfer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from booking_core.accounts import Client
from booking_core.audit import AuditAction
from booking_core.commission import Commission, CommissionStatus, MonthlyTotals, monthly_totals, parse_month
from booking_core.errors import BadRequest
from booking_core.payout import HeldBack, PayoutBatch, PayoutPlan, Transfer, plan_payout
from booking_core.ports import PayoutFiles, UnitOfWork
from booking_core.staff import Staff
from booking_core.usecases.audit import audit
from booking_core.usecases.deps import Deps

Progress = Callable[[str], None]


def _silent(_: str) -> None:
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class CommissionReport:
    """A month's records per client and currency, and the batch left unfinished, if any."""

    month: str
    rows: list[MonthlyTotals]
    unfinished: PayoutBatch | None


def commission_report(deps: Deps, month: str) -> CommissionReport:
    """The month's records summed per client, currency and status (CONTRACT 4.6)."""
    month = parse_month(month)
    with deps.read() as uow:
        records = uow.commissions.list(client_id=None, month=month)
        names = {client.id: client.name for client in _clients(uow, records).values()}
        unfinished = uow.commissions.unfinished_batch(month)
    return CommissionReport(month=month, rows=monthly_totals(records, names), unfinished=unfinished)


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutOutcome:
    """What a payout run did.

    ``batch`` is the batch this run completed (None: nothing was paid); ``transfers`` and ``held_back``
    are what its file pays and what it leaves open. ``resumed``: the batch was prepared by an
    interrupted run and finished by this one. ``reversed_meanwhile``: records of the batch refunded
    after it was prepared, which the file leaves out; ``rewritten``: the file was made again because
    the batch's records changed so (a file the interrupted run wrote is outdated). ``dropped``: a
    resumed batch with nothing left to pay, ended without a file. ``completed_elsewhere``: another run
    finished the batch first, and this one wrote nothing.
    """

    month: str
    batch: PayoutBatch | None = None
    transfers: tuple[Transfer, ...] = ()
    held_back: tuple[HeldBack, ...] = ()
    resumed: bool = False
    rewritten: bool = False
    dropped: PayoutBatch | None = None
    completed_elsewhere: PayoutBatch | None = None
    reversed_meanwhile: tuple[Commission, ...] = ()
    still_payable: int = 0


def pay_out_commissions(
    deps: Deps,
    month: str,
    destination: str,
    files: PayoutFiles,
    progress: Progress = _silent,
    *,
    staff: Staff | None = None,
) -> PayoutOutcome:
    """Pay the month's open commissions with one bank file written at ``destination``.

    1. Prepare (one transaction): the records to pay are held for a new batch, and the batch's file
       is rendered and stored with it. A batch an earlier run left prepared is taken up instead.
    2. Finish (a second transaction, which holds the batch and its records, so one run at a time
       finishes it and no refund changes them meanwhile): the batch pays exactly its records still
       open now, at their amounts now; when a refund changed them since the batch was prepared, the
       file is made again. The file is written at ``destination``, completely and durably; then those
       records become ``paid_out`` and the batch ``completed``.

    A crash between the two leaves the batch prepared and its records held: the next run finishes
    it. No record is ever in two batches. A client whose name or IBAN cannot go into the file is
    held back, its records left open, and the others are paid. The completed batch gets an audit entry
    (``commissions.payout``, actor ``staff``; None is the command line) in the finishing transaction.
    """
    month = parse_month(month)
    plan: PayoutPlan | None = None
    with deps.uow() as uow:
        batch = uow.commissions.unfinished_batch(month)
        files.check_destination(destination, batch.document if batch else None)
        if batch is not None:
            _say_resumed(batch, destination, progress)
        else:
            batch, plan = _prepare(deps, uow, month, destination, files, progress)
            if batch is None:
                return PayoutOutcome(month=month, held_back=plan.held_back)
            uow.commit()
    finished = _finish(deps, batch, destination, files, progress, staff)
    if plan is None:
        return finished
    return replace(finished, resumed=False, held_back=plan.held_back + finished.held_back)


def _payable(plan: PayoutPlan, files: PayoutFiles) -> PayoutPlan:
    """``plan`` without the transfers the file cannot carry (their records stay open)."""
    for transfer in plan.transfers:
        reason = files.refusal(transfer)
        if reason is not None:
            plan = plan.hold_back(transfer, reason)
    return plan


def _prepare(
    deps: Deps, uow: UnitOfWork, month: str, destination: str, files: PayoutFiles, progress: Progress
) -> tuple[PayoutBatch | None, PayoutPlan]:
    progress(f"reading the open commissions of {month} ...")
    records = uow.commissions.open_for_payout(month)
    plan = _payable(plan_payout(month, records, _clients(uow, records)), files)
    if not plan.transfers:
        return None, plan
    now = deps.clock.now()
    batch_id = deps.ids.new_id()
    progress(f"{len(records)} open record(s): rendering {len(plan.transfers)} transfer(s) ...")
    document = files.render(batch_id, plan.transfers, now.date())
    batch = PayoutBatch(
        id=batch_id,
        month=month,
        transfers=len(plan.transfers),
        total=plan.total,
        document=document,
        prepared_at=now,
        file_path=destination,
    )
    uow.commissions.add_batch(batch)
    paid = plan.record_ids
    for record in records:
        if record.id in paid:
            uow.commissions.save(record.hold_for(batch_id))
    progress(f"payout batch {batch_id} prepared: {len(paid)} record(s) held for it")
    return batch, plan


def _finish(
    deps: Deps,
    batch: PayoutBatch,
    destination: str,
    files: PayoutFiles,
    progress: Progress,
    staff: Staff | None = None,
) -> PayoutOutcome:
    """Pay what ``batch`` holds that is still open, and say what a further payout would pay."""
    outcome = PayoutOutcome(month=batch.month, resumed=True)
    with deps.uow() as uow:
        current = uow.commissions.unfinished_batch(batch.month)  # waits for a run finishing it
        if current is None or current.id != batch.id:
            return replace(outcome, completed_elsewhere=batch)
        records = uow.commissions.in_batch(batch.id)  # a refund of one of them waits for this run
        plan = _payable(plan_payout(batch.month, records, _clients(uow, records), batch_id=batch.id), files)
        reversed_meanwhile = tuple(r for r in records if r.status is not CommissionStatus.OPEN)
        outcome = replace(
            outcome, transfers=plan.transfers, held_back=plan.held_back, reversed_meanwhile=reversed_meanwhile
        )
        for record in records:  # what the batch no longer pays is left open for a later payout
            if record.status is CommissionStatus.OPEN and record.id not in plan.record_ids:
                uow.commissions.save(record.release())
        if not plan.transfers:
            uow.commissions.save_batch(current.drop(deps.clock.now()))
            uow.commit()
            progress(f"payout batch {batch.id} has nothing left to pay: its records were refunded meanwhile")
            return replace(outcome, dropped=current)
        revised = current
        if reversed_meanwhile or not current.pays(plan):
            document = files.render(current.id, plan.transfers, deps.clock.now().date())
            revised = current.revise(document, plan)
            outcome = replace(outcome, rewritten=True)
            progress(
                f"records of payout batch {batch.id} were refunded after it was prepared: its file is made "
                f"again for the records still open ({revised.total} EUR instead of {current.total} EUR)"
            )
            if current.file_path and current.file_path != destination:
                progress(f"the file at {current.file_path} is outdated: give the bank only {destination}")
        progress(f"writing {destination} ...")
        try:
            files.write(revised.document, destination, replacing=current.document)
        except BadRequest as error:
            raise BadRequest(
                f"{error.message}; payout batch {batch.id} of {batch.month} stays prepared with its "
                "records held: run the payout again (with a writable --sepa path) to finish it"
            ) from error
        paid = [r for r in records if r.id in plan.record_ids]
        progress(f"{destination} written; marking {len(paid)} record(s) paid out ...")
        for record in paid:
            uow.commissions.save(record.pay_out())
        completed = revised.complete(deps.clock.now(), destination)
        uow.commissions.save_batch(completed)
        _audit_payout(deps, uow, staff, completed, plan)
        rest = uow.commissions.list(client_id=None, month=batch.month)
        payable = plan_payout(batch.month, rest, _clients(uow, rest)).transfers
        uow.commit()
    return replace(outcome, batch=completed, still_payable=sum(len(t.record_ids) for t in payable))


def _audit_payout(
    deps: Deps, uow: UnitOfWork, staff: Staff | None, batch: PayoutBatch, plan: PayoutPlan
) -> None:
    """One entry for the completed batch: what each transfer pays."""
    audit(
        deps,
        uow,
        staff,
        AuditAction.COMMISSIONS_PAYOUT,
        venue_id=None,
        object_type="payout_batch",
        object_id=batch.id,
        details={
            "month": batch.month,
            "total": str(batch.total),
            "transfers": [
                {
                    "client_id": t.client_id,
                    "client": t.client_name,
                    "amount": str(t.amount),
                    "currency": t.currency,
                    "records": len(t.record_ids),
                }
                for t in plan.transfers
            ],
        },
    )


def _say_resumed(batch: PayoutBatch, destination: str, progress: Progress) -> None:
    progress(
        f"payout batch {batch.id} of {batch.month} (prepared {batch.prepared_at:%Y-%m-%d %H:%M:%S %Z}, "
        f"{batch.transfers} transfer(s), {batch.total} EUR) was not completed: the run that prepared it "
        "was interrupted, or is still running; finishing it"
    )
    if batch.file_path and batch.file_path != destination:
        progress(
            f"that run wrote to {batch.file_path}: if that file exists, it is the same transfer as the "
            f"one now written to {destination}; give the bank only one of them"
        )


def _clients(uow: UnitOfWork, records: Iterable[Commission]) -> dict[int, Client]:
    found = (uow.clients.get(client_id) for client_id in {record.client_id for record in records})
    return {client.id: client for client in found if client is not None}
