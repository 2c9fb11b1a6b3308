"""What refunds do to a booking's commission records (CONTRACT 9.2), as properties of the domain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from itertools import count

from hypothesis import given
from hypothesis import strategies as st

from booking_core.commission import Commission, CommissionStatus, commission_amount
from booking_core.commission_refunds import (
    commission_on_kept,
    counted_total,
    follow_refund,
    kept_amount,
)

NOW = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)

cents = st.integers(min_value=1, max_value=1_000_000).map(lambda n: Decimal(n).scaleb(-2))
percents = st.integers(min_value=0, max_value=10_000).map(lambda n: Decimal(n).scaleb(-2))


def earned(paid: Decimal, percent: Decimal) -> Commission:
    return Commission(
        id="c-0",
        booking_id="b-1",
        reference_code="REF00001",
        client_id=1,
        base_amount=paid,
        commission_percent=percent,
        amount=commission_amount(paid, percent),
        currency="EUR",
        month="2026-06",
        created_at=NOW,
    )


def applied(records: list[Commission], paid: Decimal, refunded: Decimal, ids: count[int]) -> list[Commission]:
    correction = follow_refund(
        records, paid=paid, refunded=refunded, new_id=lambda: f"c-{next(ids)}", now=NOW, month="2026-07"
    )
    changed = {record.id: record for record in correction.changed}
    result = [changed.get(record.id, record) for record in records]
    return result + ([correction.added] if correction.added else [])


def paid_out(records: Sequence[Commission]) -> list[Commission]:
    return [r.pay_out() if r.status is CommissionStatus.OPEN else r for r in records]


@st.composite
def histories(draw: st.DrawFn) -> tuple[Decimal, Decimal, list[tuple[Decimal, bool]]]:
    """A payment, a percent, and refunds in the order they happen (running totals), each perhaps
    followed by a payout."""
    paid = draw(cents)
    percent = draw(percents)
    totals = sorted(draw(st.lists(st.integers(min_value=0, max_value=int(paid * 100)), max_size=5)))
    payouts = draw(st.lists(st.booleans(), min_size=len(totals), max_size=len(totals)))
    return paid, percent, [(Decimal(t).scaleb(-2), p) for t, p in zip(totals, payouts, strict=True)]


@given(histories(), st.booleans())
def test_the_records_always_sum_to_the_commission_on_what_is_kept(
    history: tuple[Decimal, Decimal, list[tuple[Decimal, bool]]], paid_out_first: bool
) -> None:
    paid, percent, refunds = history
    ids = count(1)
    records = [earned(paid, percent)]
    if paid_out_first:
        records = paid_out(records)
    for refunded, payout in refunds:
        records = applied(records, paid, refunded, ids)
        owed = commission_on_kept(paid, refunded, percent)
        assert counted_total(records) == owed
        assert sum(1 for r in records if r.status is CommissionStatus.OPEN) <= 1
        if payout:
            records = paid_out(records)
        # what was paid out is never changed afterwards
        again = applied(records, paid, refunded, ids)
        assert again == records  # the same refund twice changes nothing


@given(cents, percents, st.data())
def test_a_paid_out_record_is_never_changed_and_a_negative_open_one_corrects_it(
    paid: Decimal, percent: Decimal, data: st.DataObject
) -> None:
    refunded = data.draw(
        st.integers(min_value=1, max_value=int(paid * 100)).map(lambda n: Decimal(n).scaleb(-2))
    )
    [first] = paid_out([earned(paid, percent)])

    correction = follow_refund(
        [first], paid=paid, refunded=refunded, new_id=lambda: "c-1", now=NOW, month="2026-07"
    )

    assert correction.changed == ()
    owed = commission_on_kept(paid, refunded, percent)
    if owed == first.amount:
        assert correction.added is None
        return
    assert correction.added is not None
    assert correction.added.status is CommissionStatus.OPEN
    assert correction.added.amount == owed - first.amount < 0
    assert (correction.added.month, correction.added.booking_id) == ("2026-07", first.booking_id)


def test_an_open_record_is_reduced_to_the_commission_on_what_is_kept() -> None:
    """Finding 10: 1.00 of 20.50 refunded at 10 percent leaves 1.95 of 2.05."""
    first = earned(Decimal("20.50"), Decimal("10.00"))

    correction = follow_refund(
        [first],
        paid=Decimal("20.50"),
        refunded=Decimal("1.00"),
        new_id=lambda: "c-1",
        now=NOW,
        month="2026-07",
    )

    assert correction.changed == (replace(first, base_amount=Decimal("19.50"), amount=Decimal("1.95")),)
    assert correction.added is None


def test_what_is_kept_is_never_below_nothing() -> None:
    assert kept_amount(Decimal("20.50"), Decimal("25.00")) == Decimal("0.00")
    assert kept_amount(Decimal("20.50"), Decimal("1.00")) == Decimal("19.50")


def test_nothing_kept_reverses_the_open_record() -> None:
    first = earned(Decimal("20.50"), Decimal("10.00"))

    correction = follow_refund(
        [first],
        paid=Decimal("20.50"),
        refunded=Decimal("20.50"),
        new_id=lambda: "c-1",
        now=NOW,
        month="2026-07",
    )

    assert correction.changed == (first.reverse(),)
