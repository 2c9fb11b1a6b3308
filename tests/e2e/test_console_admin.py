"""The console's pages for admins (CONTRACT 8) over HTTP: venue mapping approvals, the commissions of a
month with the payout file, and staff, each acting through the use cases of the operator API (7.8) and
agreeing with what the API reports afterwards; the permissions of 7.1 (a desk is refused every admin
page, a manager manages the front desk of their venue), and CSRF on every form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from adapters.sqla.models import CommissionRow
from entrypoints.config import SepaDebtorSettings
from entrypoints.console.i18n import Formats
from tests.support.console_fixtures import (  # noqa: F401 - fixtures used by name
    ADMIN_EMAIL,
    COMMISSION_MONTH,
    DESK_EMAIL,
    MANAGER_EMAIL,
    console_sqlite_template,
    console_sqlite_url,
    csrf_of,
    sign_in,
    store_commissions,
)
from tests.support.http_fixtures import ADMIN, MANAGER, OPERATOR, PARTNER, Api, auth, start

DEBTOR = SepaDebtorSettings(name="Court Booking Operator GmbH", iban="DE75512108001245126199")
MAPPINGS = "/console/admin/mappings"
COMMISSIONS = "/console/admin/commissions"
PAYOUT = "/console/admin/commissions/payout"
STAFF = "/console/admin/staff"
ADMIN_PAGES = (MAPPINGS, f"{COMMISSIONS}?month={COMMISSION_MONTH}", STAFF)


@pytest.fixture
def url(request: pytest.FixtureRequest) -> str:
    """A fresh SQLite database with the console's catalog."""
    found: str = request.getfixturevalue("console_sqlite_url")
    return found


@pytest.fixture
def console(url: str) -> Iterator[Api]:
    """The app on that database (no debtor account: no payout)."""
    yield from start(url)


@pytest.fixture
def paying(url: str) -> Iterator[Api]:
    """The app with the debtor account set, on that database with commissions of the month."""
    store_commissions(url)
    yield from start(url, sepa_debtor=DEBTOR)


