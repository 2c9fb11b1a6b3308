"""In-memory implementations of every port: the whole flow runs and is tested without a database.

They are also what a service that embeds ``booking_core`` can start from, and are part of the
library's public API. The names say what a test relies on:

- ``InMemory*`` keep what they are given and answer from it, as the adapter of their port does
  (``InMemoryStore`` and the repositories it hands out, ``InMemoryOutbox``, ``InMemoryMailer``,
  ``InMemoryPaymentGateway``): they record, so a test can look at what happened.
- ``FixedClock``, ``SequentialIds``, ``PlainPasswords`` and ``FixedCurrencies`` keep nothing; each
  is a deterministic stand-in whose name is the one property a test relies on (time stands still,
  ids count up, a hash anyone can read, the currencies given).

``FakeMailer`` and ``SandboxPayments`` (and the repositories' ``Memory*`` names) are the old names
of ``InMemoryMailer`` and ``InMemoryPaymentGateway``: they still import, with a
DeprecationWarning, for one release.
"""

from booking_core.memory._renamed import old_name
from booking_core.memory.outbox import InMemoryMailer, InMemoryOutbox
from booking_core.memory.services import (
    FixedClock,
    FixedCurrencies,
    InMemoryPaymentGateway,
    PlainPasswords,
    SequentialIds,
)
from booking_core.memory.store import InMemoryStore, InMemoryUnitOfWork

__all__ = [
    "FixedClock",
    "FixedCurrencies",
    "InMemoryMailer",
    "InMemoryOutbox",
    "InMemoryPaymentGateway",
    "InMemoryStore",
    "InMemoryUnitOfWork",
    "PlainPasswords",
    "SequentialIds",
]

_RENAMED = {"FakeMailer": InMemoryMailer, "SandboxPayments": InMemoryPaymentGateway}


def __getattr__(name: str) -> type:
    return old_name(__name__, name, _RENAMED)
