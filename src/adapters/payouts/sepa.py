"""SEPA credit-transfer files (ISO 20022 pain.001.001.03) made with ``sepaxml``.

pain.001.001.03 is the version every bank in the SEPA area accepts. sepaxml checks each file
against the schema it ships before the file is stored, so a file that reaches the bank is valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from sepaxml import SepaTransfer
from sepaxml.validation import ValidationError

from adapters.payouts.files import write_atomically
from booking_core.errors import BadRequest
from booking_core.payout import SEPA_CURRENCY, Transfer

SEPA_SCHEMA = "pain.001.001.03"


@dataclass(frozen=True, slots=True, kw_only=True)
class SepaDebtor:
    """The operator's own account that payouts are paid from."""

    name: str
    iban: str
    bic: str | None = None


class _Transfer(SepaTransfer):
    """sepaxml's transfer with our message id: the batch's, so the bank's reports name the batch."""

    def __init__(self, config: dict[str, Any], message_id: str) -> None:
        self._message_id = message_id
        super().__init__(config, schema=SEPA_SCHEMA, clean=True)

    def _create_header(self) -> None:
        self.msg_id = self._message_id
        super()._create_header()


class SepaCreditTransfers:
    """The :class:`~booking_core.ports.PayoutFiles` of SEPA: one pain.001 file per payout batch."""

    def __init__(self, debtor: SepaDebtor) -> None:
        self._debtor = debtor

    def render(self, batch_id: str, transfers: Sequence[Transfer], execution_date: date) -> str:
        # message ids are at most 35 characters: the batch's UUID without its dashes
        message_id = batch_id.replace("-", "")
        config: dict[str, Any] = {
            "name": self._debtor.name,
            "IBAN": self._debtor.iban,
            "batch": True,
            "currency": SEPA_CURRENCY,
        }
        if self._debtor.bic:
            config["BIC"] = self._debtor.bic
        try:
            sepa = _Transfer(config, message_id)
            for transfer in transfers:
                if transfer.currency != SEPA_CURRENCY:
                    raise ValueError(f"a SEPA transfer cannot pay {transfer.currency}")
                sepa.add_payment(
                    {
                        "name": transfer.client_name,
                        "IBAN": transfer.iban,
                        "amount": _cents(transfer.amount),
                        "execution_date": execution_date,
                        "description": transfer.remittance,
                        "endtoend_id": f"{message_id[:16]}-{transfer.client_id}",
                    }
                )
            document: bytes = sepa.export(validate=True)
        except ValidationError as error:
            raise BadRequest(
                f"the SEPA file would not be valid ({SEPA_SCHEMA}): {_first_line(error)}"
            ) from error
        except Exception as error:
            # sepaxml writes what it is given and only its schema check parses the XML: a control
            # character surfaces as a parse error of xmlschema, a bad field as a bare Exception
            raise BadRequest(f"the SEPA file cannot be made ({SEPA_SCHEMA}): {_first_line(error)}") from error
        return document.decode("utf-8")

    def refusal(self, transfer: Transfer) -> str | None:
        # a file of this transfer alone: what the bank's schema refuses in it is the client's record
        try:
            self.render("0" * 32, [transfer], date.today())
        except BadRequest as error:
            return f"{error.message}; correct the client's name or `iban` in the catalog"
        return None

    def check_destination(self, destination: str, document: str | None = None) -> None:
        path = Path(destination)
        if path.is_dir():
            raise BadRequest(f"cannot write {destination}: it is a directory")
        if not path.parent.is_dir():
            raise BadRequest(f"cannot write {destination}: no such directory {path.parent}")
        if path.exists() and (document is None or _read(path) != document):
            raise BadRequest(
                f"cannot write {destination}: the file exists already (a payout never replaces a file); "
                "choose a new --sepa path"
            )
        probe = path.parent / f".{path.name}.probe"
        try:
            probe.touch()
            probe.unlink()
        except OSError as error:
            raise BadRequest(f"cannot write {destination}: {error.strerror}") from None

    def write(self, document: str, destination: str, replacing: str | None = None) -> None:
        path = Path(destination)
        if replacing is None or not path.exists() or _read(path) != replacing:
            self.check_destination(destination, document)
        try:
            write_atomically(Path(destination), document.encode("utf-8"))
        except OSError as error:
            raise BadRequest(f"cannot write {destination}: {error.strerror or error}") from None


def _first_line(error: BaseException) -> str:
    lines = str(error.__cause__ or error).splitlines()
    return lines[0] if lines else type(error).__name__


def _cents(amount: Decimal) -> int:
    return int(amount.scaleb(2).to_integral_value())


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