class _Rows(HTMLParser):
    """The text of each cell of each body row of a page's tables."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tbody":
            self._body = True
        elif self._body and tag == "tr":
            self.rows.append([])
        elif self._body and tag in {"td", "th"}:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._body = False
        elif tag in {"td", "th"} and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _rows(page: str) -> list[list[str]]:
    parser = _Rows()
    parser.feed(page)
    return parser.rows


def _register_mapping(api: Api, external_id: str = "partner-cc") -> dict[str, Any]:
    registered = api.client.post(
        "/api/v1/client/venues/register/",
        json={"external_id": external_id, "venue_id": api.venues["center-court"]},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201, registered.text
    (mapping,) = [
        m
        for m in api.client.get(f"{OPERATOR}/venue-mappings/", headers=auth(ADMIN)).json()
        if m["external_id"] == external_id
    ]
    return dict(mapping)


def _api_mapping(api: Api, mapping_id: str) -> dict[str, Any]:
    found = api.client.get(f"{OPERATOR}/venue-mappings/", headers=auth(ADMIN)).json()
    (mapping,) = [m for m in found if m["id"] == mapping_id]
    return dict(mapping)


def _statuses(api: Api) -> dict[str, str]:
    with api.services.engine.connect() as connection:
        return dict(connection.execute(select(CommissionRow.id, CommissionRow.status)).tuples().all())


def _api_staff(api: Api) -> set[tuple[str, str, int | None]]:
    answer = api.client.get(f"{OPERATOR}/staff/", headers=auth(ADMIN))
    assert answer.status_code == 200
    return {(m["email"], m["role"], m["venue_id"]) for m in answer.json()}


# --------------------------------------------------------------------------- venue mappings


def test_an_admin_approves_a_mapping_and_the_api_reports_it_approved(console: Api) -> None:
    mapping = _register_mapping(console)
    sign_in(console.client, ADMIN_EMAIL)

    pending = console.client.get(MAPPINGS, params={"approval_status": "pending"})
    assert pending.status_code == 200
    assert [row[:3] for row in _rows(pending.text)] == [
        ["PartnerApp", "partner-cc", "Center Court Club (Berlin)"]
    ]
    assert f'action="/console/admin/mappings/{mapping["id"]}/approve"' in pending.text

    approved = console.client.post(
        f"{MAPPINGS}/{mapping['id']}/approve",
        data={"_csrf_token": csrf_of(pending.text), "approval_status": "pending"},
        follow_redirects=False,
    )
    assert approved.status_code == 303
    assert approved.headers["location"] == f"{MAPPINGS}?approval_status=pending&done=approved"
    back = console.client.get(approved.headers["location"]).text
    assert "The mapping is approved." in back
    assert "No venue mapping matches." in back  # none pending any more
    assert _api_mapping(console, mapping["id"])["approval_status"] == "approved"
    entries = console.client.get(f"{OPERATOR}/audit/?object_id={mapping['id']}", headers=auth(ADMIN)).json()
    assert [(e["action"], e["actor"]["email"]) for e in entries] == [("venue_mapping.approve", ADMIN_EMAIL)]

    listed = console.client.get(MAPPINGS).text
    assert f'action="/console/admin/mappings/{mapping["id"]}/approve"' not in listed  # approved already
    rejected = console.client.post(
        f"{MAPPINGS}/{mapping['id']}/reject", data={"_csrf_token": csrf_of(listed)}, follow_redirects=False
    )
    assert rejected.headers["location"] == f"{MAPPINGS}?done=rejected"
    assert _api_mapping(console, mapping["id"])["approval_status"] == "rejected"


def test_an_unknown_approval_status_is_explained_and_an_unknown_mapping_is_not_found(console: Api) -> None:
    _register_mapping(console)
    sign_in(console.client, ADMIN_EMAIL)

    bad = console.client.get(MAPPINGS, params={"approval_status": "maybe"})
    assert bad.status_code == 400
    assert "approval_status must be one of" in bad.text
    assert len(_rows(bad.text)) == 1  # the list without the filter
    token = csrf_of(bad.text)
    missing = console.client.post(f"{MAPPINGS}/no-such-id/approve", data={"_csrf_token": token})
    assert missing.status_code == 404
    unknown = console.client.post(f"{MAPPINGS}/no-such-id/accept", data={"_csrf_token": token})
    assert unknown.status_code == 404


# --------------------------------------------------------------------------- commissions


def test_the_commissions_page_shows_the_rows_of_the_api(paying: Api) -> None:
    sign_in(paying.client, ADMIN_EMAIL)
    page = paying.client.get(COMMISSIONS, params={"month": COMMISSION_MONTH})
    report = paying.client.get(
        f"{OPERATOR}/commissions/report/", params={"month": COMMISSION_MONTH}, headers=auth(ADMIN)
    ).json()

    assert page.status_code == 200
    assert "Commissions of June 2026" in page.text
    money = Formats("en").money
    assert _rows(page.text) == [
        [
            r["client"],
            r["currency"],
            str(r["records"]),
            money(Decimal(r["open"]), r["currency"]),
            money(Decimal(r["paid_out"]), r["currency"]),
            money(Decimal(r["reversed"]), r["currency"]),
        ]
        for r in report
    ]
    assert [r[0] for r in _rows(page.text)] == ["OtherApp", "PartnerApp"]
    assert "€12.50" in page.text  # PartnerApp's open total
    this_month = paying.client.get(COMMISSIONS)  # the test clock's month, June 2026
    assert 'value="2026-06"' in this_month.text

    path = f"{COMMISSIONS}?month={COMMISSION_MONTH}"
    paying.client.post(
        "/console/language", data={"language": "de", "next": path, "_csrf_token": csrf_of(page.text)}
    )
    german = paying.client.get(path).text
    assert "Provisionen Juni 2026" in german
    assert "12,50\xa0€" in german
    assert "Auszahlungsdatei herunterladen" in german


def test_the_payout_download_is_the_file_the_api_answers(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The same records paid out twice, once by the console and once by the API, on two copies of one
    database: the same file but for the ids made afresh for each payment and the moment it was made."""
    template: Path = request.getfixturevalue("console_sqlite_template")
    files: dict[str, str] = {}
    for name in ("console", "api"):
        url = f"sqlite:///{tmp_path / f'{name}.sqlite3'}"
        (tmp_path / f"{name}.sqlite3").write_bytes(template.read_bytes())
        store_commissions(url)
        for api in start(url, sepa_debtor=DEBTOR):
            if name == "console":
                sign_in(api.client, ADMIN_EMAIL)
                token = csrf_of(api.client.get(COMMISSIONS, params={"month": COMMISSION_MONTH}).text)
                answer = api.client.post(PAYOUT, data={"_csrf_token": token, "month": COMMISSION_MONTH})
            else:
                answer = api.client.post(
                    f"{OPERATOR}/commissions/payout/", params={"month": COMMISSION_MONTH}, headers=auth(ADMIN)
                )
            assert answer.status_code == 200, answer.text
            assert answer.headers["content-type"].startswith("application/xml")
            disposition = answer.headers["content-disposition"]
            found = re.fullmatch(
                rf'attachment; filename="commissions-{COMMISSION_MONTH}-([0-9a-f-]+)\.xml"', disposition
            )
            assert found is not None, disposition
            files[name] = _without_batch(answer.text, found.group(1))
            statuses = _statuses(api)
            assert [statuses[f"console-c-{n}"] for n in range(4)] == ["paid_out"] * 3 + ["open"]
    assert files["console"] == files["api"]
    assert "<CtrlSum>12.50</CtrlSum>" in files["console"]


