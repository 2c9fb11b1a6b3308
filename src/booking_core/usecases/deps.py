"""What every use case is given: the ports, built once by the composition root."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from booking_core.ports import Clock, IdGenerator, PasswordHasher, PaymentGateway, UnitOfWork
from booking_core.viewcache import VersionedCache


@dataclass(frozen=True, slots=True, kw_only=True)
class Deps:
    """The ports a use case may use. ``uow`` opens a fresh unit of work per call.

    ``reads`` opens one for use cases that only read: the storage may then skip the transaction
    (each statement sees what is committed), which costs fewer round trips. None means ``uow``.
    ``views`` keeps computed results (availability) per process, checked against the data version.
    """

    uow: Callable[[], UnitOfWork]
    clock: Clock
    ids: IdGenerator
    passwords: PasswordHasher
    payments: PaymentGateway
    hold_minutes: int = 15
    reads: Callable[[], UnitOfWork] | None = None
    views: VersionedCache = field(default_factory=VersionedCache)

    def read(self) -> UnitOfWork:
        """A unit of work for reading only (never commit it)."""
        return (self.reads or self.uow)()
