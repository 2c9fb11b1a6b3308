"""How much goes back when the venue cancels: the policy, all, nothing, or an amount staff choose.

CONTRACT 7.4: ``policy`` applies section 9.1 as if the customer cancelled now; an amount is at most
what was paid. Section 9.1's policy is a list of tiers ``(hours_before, refund_percent)``: cancelling
with at least ``hours_before`` hours left refunds ``refund_percent`` of what was paid, by the tier with
the largest ``hours_before`` that still holds, nothing when none holds. A resource without a policy
behaves as one tier: 100 % up to its ``cancellation_deadline_hours``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from booking_core.errors import ValidationFailed
from booking_core.money import CurrencyUnit


class RefundChoice(enum.StrEnum):
    """What the venue gives back of a payment when it cancels a booking."""

    POLICY = "policy"  #: what the cancellation policy gives a customer cancelling now
    FULL = "full"  #: all of it
    NONE = "none"  #: nothing: the payment and the commission are kept
    AMOUNT = "amount"  #: an amount staff name, at most what was paid


@dataclass(frozen=True, slots=True, kw_only=True)
class RefundTier:
    """Cancelling with at least ``hours_before`` hours left refunds ``refund_percent`` of what was paid."""

    hours_before: int
    refund_percent: Decimal


def default_policy(deadline_hours: int) -> tuple[RefundTier, ...]:
    """The policy of a resource without one: all of it back up to its cancellation deadline."""
    return (RefundTier(hours_before=deadline_hours, refund_percent=Decimal(100)),)


def policy_percent(tiers: Sequence[RefundTier], *, start: datetime, now: datetime) -> Decimal:
    """The percent the tier with the largest ``hours_before`` still holding at ``now`` refunds (0: none)."""
    holding = [t for t in tiers if start - now >= timedelta(hours=t.hours_before)]
    if not holding:
        return Decimal(0)
    return max(holding, key=lambda t: t.hours_before).refund_percent


def chosen_refund(
    choice: RefundChoice,
    *,
    amount: Decimal | None,
    paid: Decimal,
    unit: CurrencyUnit,
    start: datetime,
    now: datetime,
    policy: Sequence[RefundTier],
) -> Decimal:
    """What the customer gets back of ``paid`` (0 when nothing was paid), in the currency's decimals.

    Args:
        choice: the venue's choice.
        amount: the amount of ``RefundChoice.AMOUNT``; must be None with any other choice.
        paid: what the booking's kept payment was.
        unit: the payment's currency: an amount may not have more decimals than it has, and must be
            one the provider can pay back exactly.
        start: the booking's start, for the policy.
        now: the moment of the cancellation.
        policy: the resource's tiers (:func:`default_policy` when it has none).

    Raises:
        ValidationFailed: (field ``amount``) an amount missing, given with another choice, below
            zero, above ``paid``, or finer than the currency's minor unit.
    """
    if choice is not RefundChoice.AMOUNT:
        if amount is not None:
            raise ValidationFailed("An amount is given only with refund 'amount'.", field="amount")
        if choice is RefundChoice.FULL:
            return paid
        if choice is RefundChoice.NONE:
            return Decimal(0).quantize(unit.minor)
        percent = policy_percent(policy, start=start, now=now)
        return min(unit.round(paid * percent / 100), paid)
    if amount is None:
        raise ValidationFailed("Refund 'amount' needs an amount.", field="amount")
    return _valid_amount(amount, paid, unit)


def _valid_amount(amount: Decimal, paid: Decimal, unit: CurrencyUnit) -> Decimal:
    if not amount.is_finite() or amount < 0:
        raise ValidationFailed("The amount must be a number of at least 0.", field="amount")
    if amount > paid:
        raise ValidationFailed(f"The amount is at most what was paid ({paid} {unit.code}).", field="amount")
    if not unit.is_chargeable(amount):
        decimals = f"at most {unit.exponent} decimals" if unit.exponent else "no decimals"
        step = f", in steps of {unit.quantum}" if unit.step > 1 else ""
        raise ValidationFailed(f"An amount in {unit.code} has {decimals}{step}.", field="amount")
    return amount.quantize(unit.minor)