def _without_batch(document: str, batch_id: str) -> str:
    """The file with the batch's id, the payment's own id (sepaxml draws one) and its moment blanked out."""
    document = document.replace(batch_id.replace("-", ""), "BATCH").replace(
        batch_id.replace("-", "")[:16], "BATCH"
    )
    document = re.sub(r"<PmtInfId>[^<]*</PmtInfId>", "<PmtInfId/>", document)
    return re.sub(r"<CreDtTm>[^<]*</CreDtTm>", "<CreDtTm/>", document)


def test_with_nothing_to_pay_the_page_says_so_and_names_the_clients_without_an_iban(paying: Api) -> None:
    sign_in(paying.client, ADMIN_EMAIL)
    token = csrf_of(paying.client.get(COMMISSIONS, params={"month": COMMISSION_MONTH}).text)
    first = paying.client.post(PAYOUT, data={"_csrf_token": token, "month": COMMISSION_MONTH})
    assert first.headers["content-type"].startswith("application/xml")
    before = _statuses(paying)

    again = paying.client.post(PAYOUT, data={"_csrf_token": token, "month": COMMISSION_MONTH})

    assert again.status_code == 200
    assert again.headers["content-type"].startswith("text/html")
    assert "Nothing to pay out" in again.text
    assert re.search(r"no IBAN is on record for them:</p>\s*<ul>\s*<li>OtherApp</li>\s*</ul>", again.text)
    assert _statuses(paying) == before
    api = paying.client.post(
        f"{OPERATOR}/commissions/payout/", params={"month": COMMISSION_MONTH}, headers=auth(ADMIN)
    )
    assert api.json() == {"detail": "nothing to pay out", "without_iban": ["OtherApp"]}


def test_a_refused_payout_shows_the_reason_and_pays_nothing(console: Api, url: str) -> None:
    store_commissions(url)  # no debtor account in this app's settings
    sign_in(console.client, ADMIN_EMAIL)
    token = csrf_of(console.client.get(COMMISSIONS, params={"month": COMMISSION_MONTH}).text)
    before = _statuses(console)

    refused = console.client.post(PAYOUT, data={"_csrf_token": token, "month": COMMISSION_MONTH})
    assert refused.status_code == 409
    assert "Nothing was paid out." in refused.text
    assert "BOOKING_SEPA_DEBTOR_NAME" in refused.text
    assert len(_rows(refused.text)) == 2  # the month's rows are still shown
    bad = console.client.post(PAYOUT, data={"_csrf_token": token, "month": "June"})
    assert bad.status_code == 400
    assert "month must be YYYY-MM" in bad.text
    assert console.client.get(COMMISSIONS, params={"month": "2026-13"}).status_code == 400
    assert _statuses(console) == before


