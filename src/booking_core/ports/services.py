"""Ports for what the domain asks of the world outside storage."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

from booking_core.outbox import EMAIL_KIND, MailTemplate
from booking_core.state_machine import Event


class Clock(Protocol):
    """Where the domain reads "now"; always timezone-aware."""

    def now(self) -> datetime:
        """The current instant."""


class IdGenerator(Protocol):
    """New identifiers, tokens and booking reference codes."""

    def new_id(self) -> str:
        """A new UUID string."""

    def reference_code(self) -> str:
        """A new 8-character Crockford base32 code."""

    def new_token(self) -> str:
        """A new unguessable API token."""


class PasswordHasher(Protocol):
    """One-way password hashing (Argon2 or scrypt)."""

    def hash(self, password: str) -> str:
        """A salted hash of ``password``."""

    def verify(self, password_hash: str, password: str) -> bool:
        """True when ``password`` matches ``password_hash``."""

    def verify_dummy(self, password: str) -> None:
        """Do the work of :meth:`verify` against a hash no password matches.

        For a login without a hash to check (no such account), so that the answer takes as long
        as for a wrong password and its timing does not tell whether the account exists.
        """


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderIntent:
    """A payment intent as the provider reports it.

    ``status`` is the provider's own word for its state, opaque to the domain; ``cancelled`` says, in
    no provider's terms, that the provider gave the intent up: it can no longer be paid.
    """

    id: str
    client_secret: str
    amount_minor: int
    currency: str
    status: str
    cancelled: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class PaymentEvent:
    """A provider's event reduced to what the domain needs, in no provider's terms.

    ``kind`` is what it is in the state machine (one of ``PROVIDER_EVENTS``); ``label`` the provider's
    own name for it, opaque to the domain (metrics and logs show it). Amounts are ISO 4217 minor units:
    ``amount_minor`` the payment's, ``refunded_minor`` how much of it was given back in all.
    """

    id: str
    kind: Event
    payment_intent_id: str
    booking_id: str | None
    amount_minor: int | None
    currency: str | None
    label: str = ""
    failure_message: str = ""
    refunded_minor: int | None = None


class PaymentGateway(Protocol):
    """The payment provider."""

    provider_name: str
    publishable_key: str

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
        """Open a payment intent; raises PaymentProviderError when the provider fails.

        ``reference_code`` (the booking's) is shown beside the payment in the provider's records.
        """

    def retrieve_intent(self, intent_id: str) -> ProviderIntent:
        """The current state of an intent."""

    def refund(
        self,
        intent_id: str,
        *,
        idempotency_key: str,
        amount: Decimal | None = None,
        currency: str | None = None,
    ) -> str:
        """Refund a succeeded intent in full, or ``amount`` of it in part (in ``currency``, the
        payment's, whose minor unit the provider is sent it in); returns the refund id. The same key
        refunds once, however often it is sent."""

    def read_delivery(self, payload: bytes, headers: Mapping[str, str], now: datetime) -> PaymentEvent | None:
        """The event one webhook delivery carries, once its signature is verified.

        None for an event the service does not act on. Raises BadRequest ``invalid signature`` for a
        delivery not signed by the provider within its tolerance (``now`` is the service's clock; a
        provider's own library may use the real time), ``invalid payload`` for one it cannot read.
        """


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxMessage:
    """Something to send after the transaction commits (for now: email, see ``booking_core.outbox``)."""

    id: str
    kind: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    created_at: datetime

    @classmethod
    def email(
        cls,
        template: MailTemplate,
        booking_id: str,
        *,
        id: str,
        now: datetime,
        details: Mapping[str, str | int] | None = None,
    ) -> OutboxMessage:
        """One email about a booking to one recipient; the worker resolves address, language and
        content when it sends. Write it in the transaction of the change it reports.

        ``details`` are what the email says that the booking as it is at sending time no longer tells
        (the refund decided, the time before a move: :data:`~booking_core.outbox.DETAIL_FIELDS`).
        """
        payload: dict[str, Any] = {"template": template.value, "booking_id": booking_id}
        payload.update(details or {})
        return cls(id=id, kind=EMAIL_KIND, payload=payload, created_at=now)

    @classmethod
    def account_email(
        cls, template: MailTemplate, user_id: str, code: str, *, id: str, now: datetime
    ) -> OutboxMessage:
        """One email with a one-time ``code`` to a user (``ACCOUNT_TEMPLATES``).

        The message has to carry the code itself until it is sent: only its hash is kept anywhere
        else. Write it in the transaction that stores the code's hash.
        """
        return cls(
            id=id,
            kind=EMAIL_KIND,
            payload={"template": template.value, "user_id": user_id, "code": code},
            created_at=now,
        )


class Outbox(Protocol):
    """Messages written in the same transaction as the state change they report."""

    def add(self, message: OutboxMessage) -> None:
        """Queue a message for the worker."""
