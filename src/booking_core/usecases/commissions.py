"""The operator's side of commissions: the monthly report, and the payout by bank transfer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from booking_core.accounts import Client
from booking_core.commission import Commission, CommissionStatus, MonthlyTotals, monthly_totals, parse_month
from booking_core.errors import BadRequest
from booking_core.payout import HeldBack, PayoutBatch, PayoutPlan, Transfer, plan_payout
from booking_core.ports import PayoutFiles, UnitOfWork
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

    ``batch`` is the batch this run completed (None: nothing was paid). ``transfers`` and
    ``held_back`` describe a batch this run prepared; a batch taken up from an interrupted run
    (``resumed``) carries only its totals. ``reversed_meanwhile``: records of the batch refunded
    after it was prepared; the file pays them all the same. ``completed_elsewhere``: another run
    finished the batch first, and this one wrote nothing.
    """

    month: str
    batch: PayoutBatch | None = None
    transfers: tuple[Transfer, ...] = ()
    held_back: tuple[HeldBack, ...] = ()
    resumed: bool = False
    completed_elsewhere: PayoutBatch | None = None
    reversed_meanwhile: tuple[Commission, ...] = ()
    still_payable: int = 0


def pay_out_commissions(
    deps: Deps, month: str, destination: str, files: PayoutFiles, progress: Progress = _silent
) -> PayoutOutcome:
    """Pay the month's open commissions with one bank file written at ``destination``.

    1. Prepare (one transaction): the records to pay are held for a new batch, and the batch's file
       is rendered and stored with it. A batch an earlier run left prepared is taken up instead.
    2. Finish (a second transaction, which holds the batch, so one run at a time finishes it): the
       stored file is written at ``destination``, completely and durably; then the batch's records
       become ``paid_out`` and the batch ``completed``.

    A crash between the two leaves the batch prepared and its records held: the next run writes
    the same file again and completes it. No record is ever in two batches.
    """
    month = parse_month(month)
    with deps.uow() as uow:
        batch = uow.commissions.unfinished_batch(month)
        files.check_destination(destination, batch.document if batch else None)
        if batch is not None:
            _say_resumed(batch, destination, progress)
            plan = None
        else:
            batch, plan = _prepare(deps, uow, month, destination, files, progress)
            if batch is None:
                return PayoutOutcome(month=month, held_back=plan.held_back)
            uow.commit()
    completed, reversed_meanwhile, still_payable = _finish(deps, batch, destination, files, progress)
    return PayoutOutcome(
        month=month,
        batch=completed,
        transfers=plan.transfers if plan else (),
        held_back=plan.held_back if plan else (),
        resumed=plan is None,
        completed_elsewhere=None if completed else batch,
        reversed_meanwhile=reversed_meanwhile,
        still_payable=still_payable,
    )


def _prepare(
    deps: Deps, uow: UnitOfWork, month: str, destination: str, files: PayoutFiles, progress: Progress
) -> tuple[PayoutBatch | None, PayoutPlan]:
    progress(f"reading the open commissions of {month} ...")
    records = uow.commissions.open_for_payout(month)
    plan = plan_payout(month, records, _clients(uow, records))
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
    paid = {record_id for transfer in plan.transfers for record_id in transfer.record_ids}
    for record in records:
        if record.id in paid:
            uow.commissions.save(record.hold_for(batch_id))
    progress(f"payout batch {batch_id} prepared: {len(paid)} record(s) held for it")
    return batch, plan


def _finish(
    deps: Deps, batch: PayoutBatch, destination: str, files: PayoutFiles, progress: Progress
) -> tuple[PayoutBatch | None, tuple[Commission, ...], int]:
    """The completed batch (None: another run completed it), its records reversed meanwhile, and
    how many records of the month a further payout would pay (opened since the batch was prepared)."""
    with deps.uow() as uow:
        current = uow.commissions.unfinished_batch(batch.month)  # waits for a run finishing it
        if current is None or current.id != batch.id:
            return None, (), 0
        records = uow.commissions.in_batch(batch.id)
        progress(f"writing {destination} ...")
        try:
            files.write(current.document, destination)
        except BadRequest as error:
            raise BadRequest(
                f"{error.message}; payout batch {batch.id} of {batch.month} stays prepared with its "
                "records held: run the payout again (with a writable --sepa path) to finish it"
            ) from error
        progress(f"{destination} written; marking {len(records)} record(s) paid out ...")
        for record in records:
            if record.status is CommissionStatus.OPEN:
                uow.commissions.save(record.pay_out())
        completed = current.complete(deps.clock.now(), destination)
        uow.commissions.save_batch(completed)
        rest = uow.commissions.list(client_id=None, month=batch.month)
        payable = plan_payout(batch.month, rest, _clients(uow, rest)).transfers
        uow.commit()
    reversed_meanwhile = tuple(r for r in records if r.status is not CommissionStatus.OPEN)
    return completed, reversed_meanwhile, sum(len(t.record_ids) for t in payable)


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
