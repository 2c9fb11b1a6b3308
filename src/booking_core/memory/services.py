"""Deterministic stand-ins (clock, ids, passwords, currencies) and a payment gateway that records."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from booking_core.errors import BadRequest, PaymentProviderError
from booking_core.memory._renamed import old_name
from booking_core.money import CurrencyUnit, UnknownCurrency
from booking_core.ports import PaymentEvent, ProviderIntent

#: How a provider reads one webhook delivery (:meth:`~booking_core.ports.PaymentGateway.read_delivery`).
DeliveryReader = Callable[[bytes, Mapping[str, str], datetime], PaymentEvent | None]

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


@dataclass
class FixedClock:
    """A clock that stands still until moved."""

    current: datetime = field(default_factory=lambda: datetime(2026, 1, 5, 8, 0, tzinfo=UTC))

    def now(self) -> datetime:
        """The set instant."""
        return self.current

    def advance(self, delta: timedelta) -> None:
        """Move time forward."""
        self.current += delta


class SequentialIds:
    """Predictable ids for tests: UUID-shaped strings, reference codes and tokens from a counter."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def new_id(self) -> str:
        """A UUID-shaped id."""
        return f"00000000-0000-4000-8000-{next(self._counter):012d}"

    def reference_code(self) -> str:
        """An 8-character Crockford base32 code."""
        n, code = next(self._counter), ""
        for _ in range(8):
            n, digit = divmod(n, 32)
            code = _CROCKFORD[digit] + code
        return code

    def new_token(self) -> str:
        """A token string."""
        return f"token-{next(self._counter)}"


class PlainPasswords:
    """A fast, insecure hasher for tests only (salted SHA-256)."""

    def hash(self, password: str) -> str:
        """The digest with a fixed salt."""
        return "sha256$" + hashlib.sha256(b"salt" + password.encode()).hexdigest()

    def verify(self, password_hash: str, password: str) -> bool:
        """Compare digests."""
        return self.hash(password) == password_hash

    def verify_dummy(self, password: str) -> None:
        """Compare with a digest no password has."""
        self.verify("sha256$", password)


@dataclass
class InMemoryPaymentGateway:
    """An offline payment provider that remembers what it was asked, idempotently like a real one.

    ``fail`` makes every call fail; ``fail_refunds`` only refunds (a provider outage after payment).
    ``deliveries`` reads webhook deliveries (a real provider's reader, for tests over HTTP); without
    one, every delivery is refused as unsigned.
    """

    provider_name: str = "sandbox"
    publishable_key: str = "pk_test_sandbox"
    fail: bool = False
    fail_refunds: bool = False
    intents: dict[str, ProviderIntent] = field(default_factory=dict)
    #: Intents refunded, in order, once per idempotency key (as the provider does).
    refunds: list[str] = field(default_factory=list)
    #: The amount of each refund in ``refunds`` (None: all of it).
    refund_amounts: list[Decimal | None] = field(default_factory=list)
    refund_calls: int = 0
    _by_key: dict[str, str] = field(default_factory=dict)
    _refund_ids: dict[str, str] = field(default_factory=dict)
    deliveries: DeliveryReader | None = None

    def create_intent(
        self,
        *,
        amount_minor: int,
        currency: str,
        booking_id: str,
        idempotency_key: str,
        destination_account: str | None,
        reference_code: str = "",
    ) -> ProviderIntent:
        """An intent in ``requires_payment_method``; the same key returns the same intent."""
        if self.fail:
            raise PaymentProviderError("The payment provider is unavailable.")
        if idempotency_key in self._by_key:
            return self.intents[self._by_key[idempotency_key]]
        intent_id = f"pi_sandbox_{len(self.intents) + 1:06d}"
        intent = ProviderIntent(
            id=intent_id,
            client_secret=f"{intent_id}_secret_{booking_id[-6:]}",
            amount_minor=amount_minor,
            currency=currency,
            status="requires_payment_method",
        )
        self.intents[intent_id] = intent
        self._by_key[idempotency_key] = intent_id
        return intent

    def retrieve_intent(self, intent_id: str) -> ProviderIntent:
        """A known intent."""
        if self.fail:
            raise PaymentProviderError("The payment provider is unavailable.")
        if intent_id not in self.intents:
            raise PaymentProviderError(f"No such payment intent: {intent_id}")
        return self.intents[intent_id]

    def cancel_intent(self, intent_id: str) -> None:
        """What the provider does to an intent left unpaid (for tests)."""
        self.intents[intent_id] = replace(self.intents[intent_id], status="canceled", cancelled=True)

    def refund(
        self,
        intent_id: str,
        *,
        idempotency_key: str,
        amount: Decimal | None = None,
        currency: str | None = None,
    ) -> str:
        """Refund in full (or ``amount`` of it), once per idempotency key."""
        self.refund_calls += 1
        if self.fail or self.fail_refunds:
            raise PaymentProviderError("The payment provider is unavailable.")
        if amount is not None and amount <= 0:
            raise PaymentProviderError("The payment provider refuses a refund that is not positive.")
        if idempotency_key not in self._refund_ids:
            self.refunds.append(intent_id)
            self.refund_amounts.append(amount)
            self._refund_ids[idempotency_key] = f"re_sandbox_{len(self.refunds):06d}"
        return self._refund_ids[idempotency_key]

    def read_delivery(self, payload: bytes, headers: Mapping[str, str], now: datetime) -> PaymentEvent | None:
        """The event of one delivery, as ``deliveries`` reads it."""
        if self.deliveries is None:
            raise BadRequest("invalid signature")
        return self.deliveries(payload, headers, now)


class FixedCurrencies:
    """A :class:`~booking_core.ports.Currencies` holding the units it is given (EUR alone by default).

    The service reads ISO 4217 through an adapter; an embedding service or a test names the few
    currencies it uses.
    """

    def __init__(self, *units: CurrencyUnit) -> None:
        given = units or (CurrencyUnit(code="EUR", exponent=2),)
        self._units = {unit.code: unit for unit in given}

    def unit(self, code: str) -> CurrencyUnit:
        """The unit given for ``code``; raises UnknownCurrency for any other."""
        found = self._units.get(code.upper())
        if found is None:
            raise UnknownCurrency(f"{code}: not one of this store's currencies")
        return found


#: The name before ``InMemory*`` (deprecated, for one release).
_RENAMED: dict[str, type] = {"SandboxPayments": InMemoryPaymentGateway}


def __getattr__(name: str) -> type:
    return old_name(__name__, name, _RENAMED)
