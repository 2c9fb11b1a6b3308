"""The platform operator over HTTP (CONTRACT 7.8): venue mappings, the commissions report and the
payout, admins only, on SQLite and PostgreSQL; a payout over HTTP racing one from the command line."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sepaxml
import xmlschema
from sqlalchemy import select, update

from adapters.payouts import SEPA_SCHEMA, SepaCreditTransfers, SepaDebtor
from adapters.sqla import SqlaUnitOfWork
from adapters.sqla.models import AuditRow, ClientRow, CommissionRow
from adapters.sqla.repositories.staff import SqlaAuditLog
from booking_core.accounts import ApprovalStatus
from booking_core.audit import AuditEntry
from booking_core.commission import Commission, CommissionStatus
from booking_core.errors import BadRequest, StorageUnavailable
from booking_core.usecases.commissions import PayoutOutcome, pay_out_commissions
from booking_core.usecases.operator import decide_venue_mapping
from entrypoints.config import SepaDebtorSettings
from tests.support.bookings import make_booking
from tests.support.http_fixtures import (
    ADMIN,
    ANNA,
    DESK,
    MANAGER,
    NOW,
    OPERATOR,
    PARTNER,
    Api,
    auth,
    start,
)

FORBIDDEN = {"detail": "You do not have permission to perform this action."}
DEBTOR = SepaDebtorSettings(name="Court Booking Operator GmbH", iban="DE75512108001245126199")
PARTNER_IBAN = "DE89370400440532013000"
XSD = Path(sepaxml.__file__).parent / "schemas" / f"{SEPA_SCHEMA}.xsd"
#: (client, amount, status): PartnerApp nets 10.00 + 2.50 - 1.50 = 11.00 (a correcting record, 9.2).
RECORDS = [
    ("PartnerApp", "10.00", CommissionStatus.OPEN),
    ("PartnerApp", "2.50", CommissionStatus.OPEN),
    ("PartnerApp", "-1.50", CommissionStatus.OPEN),
    ("PartnerApp", "4.00", CommissionStatus.PAID_OUT),
    ("OtherApp", "3.00", CommissionStatus.OPEN),
]


@pytest.fixture
def paying(database_url: str) -> Iterator[Api]:
    """The app with the debtor account set and the records above (PartnerApp has an IBAN)."""
    yield from _with_records(database_url)


def _with_records(url: str) -> Iterator[Api]:
    for api in start(url, sepa_debtor=DEBTOR):
        _fill(api)
        yield api


def _fill(api: Api) -> None:
    engine = api.services.engine
    with engine.begin() as connection:
        connection.execute(update(ClientRow).where(ClientRow.name == "PartnerApp").values(iban=PARTNER_IBAN))
        clients = dict(connection.execute(select(ClientRow.name, ClientRow.id)).tuples().all())
    with SqlaUnitOfWork.factory(engine)() as uow:
        anna = uow.users.get_by_email("anna@example.com")
        assert anna is not None
        for n, (client, amount, status) in enumerate(RECORDS):
            start_at = NOW + timedelta(days=2, hours=n)
            booking = make_booking(
                start_at,
                start_at + timedelta(hours=1),
                resource_id=api.resources["Court 1"],
                user_id=anna.id,
                client_id=clients[client],
            )
            uow.bookings.add(booking)
            uow.commissions.add(
                Commission(
                    id=f"c-{n}",
                    booking_id=booking.id,
                    reference_code=booking.reference_code,
                    client_id=clients[client],
                    base_amount=abs(Decimal(amount)) * 10,
                    commission_percent=Decimal("10.00"),
                    amount=Decimal(amount),
                    currency="EUR",
                    month="2026-06",
                    status=status,
                    created_at=NOW,
                )
            )
        uow.commit()


def _statuses(api: Api) -> dict[str, str]:
    with api.services.engine.connect() as connection:
        return dict(connection.execute(select(CommissionRow.id, CommissionRow.status)).tuples().all())


def _audit_actions(api: Api) -> list[str]:
    with api.services.engine.connect() as connection:
        return list(connection.scalars(select(AuditRow.action).order_by(AuditRow.at, AuditRow.id)))


def _sum(document: bytes | str) -> Decimal:
    decoded: dict[str, Any] = xmlschema.XMLSchema(XSD).to_dict(document)
    return Decimal(str(decoded["CstmrCdtTrfInitn"]["GrpHdr"]["CtrlSum"]))


# --------------------------------------------------------------------------- venue mappings


def test_an_admin_lists_approves_and_rejects_venue_mappings_with_audit(api: Api) -> None:
    venue = api.venues["center-court"]
    registered = api.client.post(
        "/api/v1/client/venues/register/",
        json={"external_id": "v1", "venue_id": venue},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201
    pending = api.client.get(f"{OPERATOR}/venue-mappings/?approval_status=pending", headers=auth(ADMIN))
    assert pending.status_code == 200
    [mapping] = pending.json()
    assert (mapping["venue_slug"], mapping["client_name"], mapping["approval_status"]) == (
        "center-court",
        "PartnerApp",
        "pending",
    )
    approved = api.client.post(f"{OPERATOR}/venue-mappings/{mapping['id']}/approve/", headers=auth(ADMIN))
    assert approved.status_code == 200
    assert approved.json()["approval_status"] == "approved"
    assert (
        api.client.get(f"{OPERATOR}/venue-mappings/?approval_status=pending", headers=auth(ADMIN)).json()
        == []
    )
    api.clock.advance(minutes=1)
    rejected = api.client.post(f"{OPERATOR}/venue-mappings/{mapping['id']}/reject/", headers=auth(ADMIN))
    assert rejected.json()["approval_status"] == "rejected"
    entries = api.client.get(f"{OPERATOR}/audit/?object_id={mapping['id']}", headers=auth(ADMIN)).json()
    assert [(e["action"], e["venue_id"], e["actor"]["email"]) for e in entries] == [
        ("venue_mapping.reject", venue, "admin@platform.example"),
        ("venue_mapping.approve", venue, "admin@platform.example"),
    ]
    assert entries[1]["details"]["new_status"] == "approved"
    api.clock.advance(minutes=1)
    decide_venue_mapping(api.services.deps, mapping["id"], ApprovalStatus.APPROVED)  # the command line
    [latest] = api.client.get(f"{OPERATOR}/audit/?limit=1", headers=auth(ADMIN)).json()
    assert (latest["action"], latest["actor"]) == ("venue_mapping.approve", None)
    bad = api.client.get(f"{OPERATOR}/venue-mappings/?approval_status=maybe", headers=auth(ADMIN))
    assert bad.status_code == 400
    assert "approval_status" in bad.json()["error"]
    missing = api.client.post(f"{OPERATOR}/venue-mappings/no-such-id/approve/", headers=auth(ADMIN))
    assert missing.status_code == 404
    for token in (MANAGER, DESK):
        refused = api.client.post(f"{OPERATOR}/venue-mappings/{mapping['id']}/approve/", headers=auth(token))
        assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
        assert api.client.get(f"{OPERATOR}/venue-mappings/", headers=auth(token)).status_code == 403
    for token in (ANNA, PARTNER):
        assert api.client.get(f"{OPERATOR}/venue-mappings/", headers=auth(token)).status_code == 403


# --------------------------------------------------------------------------- commissions


def test_the_commissions_report_has_the_commands_rows(paying: Api) -> None:
    answer = paying.client.get(f"{OPERATOR}/commissions/report/?month=2026-06", headers=auth(ADMIN))
    assert answer.status_code == 200
    assert answer.json() == [
        {
            "client": "OtherApp",
            "currency": "EUR",
            "records": 1,
            "open": "3.00",
            "paid_out": "0.00",
            "reversed": "0.00",
        },
        {
            "client": "PartnerApp",
            "currency": "EUR",
            "records": 4,
            "open": "11.00",
            "paid_out": "4.00",
            "reversed": "0.00",
        },
    ]
    bad = paying.client.get(f"{OPERATOR}/commissions/report/?month=2026-13", headers=auth(ADMIN))
    assert bad.status_code == 400
    assert bad.json()["error"].startswith("month must be YYYY-MM")
    refused = paying.client.get(f"{OPERATOR}/commissions/report/?month=2026-06", headers=auth(MANAGER))
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)


def test_a_payout_answers_the_file_nets_corrections_and_pays_once(paying: Api) -> None:
    refused = paying.client.post(f"{OPERATOR}/commissions/payout/?month=2026-06", headers=auth(MANAGER))
    assert (refused.status_code, refused.json()) == (403, FORBIDDEN)
    answer = paying.client.post(f"{OPERATOR}/commissions/payout/?month=2026-06", headers=auth(ADMIN))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/xml")
    assert _sum(answer.text) == Decimal("11.00")  # 10.00 + 2.50 - 1.50: the correction nets
    statuses = _statuses(paying)
    assert [statuses[f"c-{n}"] for n in range(5)] == ["paid_out"] * 4 + ["open"]
    assert _audit_actions(paying) == ["commissions.payout"]
    entry = paying.client.get(f"{OPERATOR}/audit/?action=commissions.payout", headers=auth(ADMIN)).json()[0]
    assert entry["details"]["total"] == "11.00"
    assert entry["details"]["transfers"][0]["client"] == "PartnerApp"
    again = paying.client.post(f"{OPERATOR}/commissions/payout/?month=2026-06", headers=auth(ADMIN))
    assert again.status_code == 200
    assert again.json() == {"detail": "nothing to pay out", "without_iban": ["OtherApp"]}
    assert _audit_actions(paying) == ["commissions.payout"]


def test_a_payout_without_the_debtor_account_names_the_setting_and_changes_nothing(api: Api) -> None:
    answer = api.client.post(f"{OPERATOR}/commissions/payout/?month=2026-06", headers=auth(ADMIN))
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("BOOKING_SEPA_DEBTOR_NAME: ")
    bad = api.client.post(f"{OPERATOR}/commissions/payout/?month=June", headers=auth(ADMIN))
    assert bad.status_code == 400
    assert "month" in bad.json()["error"]


@pytest.mark.postgres
def test_a_payout_over_http_racing_the_command_line_pays_each_record_once(
    clone_postgres: str, tmp_path: Path
) -> None:
    for api in _with_records(clone_postgres):
        for attempt in range(3):
            if attempt:  # the records open again, for another race
                with api.services.engine.begin() as connection:
                    connection.execute(
                        update(CommissionRow)
                        .where(CommissionRow.id.in_(["c-0", "c-1", "c-2"]))
                        .values(status="open", payout_batch_id=None)
                    )
            _race(api, tmp_path / f"cli-{attempt}.xml")


def _race(api: Api, cli_file: Path) -> None:
    files = SepaCreditTransfers(SepaDebtor(name="Operator", iban="DE75512108001245126199"))
    start = threading.Barrier(2)
    results: dict[str, Any] = {}

    def command_line() -> None:
        start.wait()
        try:
            results["cli"] = pay_out_commissions(api.services.deps, "2026-06", str(cli_file), files)
        except BadRequest as error:  # another run prepared its batch first: run again later
            results["cli"] = error

    thread = threading.Thread(target=command_line)
    thread.start()
    start.wait()
    answer = api.client.post(f"{OPERATOR}/commissions/payout/?month=2026-06", headers=auth(ADMIN))
    thread.join(timeout=60)

    paid = Decimal(0)
    if answer.headers["content-type"].startswith("application/xml"):
        paid += _sum(answer.text)
    else:
        assert answer.status_code in {200, 400}, answer.text
    cli = results["cli"]
    if isinstance(cli, PayoutOutcome) and cli.batch is not None:
        paid += _sum(cli_file.read_text(encoding="utf-8"))
    assert paid == Decimal("11.00")  # the open total, exactly once
    statuses = _statuses(api)
    assert [statuses[f"c-{n}"] for n in range(5)] == ["paid_out"] * 4 + ["open"]


def test_a_payout_whose_audit_entry_fails_pays_nothing(paying: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: SqlaAuditLog, entry: AuditEntry) -> None:
        raise StorageUnavailable("the audit log is unavailable")

    monkeypatch.setattr(SqlaAuditLog, "add", refuse)
    answer = paying.client.post(f"{OPERATOR}/commissions/payout/?month=2026-06", headers=auth(ADMIN))
    assert answer.status_code == 503
    assert _statuses(paying)["c-0"] == "open"
    monkeypatch.undo()
    answer = paying.client.post(f"{OPERATOR}/commissions/payout/?month=2026-06", headers=auth(ADMIN))
    assert _sum(answer.text) == Decimal("11.00")  # the prepared batch is finished by the next run