# --------------------------------------------------------------------------- staff


def test_an_admin_adds_and_removes_a_member_of_staff_as_the_api_sees_it(console: Api) -> None:
    venue = console.venues["center-court"]
    sign_in(console.client, ADMIN_EMAIL)
    page = console.client.get(STAFF)
    assert page.status_code == 200
    listed = {(row[1], row[2], row[3]) for row in _rows(page.text)}
    assert ("desk@center-court.example", "Front desk", "Center Court Club") in listed
    assert ("admin@platform.example", "Administrator", "Every venue") in listed
    assert len(listed) == len(_api_staff(console))

    added = console.client.post(
        STAFF,
        data={
            "_csrf_token": csrf_of(page.text),
            "email": "New.Desk@Example.com",
            "role": "desk",
            "venues": [str(venue)],
        },
        follow_redirects=False,
    )
    assert added.status_code == 303, added.text
    assert added.headers["location"] == f"{STAFF}?done=created"
    assert ("new.desk@example.com", "desk", venue) in _api_staff(console)
    shown = console.client.get(added.headers["location"]).text
    assert "has no password yet" in shown
    assert ["Front desk", "Center Court Club"] in [
        row[2:4] for row in _rows(shown) if row[1] == "new.desk@example.com"
    ]

    with console.services.deps.read() as uow:
        user = uow.users.get_by_email("new.desk@example.com")
    assert user is not None
    removed = console.client.post(
        f"{STAFF}/{user.id}/remove",
        data={"_csrf_token": csrf_of(shown), "venue": str(venue)},
        follow_redirects=False,
    )
    assert removed.headers["location"] == f"{STAFF}?done=removed"
    assert not {s for s in _api_staff(console) if s[0] == "new.desk@example.com"}


def test_a_refused_grant_keeps_the_form_and_says_why(console: Api) -> None:
    sign_in(console.client, ADMIN_EMAIL)
    token = csrf_of(console.client.get(STAFF).text)
    before = _api_staff(console)

    no_venue = console.client.post(
        STAFF, data={"_csrf_token": token, "email": "someone@example.com", "role": "manager"}
    )
    assert no_venue.status_code == 409
    assert "A manager or desk role needs at least one venue." in no_venue.text
    assert 'value="someone@example.com"' in no_venue.text
    assert '<option value="manager" selected>' in no_venue.text
    bad_email = console.client.post(
        STAFF, data={"_csrf_token": token, "email": "not-an-email", "role": "admin"}
    )
    assert bad_email.status_code == 409
    assert _api_staff(console) == before
    with console.services.deps.read() as uow:
        assert uow.users.get_by_email("someone@example.com") is None


def test_a_manager_manages_the_front_desk_of_their_venue_only(console: Api) -> None:
    venue, harbour = console.venues["center-court"], console.venues["harbour-padel"]
    sign_in(console.client, MANAGER_EMAIL)
    page = console.client.get(STAFF)
    assert page.status_code == 200
    assert "Mitarbeiter hinzufügen" in page.text  # the manager speaks German
    assert {row[3] for row in _rows(page.text)} == {"Center Court Club"}  # their venue's staff only
    assert re.findall(r'<option value="(\w+)"', page.text.split('id="role"')[1].split("</select>")[0]) == [
        "desk"
    ]
    assert f'value="{harbour}"' not in page.text
    assert page.text.count("/remove") == 1  # the desk's role; not the manager's own
    token = csrf_of(page.text)

    added = console.client.post(
        STAFF,
        data={
            "_csrf_token": token,
            "email": "second.desk@example.com",
            "role": "desk",
            "venues": [str(venue)],
        },
        follow_redirects=False,
    )
    assert added.status_code == 303
    assert ("second.desk@example.com", "desk", venue) in _api_staff(console)
    manager_role = console.client.post(
        STAFF,
        data={"_csrf_token": token, "email": "boss@example.com", "role": "manager", "venues": [str(venue)]},
    )
    assert manager_role.status_code == 403
    with console.services.deps.read() as uow:
        manager = uow.users.get_by_email(MANAGER_EMAIL)
        second = uow.users.get_by_email("second.desk@example.com")
    assert manager is not None
    assert second is not None
    own = console.client.post(
        f"{STAFF}/{manager.id}/remove", data={"_csrf_token": token, "venue": str(venue)}
    )
    assert own.status_code == 403  # a manager's role is not the front desk's
    removed = console.client.post(
        f"{STAFF}/{second.id}/remove",
        data={"_csrf_token": token, "venue": str(venue)},
        follow_redirects=False,
    )
    assert removed.status_code == 303
    assert not {s for s in _api_staff(console) if s[0] == "second.desk@example.com"}
    assert (MANAGER_EMAIL, "manager", venue) in _api_staff(console)
    api_view = console.client.get(f"{OPERATOR}/staff/", headers=auth(MANAGER)).json()
    assert {m["venue_id"] for m in api_view} == {venue}


