"""What every use case is given: the ports, built once by the composition root."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from booking_core.ports import Clock, IdGenerator, PasswordHasher, PaymentGateway, UnitOfWork


@dataclass(frozen=True, slots=True, kw_only=True)
class Deps:
    """The ports a use case may use. ``uow`` opens a fresh unit of work per call."""

    uow: Callable[[], UnitOfWork]
    clock: Clock
    ids: IdGenerator
    passwords: PasswordHasher
    payments: PaymentGateway
    hold_minutes: int = 15
