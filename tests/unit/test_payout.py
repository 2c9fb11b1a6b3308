"""Commission reports and payouts in the domain and the use cases, on the in-memory ports."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking_core.accounts import Client
from booking_core.commission import Commission, CommissionStatus, monthly_totals, parse_month
from booking_core.commission_refunds import follow_refund
from booking_core.errors import BadRequest
from booking_core.memory import (
    FixedClock,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.payout import PayoutStatus, Transfer, plan_payout
from booking_core.usecases.commissions import commission_report, pay_out_commissions
from booking_core.usecases.deps import Deps
from entrypoints.bootstrap import charging_currencies

NOW = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
IBAN = "DE89370400440532013000"
PARTNER = Client(id=1, name="PartnerApp", iban=IBAN, created_at=NOW)
NO_IBAN = Client(id=2, name="NoIbanApp", created_at=NOW)
OTHER = Client(id=3, name="OtherApp", iban="DE02120300000000202051", created_at=NOW)
CLIENTS = {c.id: c for c in (PARTNER, NO_IBAN, OTHER)}


def record(n: int, client: Client, amount: str, **fields: object) -> Commission:
    values: dict[str, object] = {
        "id": f"c-{n:04d}",
        "booking_id": f"b-{n:04d}",
        "reference_code": f"REF{n:05d}",
        "client_id": client.id,
        "base_amount": Decimal(amount) * 10,
        "commission_percent": Decimal("10.00"),
        "amount": Decimal(amount),
        "currency": "EUR",
        "month": "2026-06",
        "created_at": NOW,
    }
    return Commission(**(values | fields))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- month

FULL_WIDTH_2026_06 = "\uff12\uff10\uff12\uff16-\uff10\uff16"  # digits to the regex engine's \d


@given(st.integers(2000, 2100), st.integers(1, 12))
def test_every_month_from_2000_to_2100_is_accepted(year: int, month: int) -> None:
    assert parse_month(f"{year:04d}-{month:02d}") == f"{year:04d}-{month:02d}"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "2026-13",
        "2026-00",
        "1999-12",
        "2101-01",
        "9999-12",
        "2026-6",
        "26-06",
        "2026-06 ",
        "2026/06",
        FULL_WIDTH_2026_06,
    ],
)
def test_anything_else_is_not_a_month(text: str) -> None:
    with pytest.raises(BadRequest, match="month must be YYYY-MM"):
        parse_month(text)


# --------------------------------------------------------------------------- report


def test_monthly_totals_sum_each_status_per_client_and_currency() -> None:
    records = [
        record(1, PARTNER, "1.10"),
        record(2, PARTNER, "2.20", status=CommissionStatus.PAID_OUT),
        record(3, PARTNER, "3.30", status=CommissionStatus.REVERSED),
        record(4, PARTNER, "4.40"),
        record(5, PARTNER, "5.00", currency="CHF"),
        record(6, NO_IBAN, "0.05"),
    ]

    rows = monthly_totals(records, {c.id: c.name for c in CLIENTS.values()})

    assert [(r.client, r.currency, r.records, r.open, r.paid_out, r.reversed) for r in rows] == [
        ("NoIbanApp", "EUR", 1, Decimal("0.05"), Decimal("0.00"), Decimal("0.00")),
        ("PartnerApp", "CHF", 1, Decimal("5.00"), Decimal("0.00"), Decimal("0.00")),
        ("PartnerApp", "EUR", 4, Decimal("5.50"), Decimal("2.20"), Decimal("3.30")),
    ]


# --------------------------------------------------------------------------- plan

amounts = st.decimals(min_value=0, max_value=1000, places=2)
statuses = st.sampled_from(list(CommissionStatus))


@given(
    st.lists(
        st.tuples(st.sampled_from(list(CLIENTS)), amounts, st.sampled_from(["EUR", "CHF"]), statuses),
        max_size=30,
    )
)
def test_a_plan_pays_each_payable_record_once_and_names_the_rest(
    rows: list[tuple[int, Decimal, str, CommissionStatus]],
) -> None:
    records = [
        record(n, CLIENTS[client_id], str(amount), currency=currency, status=status)
        for n, (client_id, amount, currency, status) in enumerate(rows)
    ]
    open_records = [r for r in records if r.status is CommissionStatus.OPEN]

    plan = plan_payout("2026-06", records, CLIENTS)

    paid = [record_id for t in plan.transfers for record_id in t.record_ids]
    assert len(paid) == len(set(paid))
    by_id = {r.id: r for r in records}
    for transfer in plan.transfers:
        group = [by_id[i] for i in transfer.record_ids]
        assert transfer.currency == "EUR"
        assert transfer.amount == sum(r.amount for r in group) > 0
        assert {r.client_id for r in group} == {transfer.client_id}
        assert all(r.status is CommissionStatus.OPEN for r in group)
        assert CLIENTS[transfer.client_id].iban == transfer.iban
        assert "2026-06" in transfer.remittance
    assert len(paid) + sum(h.records for h in plan.held_back) == len(open_records)
    for held in plan.held_back:
        assert held.currency != "EUR" or held.client_name == "NoIbanApp" or held.amount == 0


def test_a_client_whose_iban_on_record_is_broken_is_held_back() -> None:
    broken = Client(id=1, name="PartnerApp", iban="DE00370400440532013000", created_at=NOW)

    plan = plan_payout("2026-06", [record(1, broken, "5.00")], {1: broken})

    assert plan.transfers == ()
    assert plan.held_back[0].reason.startswith("the IBAN on record is not a valid IBAN (check digits")


def test_records_of_other_months_or_held_by_a_batch_are_not_planned() -> None:
    records = [record(1, PARTNER, "1.00", month="2026-05"), record(2, PARTNER, "2.00", payout_batch_id="b")]

    assert plan_payout("2026-06", records, CLIENTS).transfers == ()


# --------------------------------------------------------------------------- use cases


class FakeFiles:
    """PayoutFiles that renders JSON and keeps what it writes; ``crash`` fails after writing. A name
    containing "\\" cannot go into its files."""

    def __init__(self) -> None:
        self.written: dict[str, str] = {}
        self.crash: BaseException | None = None

    def refusal(self, transfer: Transfer) -> str | None:
        return "a backslash in the name" if "\\" in transfer.client_name else None

    def render(self, batch_id: str, transfers: Sequence[Transfer], execution_date: date) -> str:
        paid = {t.client_name: [str(t.amount), *t.record_ids] for t in transfers}
        return json.dumps({"batch": batch_id, "date": execution_date.isoformat(), "paid": paid})

    def check_destination(self, destination: str, document: str | None = None) -> None:
        if destination.startswith("/unwritable/"):
            raise BadRequest(f"cannot write {destination}")
        if destination in self.written and self.written[destination] != document:
            raise BadRequest(f"cannot write {destination}: the file exists already")

    def write(self, document: str, destination: str, replacing: str | None = None) -> None:
        if replacing is None or self.written.get(destination) != replacing:
            self.check_destination(destination, document)
        self.written[destination] = document
        if self.crash is not None:
            raise self.crash


class Crash(BaseException):
    """The process dies: nothing after it runs (not an Exception, so nothing catches it)."""


def interrupted_payout(deps: Deps) -> FakeFiles:
    """A payout of June stopped after its file was written, before the database knew."""
    files = FakeFiles()
    files.crash = Crash()
    with pytest.raises(Crash):
        pay_out_commissions(deps, "2026-06", "/out/june.xml", files)
    files.crash = None
    return files


@pytest.fixture
def store() -> InMemoryStore:
    store = InMemoryStore()
    for client in CLIENTS.values():
        store.add_client(client)
    records = [
        record(1, PARTNER, "10.00"),
        record(2, PARTNER, "2.50"),
        record(3, PARTNER, "7.00", status=CommissionStatus.REVERSED),
        record(4, NO_IBAN, "3.00"),
        record(5, OTHER, "4.00"),
        record(6, OTHER, "9.99", currency="CHF"),
        record(7, OTHER, "1.00", month="2026-07"),
    ]
    with store.uow() as uow:
        for r in records:
            uow.commissions.add(r)
        uow.commit()
    return store


@pytest.fixture
def deps(store: InMemoryStore) -> Deps:
    return Deps(
        uow=store.uow,  # type: ignore[arg-type]
        clock=FixedClock(NOW),
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=InMemoryPaymentGateway(),
        currencies=charging_currencies(),
    )


def statuses_of(store: InMemoryStore) -> dict[str, tuple[str, str | None]]:
    rows = store.tables.commissions.values()
    return {r.id: (r.status.value, r.payout_batch_id) for r in sorted(rows, key=lambda r: r.id)}


def test_a_payout_pays_each_client_once_and_marks_exactly_those_records(
    deps: Deps, store: InMemoryStore
) -> None:
    files = FakeFiles()
    said: list[str] = []

    outcome = pay_out_commissions(deps, "2026-06", "/out/june.xml", files, progress=said.append)

    assert outcome.batch is not None
    assert outcome.batch.status is PayoutStatus.COMPLETED
    assert (outcome.batch.transfers, outcome.batch.total) == (2, Decimal("16.50"))
    assert json.loads(files.written["/out/june.xml"])["paid"] == {
        "PartnerApp": ["12.50", "c-0001", "c-0002"],
        "OtherApp": ["4.00", "c-0005"],
    }
    assert [(h.client_name, h.currency, h.amount) for h in outcome.held_back] == [
        ("NoIbanApp", "EUR", Decimal("3.00")),
        ("OtherApp", "CHF", Decimal("9.99")),
    ]
    batch = outcome.batch.id
    assert statuses_of(store) == {
        "c-0001": ("paid_out", batch),
        "c-0002": ("paid_out", batch),
        "c-0003": ("reversed", None),
        "c-0004": ("open", None),
        "c-0005": ("paid_out", batch),
        "c-0006": ("open", None),
        "c-0007": ("open", None),
    }
    assert any("rendering 2 transfer(s)" in line for line in said)


def test_a_second_run_pays_nothing_and_writes_nothing(deps: Deps, store: InMemoryStore) -> None:
    files = FakeFiles()
    pay_out_commissions(deps, "2026-06", "/out/june.xml", files)
    before = statuses_of(store)

    again = pay_out_commissions(deps, "2026-06", "/out/june-again.xml", files)

    assert again.batch is None
    assert list(files.written) == ["/out/june.xml"]
    assert statuses_of(store) == before


def test_nothing_open_writes_no_file(deps: Deps) -> None:
    files = FakeFiles()

    outcome = pay_out_commissions(deps, "2026-08", "/out/august.xml", files)

    assert (outcome.batch, outcome.transfers, files.written) == (None, (), {})


def test_records_stay_open_until_the_file_is_written(deps: Deps, store: InMemoryStore) -> None:
    files = FakeFiles()
    files.crash = BadRequest("cannot write /out/june.xml: No space left on device")

    with pytest.raises(BadRequest, match=r"No space left on device; payout batch .* stays prepared"):
        pay_out_commissions(deps, "2026-06", "/out/june.xml", files)

    assert {status for status, _ in statuses_of(store).values()} == {"open", "reversed"}
    [batch] = store.tables.payout_batches.values()
    assert batch.status is PayoutStatus.PREPARED


def test_a_crash_after_the_file_leaves_a_prepared_batch_that_the_next_run_finishes(
    deps: Deps, store: InMemoryStore
) -> None:
    files = interrupted_payout(deps)
    first_file = files.written["/out/june.xml"]
    assert {status for status, _ in statuses_of(store).values()} == {"open", "reversed"}

    said: list[str] = []
    outcome = pay_out_commissions(deps, "2026-06", "/out/june-2.xml", files, progress=said.append)

    assert outcome.resumed
    assert outcome.batch is not None
    assert files.written["/out/june-2.xml"] == first_file  # the same transfer, not a second one
    assert any("was not completed" in line for line in said)
    assert any("/out/june.xml" in line and "only one of them" in line for line in said)
    assert [s for s, _ in statuses_of(store).values()].count("paid_out") == 3
    assert pay_out_commissions(deps, "2026-06", "/out/june-3.xml", files).batch is None


def test_records_opened_after_an_interrupted_batch_are_paid_by_a_later_run(
    deps: Deps, store: InMemoryStore
) -> None:
    files = interrupted_payout(deps)
    with store.uow() as uow:  # a late payment of June, while the batch waits
        uow.commissions.add(record(8, PARTNER, "6.00"))
        uow.commit()

    resumed = pay_out_commissions(deps, "2026-06", "/out/june.xml", files)
    later = pay_out_commissions(deps, "2026-06", "/out/june-late.xml", files)

    assert (resumed.still_payable, resumed.batch and resumed.batch.total) == (1, Decimal("16.50"))
    assert later.batch is not None
    assert json.loads(files.written["/out/june-late.xml"])["paid"] == {"PartnerApp": ["6.00", "c-0008"]}
    assert statuses_of(store)["c-0008"] == ("paid_out", later.batch.id)


def test_the_same_path_may_be_written_again_with_the_same_file(deps: Deps) -> None:
    files = interrupted_payout(deps)

    outcome = pay_out_commissions(deps, "2026-06", "/out/june.xml", files)

    assert outcome.batch is not None
    assert outcome.batch.file_path == "/out/june.xml"


def _refund_meanwhile(store: InMemoryStore, booking_id: str, refunded: str | None = None) -> None:
    """The booking's payment is refunded (``refunded`` of it; all when None) while the batch waits."""
    with store.uow() as uow:
        records = uow.commissions.of_booking(booking_id)
        paid = records[0].base_amount
        correction = follow_refund(
            records,
            paid=paid,
            refunded=paid if refunded is None else Decimal(refunded),
            new_id=lambda: "c-corr",
            now=NOW,
            month="2026-06",
        )
        for changed in correction.changed:
            uow.commissions.save(changed)
        uow.commit()