# --------------------------------------------------------------------------- permissions and CSRF


def test_the_front_desk_is_refused_every_admin_page_and_sees_no_link_to_them(console: Api) -> None:
    mapping = _register_mapping(console)
    sign_in(console.client, DESK_EMAIL)
    home = console.client.get("/console/").text
    for path in (MAPPINGS, COMMISSIONS, STAFF):
        assert f'href="{path}"' not in home

    for path in ADMIN_PAGES:
        refused = console.client.get(path)
        assert refused.status_code == 403, path
        assert "Ihre Rolle erlaubt das nicht." in refused.text
    token = csrf_of(home)
    approve = console.client.post(f"{MAPPINGS}/{mapping['id']}/approve", data={"_csrf_token": token})
    assert approve.status_code == 403
    assert _api_mapping(console, mapping["id"])["approval_status"] == "pending"
    payout = console.client.post(PAYOUT, data={"_csrf_token": token, "month": COMMISSION_MONTH})
    assert payout.status_code == 403
    grant = console.client.post(STAFF, data={"_csrf_token": token, "email": "x@example.com", "role": "desk"})
    assert grant.status_code == 403


def test_a_manager_is_refused_the_platforms_pages_but_offered_the_staff_page(console: Api) -> None:
    sign_in(console.client, MANAGER_EMAIL)
    home = console.client.get("/console/").text
    assert f'href="{STAFF}"' in home
    assert f'href="{MAPPINGS}"' not in home
    assert f'href="{COMMISSIONS}"' not in home
    assert console.client.get(MAPPINGS).status_code == 403
    assert console.client.get(COMMISSIONS).status_code == 403

    sign_in(console.client, ADMIN_EMAIL)
    home = console.client.get("/console/").text
    for path in (MAPPINGS, COMMISSIONS, STAFF):
        assert f'href="{path}"' in home


def test_a_form_without_the_csrf_token_is_refused_and_changes_nothing(paying: Api) -> None:
    mapping = _register_mapping(paying)
    sign_in(paying.client, ADMIN_EMAIL)
    with paying.services.deps.read() as uow:
        desk = uow.users.get_by_email(DESK_EMAIL)
    assert desk is not None
    staff_before, statuses_before = _api_staff(paying), _statuses(paying)

    posts: list[tuple[str, dict[str, Any]]] = [
        (f"{MAPPINGS}/{mapping['id']}/approve", {}),
        (PAYOUT, {"month": COMMISSION_MONTH}),
        (STAFF, {"email": "sneaky@example.com", "role": "admin"}),
        (f"{STAFF}/{desk.id}/remove", {}),
    ]
    for path, data in posts:
        for token in (None, "forged"):
            sent = data if token is None else {**data, "_csrf_token": token}
            refused = paying.client.post(path, data=sent)
            assert refused.status_code == 403, path
            assert "security token" in refused.text

    assert _api_mapping(paying, mapping["id"])["approval_status"] == "pending"
    assert _statuses(paying) == statuses_before
    assert _api_staff(paying) == staff_before
