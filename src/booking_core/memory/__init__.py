"""In-memory implementations of every port: the whole flow runs and is tested without a database.

They are also what a service that embeds ``booking_core`` can start from.
"""

from booking_core.memory.outbox import FakeMailer, InMemoryOutbox
from booking_core.memory.services import (
    FixedClock,
    FixedCurrencies,
    PlainPasswords,
    SandboxPayments,
    SequentialIds,
)
from booking_core.memory.store import InMemoryStore, InMemoryUnitOfWork

__all__ = [
    "FakeMailer",
    "FixedClock",
    "FixedCurrencies",
    "InMemoryOutbox",
    "InMemoryStore",
    "InMemoryUnitOfWork",
    "PlainPasswords",
    "SandboxPayments",
    "SequentialIds",
]