def test_a_resumed_payout_leaves_out_a_record_refunded_meanwhile_and_rewrites_its_file(
    deps: Deps, store: InMemoryStore
) -> None:
    """Finding 1: the resumed run sent the stored file, paying a refunded booking's commission."""
    files = interrupted_payout(deps)
    assert json.loads(files.written["/out/june.xml"])["paid"]["OtherApp"] == ["4.00", "c-0005"]
    _refund_meanwhile(store, "b-0005")

    said: list[str] = []
    outcome = pay_out_commissions(deps, "2026-06", "/out/june.xml", files, progress=said.append)

    assert json.loads(files.written["/out/june.xml"])["paid"] == {"PartnerApp": ["12.50", "c-0001", "c-0002"]}
    assert [r.id for r in outcome.reversed_meanwhile] == ["c-0005"]
    assert outcome.rewritten
    assert outcome.batch is not None
    assert (outcome.batch.total, outcome.batch.transfers) == (Decimal("12.50"), 1)
    assert statuses_of(store)["c-0005"][0] == "reversed"
    assert [s for s, _ in statuses_of(store).values()].count("paid_out") == 2
    assert any("made again" in line for line in said)


def test_a_resumed_payout_pays_a_record_reduced_meanwhile_at_its_new_amount(
    deps: Deps, store: InMemoryStore
) -> None:
    files = interrupted_payout(deps)
    _refund_meanwhile(store, "b-0005", "10.00")  # 30.00 of 40.00 kept: 10% of it

    outcome = pay_out_commissions(deps, "2026-06", "/out/june-2.xml", files)

    assert json.loads(files.written["/out/june-2.xml"])["paid"]["OtherApp"] == ["3.00", "c-0005"]
    assert outcome.batch is not None
    assert outcome.batch.total == Decimal("15.50")
    assert store.tables.commissions["c-0005"].status is CommissionStatus.PAID_OUT


