"""``booking commissions report|payout`` (CONTRACT sections 3 and 4.6).

Results go to stdout, progress and notes to stderr; errors end in ``entrypoints.cli.main`` as one line.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from adapters.payouts import SepaCreditTransfers, SepaDebtor
from booking_core.commission import MonthlyTotals, parse_month
from booking_core.errors import BadRequest
from booking_core.usecases.commissions import PayoutOutcome, commission_report, pay_out_commissions
from entrypoints.bootstrap import Services
from entrypoints.config import load_settings

COLUMNS = ("client", "currency", "records", "open", "paid_out", "reversed")


def add_commission_commands(
    actions: Any, command: Callable[..., argparse.ArgumentParser], services: Callable[[], Services]
) -> None:
    """Add ``report`` and ``payout`` to the ``commissions`` group's ``actions``."""
    report = command(
        "report", lambda args: _report(args, services), "per-client totals of a month's commissions", actions
    )
    report.add_argument("--month", required=True, type=_month, metavar="YYYY-MM")
    report.add_argument("--format", choices=("table", "csv", "json"), default="table")
    payout = command(
        "payout",
        lambda args: _payout(args, services),
        "pay a month's open commissions: write a SEPA credit-transfer file and mark them paid out",
        actions,
    )
    payout.add_argument("--month", required=True, type=_month, metavar="YYYY-MM")
    payout.add_argument("--sepa", required=True, metavar="FILE", help="where the pain.001 file is written")


def _month(text: str) -> str:
    try:
        return parse_month(text)
    except BadRequest as error:
        raise argparse.ArgumentTypeError(error.message) from None


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _report(args: argparse.Namespace, services: Callable[[], Services]) -> int:
    running = services()
    try:
        report = commission_report(running.deps, args.month)
    finally:
        running.close()
    rows = [_as_strings(row) for row in report.rows]
    if args.format == "json":
        print(json.dumps([{**row, "records": int(row["records"])} for row in rows], indent=2))
    elif args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    elif rows:
        _print_table(rows)
    else:
        _say(f"no commission records in {report.month}")
    if report.unfinished is not None:
        _say(
            f"note: payout batch {report.unfinished.id} of {report.month} was prepared and not completed; "
            "its records count as open until `booking commissions payout` finishes it"
        )
    return 0


def _as_strings(row: MonthlyTotals) -> dict[str, str]:
    return {column: str(getattr(row, column)) for column in COLUMNS}


def _print_table(rows: Sequence[dict[str, str]]) -> None:
    """Text columns to the left, numbers to the right."""
    header = {c: c.upper() for c in COLUMNS}
    widths = {c: max(len(row[c]) for row in (header, *rows)) for c in COLUMNS}
    for row in (header, *rows):
        cells = [
            row[c].ljust(widths[c]) if c in {"client", "currency"} else row[c].rjust(widths[c])
            for c in COLUMNS
        ]
        print("  ".join(cells).rstrip())


def _payout(args: argparse.Namespace, services: Callable[[], Services]) -> int:
    name, iban, bic = load_settings().sepa_debtor.require()  # before anything is read or written
    destination = str(Path(args.sepa).expanduser().absolute())
    files = SepaCreditTransfers(SepaDebtor(name=name, iban=iban, bic=bic))
    running = services()
    try:
        outcome = pay_out_commissions(running.deps, args.month, destination, files, progress=_say)
    finally:
        running.close()
    _print_outcome(outcome)
    return 0


def _print_outcome(outcome: PayoutOutcome) -> None:
    for transfer in outcome.transfers:
        print(
            f"paid  {_shown(transfer.client_name)}: {transfer.amount} {transfer.currency} to "
            f"{_shown(transfer.iban)} ({len(transfer.record_ids)} record(s))"
        )
    for held in outcome.held_back:
        print(
            f"open  {_shown(held.client_name)}: {held.amount} {held.currency} in {held.records} record(s) "
            f"stay open: {held.reason}"
        )
    for record in outcome.reversed_meanwhile:
        _say(
            f"note: commission {record.id} (booking {record.reference_code}, {record.amount} "
            f"{record.currency}) was reversed after the batch was prepared; the file leaves it out"
        )
    batch = outcome.batch
    if batch is not None:
        what = "the interrupted payout batch" if outcome.resumed else "payout batch"
        print(
            f"wrote {batch.file_path}: {what} {batch.id} of {batch.month}, {batch.transfers} transfer(s), "
            f"{batch.total} EUR; its records are paid out"
        )
    elif outcome.dropped is not None:
        print(
            f"payout batch {outcome.dropped.id} of {outcome.month} had nothing left to pay (its records were "
            f"refunded); no file written, and a file it wrote before ({outcome.dropped.file_path}) is void"
        )
    elif outcome.completed_elsewhere is not None:
        print(
            f"payout batch {outcome.completed_elsewhere.id} of {outcome.month} was completed by another run "
            "meanwhile; this run wrote no file"
        )
    else:
        print(f"nothing to pay out for {outcome.month}; no file written")
    if outcome.resumed and outcome.still_payable:
        print(f"{outcome.still_payable} more record(s) of {outcome.month} can be paid: run the payout again")


def _shown(text: str) -> str:
    """``text`` on one line, whatever the database holds: control characters escaped."""
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)
