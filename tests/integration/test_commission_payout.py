"""``booking commissions report|payout`` against SQLite and PostgreSQL, through the real adapters."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sepaxml
import xmlschema
from sqlalchemy import Engine, select, update

from adapters.payouts import SEPA_SCHEMA, SepaCreditTransfers, SepaDebtor
from adapters.payouts import files as payout_files
from adapters.sqla import SqlaUnitOfWork, make_engine
from adapters.sqla import upgrade as migrate_up
from adapters.sqla.models import ClientRow, CommissionRow, PayoutBatchRow
from booking_core.accounts import User
from booking_core.commission import Commission, CommissionStatus
from booking_core.commission_refunds import follow_refund
from booking_core.memory import FixedClock, InMemoryPaymentGateway, PlainPasswords
from booking_core.usecases.commissions import PayoutOutcome, pay_out_commissions
from booking_core.usecases.deps import Deps
from entrypoints.bootstrap import charging_currencies
from entrypoints.cli import main
from entrypoints.commission_commands import COLUMNS
from tests.support.bookings import NOW, USER_ID, make_booking
from tests.support.seed import demo_client, demo_resource, seed

DEBTOR = {
    "BOOKING_SEPA_DEBTOR_NAME": "Court Booking Operator GmbH",
    "BOOKING_SEPA_DEBTOR_IBAN": "DE75 5121 0800 1245 1261 99",
    "BOOKING_SEPA_DEBTOR_BIC": "SOGEDEFFXXX",
}
PARTNER_IBAN = "DE89370400440532013000"
ZURICH_IBAN = "DE02120300000000202051"
XSD = Path(sepaxml.__file__).parent / "schemas" / f"{SEPA_SCHEMA}.xsd"
# (client id, amount, currency, status, month)
RECORDS = [
    (1, "10.00", "EUR", CommissionStatus.OPEN, "2026-06"),
    (1, "2.50", "EUR", CommissionStatus.OPEN, "2026-06"),
    (1, "3.00", "EUR", CommissionStatus.PAID_OUT, "2026-06"),
    (1, "7.00", "EUR", CommissionStatus.REVERSED, "2026-06"),
    (1, "9.99", "CHF", CommissionStatus.OPEN, "2026-06"),
    (2, "3.00", "EUR", CommissionStatus.OPEN, "2026-06"),
    (3, "4.00", "EUR", CommissionStatus.OPEN, "2026-06"),
    (3, "1.00", "EUR", CommissionStatus.OPEN, "2026-07"),
]


@dataclass
class Books:
    """A migrated database with the commission records above, and the CLI pointed at it."""

    url: str
    engine: Engine
    tmp: Path

    def deps(self) -> Deps:
        writes, reads = SqlaUnitOfWork.factories(self.engine)
        return Deps(
            uow=writes,
            reads=reads,
            clock=FixedClock(NOW),
            ids=_UuidIds(),
            passwords=PlainPasswords(),
            payments=InMemoryPaymentGateway(),
            currencies=charging_currencies(),
        )

    def statuses(self) -> dict[str, tuple[str, bool]]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(CommissionRow.id, CommissionRow.status, CommissionRow.payout_batch_id)
            )
            return {row.id: (row.status, row.payout_batch_id is not None) for row in rows}

    def batches(self) -> list[tuple[str, str]]:
        with self.engine.connect() as connection:
            return [tuple(r) for r in connection.execute(select(PayoutBatchRow.status, PayoutBatchRow.month))]


class _UuidIds:
    def new_id(self) -> str:
        import uuid

        return str(uuid.uuid4())

    def reference_code(self) -> str:
        raise NotImplementedError

    def new_token(self) -> str:
        raise NotImplementedError


def _fill(url: str) -> Engine:
    migrate_up(url)
    engine = make_engine(url)
    seed(
        engine,
        demo_resource(),
        clients=(
            demo_client(id=1, name="PartnerApp", iban=PARTNER_IBAN),
            demo_client(id=2, name="NoIbanApp"),
            demo_client(id=3, name="Zürich Bälle AG", iban=ZURICH_IBAN),
        ),
    )
    with SqlaUnitOfWork.factory(engine)() as uow:
        uow.users.add(User(id=USER_ID, email="anna@example.com", created_at=NOW))
        for n, (client_id, amount, currency, status, month) in enumerate(RECORDS):
            booking = make_booking(f"{8 + n:02d}:00", f"{9 + n:02d}:00", client_id=client_id)
            uow.bookings.add(booking)
            uow.commissions.add(
                Commission(
                    id=f"c-{n}",
                    booking_id=booking.id,
                    reference_code=booking.reference_code,
                    client_id=client_id,
                    base_amount=Decimal(amount) * 10,
                    commission_percent=Decimal("10.00"),
                    amount=Decimal(amount),
                    currency=currency,
                    month=month,
                    status=status,
                    created_at=NOW,
                )
            )
        uow.commit()
    return engine


_PG = pytest.param("postgresql", marks=pytest.mark.postgres)


@pytest.fixture(params=["sqlite", _PG])
def books(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Books]:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    for name in list(os.environ):
        if name.startswith("BOOKING_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no stray .env applies
    monkeypatch.setenv("BOOKING_DATABASE_URL", url)
    for name, value in DEBTOR.items():
        monkeypatch.setenv(name, value)
    engine = _fill(url)
    yield Books(url=url, engine=engine, tmp=tmp_path)
    engine.dispose()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def read_sepa(path: Path) -> dict[str, Any]:
    """The file decoded by its XSD, which fails on anything the schema does not allow."""
    decoded: dict[str, Any] = xmlschema.XMLSchema(XSD).to_dict(str(path))
    return decoded["CstmrCdtTrfInitn"]


# --------------------------------------------------------------------------- report

EXPECTED = [
    dict(zip(COLUMNS, row, strict=True))
    for row in [
        ("NoIbanApp", "EUR", 1, "3.00", "0.00", "0.00"),
        ("PartnerApp", "CHF", 1, "9.99", "0.00", "0.00"),
        ("PartnerApp", "EUR", 4, "12.50", "3.00", "7.00"),
        ("Zürich Bälle AG", "EUR", 1, "4.00", "0.00", "0.00"),
    ]
]


def test_the_report_in_json_csv_and_table(books: Books, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "commissions", "report", "--month", "2026-06", "--format", "json")
    assert status == 0
    assert json.loads(out) == EXPECTED

    status, out, _ = run(capsys, "commissions", "report", "--month", "2026-06", "--format", "csv")
    assert status == 0
    assert out.splitlines()[0] == "client,currency,records,open,paid_out,reversed"
    assert list(csv.DictReader(io.StringIO(out))) == [{k: str(v) for k, v in row.items()} for row in EXPECTED]

    status, out, _ = run(capsys, "commissions", "report", "--month", "2026-06")
    assert status == 0
    assert out.splitlines() == [
        "CLIENT           CURRENCY  RECORDS   OPEN  PAID_OUT  REVERSED",
        "NoIbanApp        EUR             1   3.00      0.00      0.00",
        "PartnerApp       CHF             1   9.99      0.00      0.00",
        "PartnerApp       EUR             4  12.50      3.00      7.00",
        "Zürich Bälle AG  EUR             1   4.00      0.00      0.00",
    ]


def test_a_month_without_records_reports_nothing(books: Books, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "commissions", "report", "--month", "2026-05", "--format", "json")[1].strip() == "[]"
    assert run(capsys, "commissions", "report", "--month", "2026-05", "--format", "csv")[1] == (
        "client,currency,records,open,paid_out,reversed\n"
    )
    status, out, err = run(capsys, "commissions", "report", "--month", "2026-05")
    assert (status, out, err) == (0, "", "no commission records in 2026-05\n")


# --------------------------------------------------------------------------- payout


def test_the_payout_writes_a_valid_pain001_file_and_pays_exactly_those_records(
    books: Books, capsys: pytest.CaptureFixture[str]
) -> None:
    path = books.tmp / "june.xml"

    status, out, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", str(path))

    assert status == 0, err
    sepa = read_sepa(path)
    header, [payment] = sepa["GrpHdr"], sepa["PmtInf"]
    assert (header["NbOfTxs"], header["CtrlSum"]) == ("2", Decimal("16.50"))
    assert payment["Dbtr"]["Nm"] == "Court Booking Operator GmbH"
    assert payment["DbtrAcct"]["Id"]["IBAN"] == "DE75512108001245126199"
    assert payment["DbtrAgt"]["FinInstnId"]["BIC"] == "SOGEDEFFXXX"
    paid = {
        (tx["Cdtr"]["Nm"], tx["CdtrAcct"]["Id"]["IBAN"], tx["Amt"]["InstdAmt"]["$"], tx["RmtInf"]["Ustrd"][0])
        for tx in payment["CdtTrfTxInf"]
    }
    assert paid == {
        ("PartnerApp", PARTNER_IBAN, Decimal("12.50"), "Commissions 2026-06: 2 booking(s)"),
        ("Zurich Balle AG", ZURICH_IBAN, Decimal("4.00"), "Commissions 2026-06: 1 booking(s)"),
    }
    assert books.statuses() == {
        "c-0": ("paid_out", True),
        "c-1": ("paid_out", True),
        "c-2": ("paid_out", False),
        "c-3": ("reversed", False),
        "c-4": ("open", False),
        "c-5": ("open", False),
        "c-6": ("paid_out", True),
        "c-7": ("open", False),
    }
    assert "open  NoIbanApp: 3.00 EUR in 1 record(s) stay open: no IBAN on record" in out
    assert "open  PartnerApp: 9.99 CHF in 1 record(s) stay open: SEPA transfers are in EUR only" in out
    assert f"wrote {path}: payout batch" in out
    assert "reading the open commissions of 2026-06" in err  # progress
    assert f"writing {path}" in err
    assert books.batches() == [("completed", "2026-06")]


def test_a_second_run_pays_nothing_and_writes_no_file(
    books: Books, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")[0] == 0
    before = books.statuses()

    status, out, _ = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "again.xml")

    assert status == 0
    assert "nothing to pay out for 2026-06; no file written" in out
    assert not (books.tmp / "again.xml").exists()
    assert books.statuses() == before


def test_records_are_paid_out_only_once_the_file_is_completely_written(
    books: Books, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(payout_files.os, "replace", disk_full)

    status, out, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")

    assert status == 1
    assert err.splitlines()[-1].startswith("cannot write ")
    assert "No space left on device; payout batch " in err.splitlines()[-1]
    assert "stays prepared" in err.splitlines()[-1]
    assert list(books.tmp.glob("*june*")) == []  # neither the file nor its temporary part
    assert {status for status, _ in books.statuses().values()} == {"open", "paid_out", "reversed"}
    assert books.statuses()["c-0"] == ("open", True)  # held by the prepared batch
    assert books.batches() == [("prepared", "2026-06")]

    monkeypatch.undo()
    for name, value in {**DEBTOR, "BOOKING_DATABASE_URL": books.url}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(books.tmp)
    status, out, _ = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")
    assert status == 0
    assert "the interrupted payout batch" in out
    assert books.statuses()["c-0"] == ("paid_out", True)
    read_sepa(books.tmp / "june.xml")


_REAL_WRITE = SepaCreditTransfers.write


def _write_then_die(
    self: SepaCreditTransfers, document: str, destination: str, replacing: str | None = None
) -> None:
    _REAL_WRITE(self, document, destination, replacing)
    raise KeyboardInterrupt  # the process is stopped after the rename, before the commit


def _interrupted_payout(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A payout stopped between its file and the database: the file is there, the batch prepared."""
    monkeypatch.setattr(SepaCreditTransfers, "write", _write_then_die)
    assert run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")[0] == 130
    monkeypatch.setattr(SepaCreditTransfers, "write", _REAL_WRITE)


