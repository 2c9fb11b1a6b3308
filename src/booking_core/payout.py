"""Paying a month's commissions out to the clients by bank transfer.

A payout batch is one bank file. It is *prepared* (the records it pays are held for it, and its file
is rendered and stored with it) before the file is written, and *completed* (its records become
``paid_out``) after. A record held by a batch is never taken by another one, so money is paid at
most once; a batch left prepared by an interrupted run is finished by the next run, which pays
exactly the batch's records still open then (a batch with nothing left to pay is *dropped*).
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from booking_core.accounts import Client
from booking_core.commission import CENT, Commission, CommissionStatus
from booking_core.errors import InvalidTransition
from booking_core.iban import parse_iban

#: SEPA credit transfers move euros only.
SEPA_CURRENCY = "EUR"
#: Why the records of a client without an IBAN stay open.
NO_IBAN = "no IBAN on record (set `iban` for the client in the catalog)"


@dataclass(frozen=True, slots=True, kw_only=True)
class Transfer:
    """One credit transfer: a client's open records of a month in one currency, summed."""

    client_id: int
    client_name: str
    iban: str
    currency: str
    amount: Decimal
    record_ids: tuple[str, ...]
    month: str

    @property
    def remittance(self) -> str:
        """The text the client's bank statement shows."""
        return f"Commissions {self.month}: {len(self.record_ids)} booking(s)"


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldBack:
    """Open records of a client that this payout leaves open, and why."""

    client_name: str
    currency: str
    amount: Decimal
    records: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutPlan:
    """What a payout of the given records would transfer, and what it leaves open."""

    transfers: tuple[Transfer, ...]
    held_back: tuple[HeldBack, ...]

    @property
    def total(self) -> Decimal:
        """The sum of every transfer."""
        return sum((t.amount for t in self.transfers), Decimal("0.00"))

    @property
    def record_ids(self) -> frozenset[str]:
        """The records the transfers pay."""
        return frozenset(record_id for t in self.transfers for record_id in t.record_ids)

    def hold_back(self, transfer: Transfer, reason: str) -> PayoutPlan:
        """This plan without ``transfer``, whose records stay open for ``reason``."""
        held = HeldBack(
            client_name=transfer.client_name,
            currency=transfer.currency,
            amount=transfer.amount,
            records=len(transfer.record_ids),
            reason=reason,
        )
        kept = tuple(t for t in self.transfers if t is not transfer)
        return PayoutPlan(transfers=kept, held_back=(*self.held_back, held))


def plan_payout(
    month: str, records: Iterable[Commission], clients: Mapping[int, Client], *, batch_id: str | None = None
) -> PayoutPlan:
    """One transfer per client with an IBAN and a positive open total in euros, for ``month``.

    The total sums every open record, negative (correcting) ones included. Open records of another
    currency, of a client without an IBAN, or summing to nothing or less stay open and are listed in
    ``held_back``. Records not open, or held by a batch other than ``batch_id``, are left out.
    """
    groups: dict[tuple[int, str], list[Commission]] = {}
    for record in records:
        if (
            record.month == month
            and record.status is CommissionStatus.OPEN
            and record.payout_batch_id in {None, batch_id}
        ):
            groups.setdefault((record.client_id, record.currency), []).append(record)
    transfers: list[Transfer] = []
    held_back: list[HeldBack] = []
    for (client_id, currency), group in sorted(groups.items(), key=lambda item: _order(item[0], clients)):
        client = clients.get(client_id)
        name = client.name if client else f"client {client_id}"
        amount = sum((r.amount for r in group), Decimal("0.00")).quantize(CENT)
        reason = _reason_to_hold(client, currency, amount)
        if reason is not None or client is None or client.iban is None:
            held = HeldBack(
                client_name=name, currency=currency, amount=amount, records=len(group), reason=reason or ""
            )
            held_back.append(held)
            continue
        transfers.append(
            Transfer(
                client_id=client_id,
                client_name=name,
                iban=client.iban,
                currency=currency,
                amount=amount,
                record_ids=tuple(sorted(r.id for r in group)),
                month=month,
            )
        )
    return PayoutPlan(transfers=tuple(transfers), held_back=tuple(held_back))


def _order(key: tuple[int, str], clients: Mapping[int, Client]) -> tuple[str, int, str]:
    client = clients.get(key[0])
    return (client.name if client else "", key[0], key[1])


def _reason_to_hold(client: Client | None, currency: str, amount: Decimal) -> str | None:
    if client is None:
        return "unknown client"
    if currency != SEPA_CURRENCY:
        return f"SEPA transfers are in {SEPA_CURRENCY} only; pay {currency} by other means"
    if any(unicodedata.category(char) == "Cc" for char in client.name):
        return "its name holds a control character, which no bank file takes (correct the client's name)"
    if client.iban is None:
        return NO_IBAN
    try:
        parse_iban(client.iban)
    except ValueError as error:
        return f"the IBAN on record {error} (correct `iban` for the client in the catalog)"
    if amount <= 0:
        return "nothing to transfer"
    return None


class PayoutStatus(enum.StrEnum):
    """Where a payout batch stands."""

    PREPARED = "prepared"  # records held, file stored, not yet written where the operator asked
    COMPLETED = "completed"  # file written, records paid out
    DROPPED = "dropped"  # resumed with none of its records left to pay: no file written


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutBatch:
    """One bank file paying a month's commissions; ``document`` is the file itself."""

    id: str
    month: str
    status: PayoutStatus = PayoutStatus.PREPARED
    transfers: int
    total: Decimal
    document: str
    prepared_at: datetime
    completed_at: datetime | None = None
    file_path: str = ""

    def revise(self, document: str, plan: PayoutPlan) -> PayoutBatch:
        """Its records changed (refunded) before its file was written: it pays ``plan`` instead."""
        if self.status is not PayoutStatus.PREPARED:
            raise InvalidTransition(f"Payout batch {self.id} is {self.status} already.")
        return replace(self, document=document, transfers=len(plan.transfers), total=plan.total)

    def drop(self, at: datetime) -> PayoutBatch:
        """Nothing it held is left to pay: it ends without a file."""
        if self.status is not PayoutStatus.PREPARED:
            raise InvalidTransition(f"Payout batch {self.id} is {self.status} already.")
        return replace(self, status=PayoutStatus.DROPPED, completed_at=at, transfers=0, total=Decimal("0.00"))

    def pays(self, plan: PayoutPlan) -> bool:
        """Whether its stored file pays what ``plan`` pays (as far as its totals tell)."""
        return (self.transfers, self.total) == (len(plan.transfers), plan.total) and not plan.held_back

    def complete(self, at: datetime, file_path: str) -> PayoutBatch:
        """The file is written completely at ``file_path``: the batch's records are paid."""
        if self.status is not PayoutStatus.PREPARED:
            raise InvalidTransition(f"Payout batch {self.id} is {self.status} already.")
        return replace(self, status=PayoutStatus.COMPLETED, completed_at=at, file_path=file_path)
