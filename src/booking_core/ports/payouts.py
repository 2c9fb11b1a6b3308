"""The bank file of a commission payout."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol

from booking_core.payout import Transfer


class PayoutFiles(Protocol):
    """Bank files that pay payout batches (a SEPA credit transfer, for instance)."""

    def render(self, batch_id: str, transfers: Sequence[Transfer], execution_date: date) -> str:
        """The file paying ``transfers``, valid for the bank; ``batch_id`` is its message id."""

    def refusal(self, transfer: Transfer) -> str | None:
        """Why ``transfer`` cannot go into a file (its name or IBAN, say), or None when it can."""

    def check_destination(self, destination: str, document: str | None = None) -> None:
        """Raise :class:`~booking_core.errors.BadRequest` when no file can be written at ``destination``.

        An existing file is never replaced, unless it holds exactly ``document`` (the file of an
        interrupted payout, written before the interruption).
        """

    def write(self, document: str, destination: str, replacing: str | None = None) -> None:
        """Put ``document`` at ``destination`` completely and durably.

        An existing file is replaced only when it holds ``document`` or ``replacing`` (the file an
        interrupted payout wrote before its records changed). On failure nothing new is left at
        ``destination`` and :class:`~booking_core.errors.BadRequest` is raised.
        """
