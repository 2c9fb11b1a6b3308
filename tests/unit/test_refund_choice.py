"""What goes back when the venue cancels: within what was paid, in the currency's own decimals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking_core.errors import ValidationFailed
from booking_core.money import CurrencyUnit
from booking_core.refund_choice import RefundChoice, RefundTier, chosen_refund, default_policy, policy_percent

START = datetime(2026, 6, 3, 10, 0, tzinfo=UTC)
UNITS = [
    CurrencyUnit(code="EUR", exponent=2),
    CurrencyUnit(code="JPY", exponent=0),
    CurrencyUnit(code="KWD", exponent=3, step=10),
]


def refund(
    choice: RefundChoice,
    paid: str,
    amount: str | None = None,
    *,
    unit: CurrencyUnit = UNITS[0],
    hours_left: float = 48,
    deadline: int = 24,
) -> Decimal:
    return chosen_refund(
        choice,
        amount=Decimal(amount) if amount is not None else None,
        paid=Decimal(paid),
        unit=unit,
        start=START,
        now=START - timedelta(hours=hours_left),
        policy=default_policy(deadline),
    )


def attempt(
    choice: RefundChoice, *, amount: Decimal | None, paid: Decimal, unit: CurrencyUnit, now: datetime
) -> Decimal | ValidationFailed:
    """The refund chosen, or the error refusing it."""
    try:
        return chosen_refund(
            choice, amount=amount, paid=paid, unit=unit, start=START, now=now, policy=default_policy(24)
        )
    except ValidationFailed as refused:
        return refused


@st.composite
def payments(draw: st.DrawFn) -> tuple[CurrencyUnit, Decimal]:
    unit = draw(st.sampled_from(UNITS))
    steps = draw(st.integers(min_value=0, max_value=10**7))
    return unit, unit.from_minor(steps * unit.step)


@given(
    payments(),
    st.sampled_from(list(RefundChoice)),
    st.integers(min_value=0, max_value=10**8),
    st.floats(-5, 100),
)
def test_every_choice_gives_back_between_nothing_and_what_was_paid(
    paid: tuple[CurrencyUnit, Decimal], choice: RefundChoice, minor: int, hours_left: float
) -> None:
    unit, amount_paid = paid
    amount = unit.from_minor(minor) if choice is RefundChoice.AMOUNT else None
    now = START - timedelta(hours=hours_left)
    back = attempt(choice, amount=amount, paid=amount_paid, unit=unit, now=now)
    if isinstance(back, ValidationFailed):
        assert back.field == "amount"
        assert amount is not None
        assert amount > amount_paid or not unit.is_chargeable(amount)
        return
    assert Decimal(0) <= back <= amount_paid
    assert unit.is_chargeable(back)
    assert back.as_tuple().exponent == -unit.exponent or back == amount_paid
    if amount is not None:
        assert back == amount


@given(
    payments(), st.decimals(allow_nan=False, allow_infinity=False, places=4, min_value=-100, max_value=10**6)
)
def test_an_amount_is_refused_naming_the_field_unless_it_fits(
    paid: tuple[CurrencyUnit, Decimal], amount: Decimal
) -> None:
    unit, amount_paid = paid
    fits = Decimal(0) <= amount <= amount_paid and unit.is_chargeable(amount)
    back = attempt(RefundChoice.AMOUNT, amount=amount, paid=amount_paid, unit=unit, now=START)
    if isinstance(back, ValidationFailed):
        assert back.field == "amount"
        assert not fits
    else:
        assert fits
        assert back == amount


def test_the_messages_say_what_is_wrong() -> None:
    with pytest.raises(ValidationFailed, match=r"at most what was paid \(20.00 EUR\)"):
        refund(RefundChoice.AMOUNT, "20.00", "20.01")
    with pytest.raises(ValidationFailed, match="at most 2 decimals"):
        refund(RefundChoice.AMOUNT, "20.00", "1.005")
    with pytest.raises(ValidationFailed, match="no decimals"):
        refund(RefundChoice.AMOUNT, "2000", "1.5", unit=UNITS[1])
    with pytest.raises(ValidationFailed, match=r"in steps of 0\.010"):
        refund(RefundChoice.AMOUNT, "20.000", "1.005", unit=UNITS[2])
    with pytest.raises(ValidationFailed, match="at least 0"):
        refund(RefundChoice.AMOUNT, "20.00", "-1")
    with pytest.raises(ValidationFailed, match="needs an amount"):
        refund(RefundChoice.AMOUNT, "20.00")
    with pytest.raises(ValidationFailed, match="only with refund 'amount'"):
        refund(RefundChoice.FULL, "20.00", "5.00")


def test_full_none_and_an_amount() -> None:
    assert refund(RefundChoice.FULL, "20.00") == Decimal("20.00")
    assert refund(RefundChoice.NONE, "20.00") == Decimal("0.00")
    assert refund(RefundChoice.AMOUNT, "20.00", "7.5") == Decimal("7.50")
    assert refund(RefundChoice.AMOUNT, "20.00", "0") == Decimal("0.00")
    assert refund(RefundChoice.FULL, "0.00") == Decimal("0.00")  # nothing paid, nothing back


def test_the_policy_is_as_if_the_customer_cancelled_now() -> None:
    assert refund(RefundChoice.POLICY, "20.00", hours_left=24) == Decimal("20.00")
    assert refund(RefundChoice.POLICY, "20.00", hours_left=23.9) == Decimal("0.00")
    assert refund(RefundChoice.POLICY, "20.00", hours_left=-1, deadline=0) == Decimal("0.00")  # started
    tiers = (
        RefundTier(hours_before=48, refund_percent=Decimal(100)),
        RefundTier(hours_before=24, refund_percent=Decimal("33.33")),
    )
    now = START - timedelta(hours=30)
    assert policy_percent(tiers, start=START, now=now) == Decimal("33.33")
    back = chosen_refund(
        RefundChoice.POLICY,
        amount=None,
        paid=Decimal("20.05"),
        unit=UNITS[0],
        start=START,
        now=now,
        policy=tiers,
    )
    assert back == Decimal("6.68")  # 6.682665 rounded half-up to cents