def test_a_crash_between_the_file_and_the_database_is_repaired_by_the_next_run(
    books: Books, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _interrupted_payout(capsys, monkeypatch)
    first = (books.tmp / "june.xml").read_bytes()
    assert books.batches() == [("prepared", "2026-06")]
    assert books.statuses()["c-0"] == ("open", True)
    _, _, err = run(capsys, "commissions", "report", "--month", "2026-06")
    assert "was prepared and not completed" in err  # the operator can tell

    status, out, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june-2.xml")

    assert status == 0
    assert "was not completed: the run that prepared it was interrupted" in err
    assert f"that run wrote to {books.tmp / 'june.xml'}" in err
    assert "give the bank only one of them" in err
    assert (books.tmp / "june-2.xml").read_bytes() == first  # the same transfer, not a second one
    assert books.batches() == [("completed", "2026-06")]
    assert [s for s, _ in books.statuses().values()].count("paid_out") == 4
    status, out, _ = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june-3.xml")
    assert (status, "nothing to pay out" in out) == (0, True)


def test_the_interrupted_file_may_be_written_again_at_its_own_path(
    books: Books, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _interrupted_payout(capsys, monkeypatch)

    status, _, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")

    assert status == 0, err
    assert "give the bank only one" not in err
    assert books.batches() == [("completed", "2026-06")]


def _refunded_in_full(books: Books, record_id: str, correction_id: str = "c-correction") -> None:
    """The booking of ``record_id`` is refunded, its records following as the refund path makes them."""
    with books.engine.connect() as connection:
        query = select(CommissionRow.booking_id).where(CommissionRow.id == record_id)
        booking_id = connection.execute(query).scalar_one()
    with SqlaUnitOfWork.factory(books.engine)() as uow:
        records = uow.commissions.of_booking(booking_id)
        paid = records[0].base_amount
        correction = follow_refund(
            records, paid=paid, refunded=paid, new_id=lambda: correction_id, now=NOW, month="2026-06"
        )
        for record in correction.changed:
            uow.commissions.save(record)
        if correction.added is not None:
            uow.commissions.add(correction.added)
        uow.commit()


def test_a_resumed_payout_leaves_out_a_record_refunded_meanwhile_and_rewrites_the_file(
    books: Books, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 1: the resumed run sent the stored file, which paid the refunded booking's commission."""
    _interrupted_payout(capsys, monkeypatch)
    assert read_sepa(books.tmp / "june.xml")["GrpHdr"]["CtrlSum"] == Decimal("16.50")
    _refunded_in_full(books, "c-6")  # Zürich Bälle AG's 4.00

    status, _, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")

    assert status == 0, err
    rewritten = read_sepa(books.tmp / "june.xml")
    assert rewritten["GrpHdr"]["CtrlSum"] == Decimal("12.50")
    assert [t["Cdtr"]["Nm"] for t in rewritten["PmtInf"][0]["CdtTrfTxInf"]] == ["PartnerApp"]
    assert "its file is made again" in err
    assert books.statuses()["c-6"][0] == "reversed"
    assert [s for s, _ in books.statuses().values()].count("paid_out") == 3  # c-0, c-1 and c-2 of before
    assert books.batches() == [("completed", "2026-06")]


def test_a_refund_after_the_payout_is_netted_by_the_next_one(
    books: Books, capsys: pytest.CaptureFixture[str]
) -> None:
    """CONTRACT 9.2: a negative open record; the client's open records summed, negative ones included."""
    assert run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")[0] == 0
    _refunded_in_full(books, "c-0")  # PartnerApp's 10.00, paid out
    assert books.statuses()["c-correction"] == ("open", False)
    _refunded_in_full(books, "c-6", "c-correction-2")  # Zürich Bälle AG's 4.00 too

    status, out, _ = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june-2.xml")

    assert status == 0
    assert "nothing to pay out" in out
    assert "PartnerApp: -10.00 EUR in 1 record(s) stay open: nothing to transfer" in out
    assert books.statuses()["c-correction"] == ("open", False)


def test_a_client_whose_name_cannot_go_into_the_file_is_named_and_the_others_are_paid(
    books: Books, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 9: a client named ``Partner\\x01 GmbH`` ended the payout in a traceback, paying no one."""
    with books.engine.begin() as connection:  # whatever the catalog lets through, the database may hold
        connection.execute(update(ClientRow).where(ClientRow.id == 3).values(name="Partner\x01 GmbH"))

    status, out, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")

    assert status == 0, err
    [named] = [line for line in out.splitlines() if "Partner\\x01 GmbH" in line]
    assert named.startswith("open  Partner\\x01 GmbH: 4.00 EUR in 1 record(s) stay open: ")
    assert "control character" in named
    assert "paid  PartnerApp: 12.50 EUR" in out
    assert read_sepa(books.tmp / "june.xml")["GrpHdr"]["CtrlSum"] == Decimal("12.50")
    assert books.statuses()["c-6"] == ("open", False)


def test_a_client_whose_iban_the_bank_file_refuses_is_held_back(
    books: Books, capsys: pytest.CaptureFixture[str]
) -> None:
    with books.engine.begin() as connection:  # a valid IBAN ahead of a control character
        connection.execute(update(ClientRow).where(ClientRow.id == 3).values(iban=ZURICH_IBAN + "\x7f"))

    status, out, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")

    assert status == 0, err
    assert "open  Zürich Bälle AG: 4.00 EUR in 1 record(s) stay open: " in out
    assert "paid  PartnerApp: 12.50 EUR" in out


class _HeldWhileWriting(SepaCreditTransfers):
    """Writes its file only when ``release`` is set, after telling ``writing``."""

    def __init__(self) -> None:
        super().__init__(SepaDebtor(name="Operator", iban="DE75512108001245126199"))
        self.writing, self.release = threading.Event(), threading.Event()

    def write(self, document: str, destination: str, replacing: str | None = None) -> None:
        self.writing.set()
        assert self.release.wait(timeout=60)
        super().write(document, destination, replacing)


@pytest.mark.slow
def test_a_run_started_while_another_writes_its_file_waits_and_pays_nothing(books: Books) -> None:
    first, second = (
        _HeldWhileWriting(),
        SepaCreditTransfers(SepaDebtor(name="Op", iban="DE75512108001245126199")),
    )
    results: dict[str, object] = {}

    def pay(name: str, files: SepaCreditTransfers) -> None:
        try:
            results[name] = pay_out_commissions(
                books.deps(), "2026-06", str(books.tmp / f"{name}.xml"), files
            )
        except BaseException as error:  # reported below
            results[name] = error

    one = threading.Thread(target=pay, args=("one", first))
    one.start()
    assert first.writing.wait(timeout=60)  # the first run holds its prepared batch and is writing
    two = threading.Thread(target=pay, args=("two", second))
    two.start()
    two.join(timeout=1)
    assert two.is_alive()  # it waits for the batch instead of writing it a second time
    first.release.set()
    one.join(timeout=60)
    two.join(timeout=60)

    done, waited = results["one"], results["two"]
    assert isinstance(done, PayoutOutcome)
    assert isinstance(waited, PayoutOutcome)
    assert done.batch is not None
    assert waited.batch is None
    assert sorted(p.name for p in books.tmp.glob("*.xml")) == ["one.xml"]
    assert [s for s, _ in books.statuses().values()].count("paid_out") == 4


@pytest.mark.slow
def test_runs_started_together_pay_nothing_twice(books: Books) -> None:
    runs = 6
    files = SepaCreditTransfers(SepaDebtor(name="Operator", iban="DE75512108001245126199"))
    start = threading.Barrier(runs)
    errors: list[BaseException] = []

    def pay(n: int) -> None:
        start.wait()
        time.sleep(random.uniform(0, 0.05))  # spread the starts over the phases of a run
        try:
            pay_out_commissions(books.deps(), "2026-06", str(books.tmp / f"run-{n}.xml"), files)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=pay, args=(n,)) for n in range(runs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert errors == []
    [written] = books.tmp.glob("run-*.xml")
    assert read_sepa(written)["GrpHdr"]["CtrlSum"] == Decimal("16.50")
    assert books.batches() == [("completed", "2026-06")]
    assert [s for s, _ in books.statuses().values()].count("paid_out") == 4


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (
            ("payout", "--month", "2026-13", "--sepa", "x.xml"),
            2,
            "booking commissions payout: argument --month: month must be YYYY-MM with a month from 01 to 12 "
            "and a year from 2000 to 2100, got '2026-13' (see booking commissions payout --help)",
        ),
        (
            ("report", "--month", "1999-12"),
            2,
            "booking commissions report: argument --month: month must be YYYY-MM with a month from 01 to 12 "
            "and a year from 2000 to 2100, got '1999-12' (see booking commissions report --help)",
        ),
        (
            ("payout", "--month", "2026-06", "--sepa", "missing/x.xml"),
            1,
            "cannot write {tmp}/missing/x.xml: ",
        ),
        (("payout", "--month", "2026-06", "--sepa", "."), 1, "cannot write {tmp}: it is a directory"),
        (
            ("payout", "--month", "2026-06", "--sepa", "taken.xml"),
            1,
            "cannot write {tmp}/taken.xml: the file",
        ),
    ],
)
def test_bad_input_gets_one_line_and_a_non_zero_exit(
    books: Books, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], status: int, message: str
) -> None:
    (books.tmp / "taken.xml").write_text("last month's file", encoding="utf-8")
    before = books.statuses()

    code, out, err = _run_or_exit(capsys, "commissions", *args)

    assert code == status
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(message.format(tmp=books.tmp))
    assert books.statuses() == before
    assert books.batches() == []
    assert (books.tmp / "taken.xml").read_text(encoding="utf-8") == "last month's file"


@pytest.mark.parametrize(
    ("unset", "invalid", "message"),
    [
        ("BOOKING_SEPA_DEBTOR_NAME", None, "BOOKING_SEPA_DEBTOR_NAME: must be set to pay out"),
        ("BOOKING_SEPA_DEBTOR_IBAN", None, "BOOKING_SEPA_DEBTOR_IBAN: must be set to pay out"),
        (None, ("BOOKING_SEPA_DEBTOR_IBAN", "DE00 1234"), "BOOKING_SEPA_DEBTOR_IBAN: must be an IBAN"),
        (None, ("BOOKING_SEPA_DEBTOR_BIC", "BANK"), "BOOKING_SEPA_DEBTOR_BIC: must be a BIC"),
    ],
)
def test_the_debtor_account_is_required_and_checked(
    books: Books,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    unset: str | None,
    invalid: tuple[str, str] | None,
    message: str,
) -> None:
    if unset:
        monkeypatch.delenv(unset)
    if invalid:
        monkeypatch.setenv(*invalid)

    status, out, err = run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")

    assert (status, out, err.count("\n")) == (2, "", 1)
    assert err.startswith(message)
    assert not (books.tmp / "june.xml").exists()
    assert books.batches() == []


def test_without_the_bic_the_file_is_still_valid(
    books: Books, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BOOKING_SEPA_DEBTOR_BIC")

    assert run(capsys, "commissions", "payout", "--month", "2026-06", "--sepa", "june.xml")[0] == 0

    assert read_sepa(books.tmp / "june.xml")["GrpHdr"]["NbOfTxs"] == "2"


def _run_or_exit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Like ``run``, for usage errors too (argparse exits)."""
    try:
        status = main(list(args))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err