def test_a_resumed_batch_with_nothing_left_to_pay_is_dropped_and_its_records_stay_as_they_are(
    deps: Deps, store: InMemoryStore
) -> None:
    files = interrupted_payout(deps)
    for booking_id in ("b-0001", "b-0002", "b-0005"):
        _refund_meanwhile(store, booking_id)

    outcome = pay_out_commissions(deps, "2026-06", "/out/june-2.xml", files)

    assert "/out/june-2.xml" not in files.written
    assert (outcome.batch, outcome.dropped is not None) == (None, True)
    [batch] = store.tables.payout_batches.values()
    assert batch.status is PayoutStatus.DROPPED
    assert "paid_out" not in {s for s, _ in statuses_of(store).values()}


def test_a_negative_correcting_record_is_netted_by_the_next_payout(deps: Deps, store: InMemoryStore) -> None:
    """CONTRACT 9.2: a payout sums the client's open records, negative ones included."""
    pay_out_commissions(deps, "2026-06", "/out/june.xml", FakeFiles())
    with store.uow() as uow:  # b-0001 (10.00 paid out) refunded in full; a July record earns 3.00
        correction = follow_refund(
            uow.commissions.of_booking("b-0001"),
            paid=Decimal("100.00"),
            refunded=Decimal("100.00"),
            new_id=lambda: "c-corr",
            now=NOW,
            month="2026-07",
        )
        assert correction.added is not None
        uow.commissions.add(correction.added)
        uow.commissions.add(record(9, PARTNER, "13.00", month="2026-07"))
        uow.commit()
    files = FakeFiles()

    july = pay_out_commissions(deps, "2026-07", "/out/july.xml", files)

    assert json.loads(files.written["/out/july.xml"])["paid"]["PartnerApp"] == ["3.00", "c-0009", "c-corr"]
    assert july.batch is not None
    assert store.tables.commissions["c-corr"].status is CommissionStatus.PAID_OUT


