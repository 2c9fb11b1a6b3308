"""The payout file of ``POST /operator/commissions/payout/`` and of the console's download: the HTTP answer
is the file.

The payout use case writes its file through :class:`~booking_core.ports.PayoutFiles`; over HTTP the
file is the completed batch's document, stored with the batch and sent as the answer, so writing it
puts nothing on the server's disk. The debtor account comes from ``BOOKING_SEPA_DEBTOR_*``; without
it the payout is a 400 naming the missing variable, raised before anything is prepared.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from litestar import MediaType, Request, Response

from adapters.payouts import SepaCreditTransfers, SepaDebtor
from booking_core.errors import BadRequest
from booking_core.payout import NO_IBAN, PayoutBatch, Transfer
from booking_core.usecases.commissions import PayoutOutcome
from entrypoints.config import ConfigError, SepaDebtorSettings

#: The application state's key of the ``BOOKING_SEPA_DEBTOR_*`` settings.
SEPA_DEBTOR_STATE = "sepa_debtor"


class AnsweredSepaFiles:
    """SEPA files (pain.001) that go out as the HTTP answer instead of to a path."""

    def __init__(self, debtor: SepaDebtorSettings) -> None:
        self._debtor = debtor

    def _sepa(self) -> SepaCreditTransfers:
        try:
            name, iban, bic = self._debtor.require()
        except ConfigError as error:
            raise BadRequest(str(error)) from None
        return SepaCreditTransfers(SepaDebtor(name=name, iban=iban, bic=bic))

    def render(self, batch_id: str, transfers: Sequence[Transfer], execution_date: date) -> str:
        return self._sepa().render(batch_id, transfers, execution_date)

    def refusal(self, transfer: Transfer) -> str | None:
        return self._sepa().refusal(transfer)

    def check_destination(self, destination: str, document: str | None = None) -> None:
        self._sepa()  # the debtor account is set, or nothing is prepared

    def write(self, document: str, destination: str, replacing: str | None = None) -> None:
        return None  # the completed batch's document is the answer


def payout_files(request: Request[Any, Any, Any]) -> AnsweredSepaFiles:
    """The payout files of this application's settings."""
    debtor: SepaDebtorSettings = request.app.state.get(SEPA_DEBTOR_STATE) or SepaDebtorSettings()
    return AnsweredSepaFiles(debtor)


def without_iban(outcome: PayoutOutcome) -> list[str]:
    """The clients whose open records this payout left open for want of an IBAN, by name."""
    return sorted({h.client_name for h in outcome.held_back if h.reason == NO_IBAN})


def payout_file(month: str, batch: PayoutBatch) -> Response[bytes]:
    """The completed batch's pain.001 file as a download (the operator API's answer and the console's)."""
    name = f"commissions-{month}-{batch.id}.xml"
    return Response(
        content=batch.document.encode("utf-8"),
        media_type=MediaType.XML,
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