def test_a_client_whose_open_records_sum_to_less_than_nothing_is_paid_nothing(
    deps: Deps, store: InMemoryStore
) -> None:
    with store.uow() as uow:
        uow.commissions.add(record(9, PARTNER, "-20.00", month="2026-07"))
        uow.commit()

    outcome = pay_out_commissions(deps, "2026-07", "/out/july.xml", FakeFiles())

    assert [
        (h.client_name, h.amount, h.reason) for h in outcome.held_back if h.client_name == "PartnerApp"
    ] == [("PartnerApp", Decimal("-20.00"), "nothing to transfer")]
    assert store.tables.commissions["c-0009"].status is CommissionStatus.OPEN


def test_a_client_the_file_cannot_carry_is_held_back_and_the_others_are_paid(
    deps: Deps, store: InMemoryStore
) -> None:
    store.add_client(replace(OTHER, name="Other\\App"))
    files = FakeFiles()

    outcome = pay_out_commissions(deps, "2026-06", "/out/june.xml", files)

    assert json.loads(files.written["/out/june.xml"])["paid"] == {"PartnerApp": ["12.50", "c-0001", "c-0002"]}
    assert [(h.client_name, h.reason) for h in outcome.held_back][-1] == (
        "Other\\App",
        "a backslash in the name",
    )
    assert statuses_of(store)["c-0005"] == ("open", None)


def test_an_unwritable_destination_is_refused_before_anything_changes(
    deps: Deps, store: InMemoryStore
) -> None:
    before = statuses_of(store)

    with pytest.raises(BadRequest, match=r"cannot write /unwritable/x\.xml"):
        pay_out_commissions(deps, "2026-06", "/unwritable/x.xml", FakeFiles())

    assert statuses_of(store) == before
    assert store.tables.payout_batches == {}


def test_the_report_counts_records_held_by_an_unfinished_batch_as_open(deps: Deps) -> None:
    interrupted_payout(deps)

    report = commission_report(deps, "2026-06")

    assert report.unfinished is not None
    partner = next(r for r in report.rows if r.client == "PartnerApp")
    assert (partner.open, partner.reversed, partner.records) == (Decimal("12.50"), Decimal("7.00"), 3)
