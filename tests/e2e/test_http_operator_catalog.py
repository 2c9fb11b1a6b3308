"""The venue's catalog over the operator API (CONTRACT 7.5), on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from adapters.sqla.models import AuditRow, ResourceRow, ScheduleRow
from adapters.sqla.repositories.staff import SqlaAuditLog
from booking_core.audit import AuditEntry
from booking_core.errors import StorageUnavailable
from entrypoints.cli import main
from tests.support.http_fixtures import (
    ADMIN,
    ANNA,
    DESK,
    HARBOUR_MANAGER,
    MANAGER,
    OPERATOR,
    PARTNER,
    Api,
    auth,
    book,
)

FORBIDDEN = {"detail": "You do not have permission to perform this action."}


def _catalog(api: Api, token: str, slug: str = "center-court") -> Any:
    return api.client.get(f"{OPERATOR}/venues/{api.venues[slug]}/catalog/", headers=auth(token))


def _put(api: Api, token: str, body: Any, slug: str = "center-court") -> Any:
    return api.client.put(f"{OPERATOR}/venues/{api.venues[slug]}/catalog/", json=body, headers=auth(token))


def _count(api: Api, model: Any) -> int:
    with api.services.engine.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(model)) or 0)


def test_the_catalog_reads_in_the_files_shape_and_writes_back_unchanged(api: Api) -> None:
    answer = _catalog(api, MANAGER)
    assert answer.status_code == 200
    venue = answer.json()
    assert venue["slug"] == "center-court"
    assert venue["latitude"] == "52.520008"
    court = next(r for r in venue["resources"] if r["name"] == "Court 1")
    assert court["base_price"] == "20.00"
    assert court["unavailable_periods"] == [
        {
            "start_datetime": "2026-06-05T08:00:00+02:00",
            "end_datetime": "2026-06-05T12:00:00+02:00",
            "reason": "maintenance",
        }
    ]
    assert court["schedules"][0]["time_slots"][0]["start_time"] == "08:00:00"
    assert _catalog(api, DESK).status_code == 200  # reading is viewing
    again = _put(api, MANAGER, venue)
    assert again.status_code == 200, again.text
    assert again.json() == {
        "venue_id": api.venues["center-court"],
        "created": [],
        "updated": [],
        "conflicts": [],
    }
    assert _count(api, AuditRow) == 0  # nothing changed, nothing to audit


def test_permissions(api: Api) -> None:
    venue = _catalog(api, MANAGER).json()
    assert (_put(api, DESK, venue).status_code, _put(api, DESK, venue).json()) == (403, FORBIDDEN)
    assert _put(api, HARBOUR_MANAGER, venue).status_code == 404
    assert _catalog(api, HARBOUR_MANAGER).status_code == 404
    for token in (ANNA, PARTNER):
        assert (_catalog(api, token).status_code, _put(api, token, venue).status_code) == (403, 403)
    created = api.client.post(f"{OPERATOR}/venues/", json=venue | {"slug": "new"}, headers=auth(MANAGER))
    assert (created.status_code, created.json()) == (403, FORBIDDEN)


def test_a_bad_catalog_names_the_path_and_writes_nothing(api: Api) -> None:
    venue = _catalog(api, MANAGER).json()
    venue["name"] = "Renamed"
    venue["resources"][1]["booking_interval_minutes"] = 0
    answer = _put(api, MANAGER, venue)
    assert answer.status_code == 400
    assert answer.json() == {"error": "resources[1].booking_interval_minutes: must be a positive integer"}
    assert _catalog(api, MANAGER).json()["name"] == "Center Court Club"
    unknown = _put(api, MANAGER, _catalog(api, MANAGER).json() | {"colour": "red"})
    assert unknown.status_code == 400
    assert unknown.json()["error"].startswith("colour: unknown key")
    other = _put(api, MANAGER, _catalog(api, MANAGER).json() | {"slug": "harbour-padel"})
    assert other.status_code == 400
    assert other.json()["error"].startswith("slug: ")
    for value, message in (
        (2.0, "must be a positive integer"),
        ("4", "must be a positive integer"),
        (True, None),
    ):
        wrong = _catalog(api, MANAGER).json()
        wrong["resources"][0]["capacity"] = value
        refused = _put(api, MANAGER, wrong)
        assert refused.status_code == 400, value
        assert refused.json()["error"].startswith("resources[0].capacity: "), refused.json()
        if message:
            assert refused.json()["error"] == f"resources[0].capacity: {message}"
    assert _put(api, MANAGER, []).status_code == 400
    assert _count(api, AuditRow) == 0


def test_narrowing_opening_hours_lists_the_booking_it_leaves_outside(api: Api) -> None:
    booked = book(api, ANNA, "Court 2", "2026-06-02T18:00:00+02:00", "2026-06-02T19:00:00+02:00")
    venue = _catalog(api, MANAGER).json()
    court = next(r for r in venue["resources"] if r["name"] == "Court 2")
    for schedule in court["schedules"]:
        schedule["time_slots"] = schedule["time_slots"][:1]  # 08:00 to 17:00 only
    schedules_before = _count(api, ScheduleRow)
    answer = _put(api, MANAGER, venue)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["created"], body["updated"]) == ([], ["resource Court 2"])
    assert [c["id"] for c in body["conflicts"]] == [booked["id"]]
    assert body["conflicts"][0]["customer"]["email"] == "anna@example.com"
    assert _count(api, ScheduleRow) == schedules_before
    # the booking itself is untouched
    mine = api.client.get(f"/api/v1/bookings/{booked['id']}/", headers=auth(ANNA)).json()
    assert mine["status"] == booked["status"]
    audit = api.client.get(f"{OPERATOR}/audit/?action=venue.update", headers=auth(MANAGER)).json()
    court_id = api.resources["Court 2"]
    assert [(e["object_type"], e["object_id"], e["actor"]["email"]) for e in audit] == [
        ("resource", str(court_id), "manager@center-court.example")
    ]
    assert audit[0]["details"]["change"] == "updated"


def test_a_block_in_the_catalog_over_a_booking_is_a_conflict(api: Api) -> None:
    booked = book(api, ANNA, "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")
    venue = _catalog(api, ADMIN).json()
    venue["resources"][0]["unavailable_periods"].append(
        {
            "start_datetime": "2026-06-03T09:00:00+02:00",
            "end_datetime": "2026-06-03T12:00:00+02:00",
            "reason": "event",
        }
    )
    body = _put(api, ADMIN, venue).json()
    assert [c["reference_code"] for c in body["conflicts"]] == [booked["reference_code"]]


def test_an_admin_creates_a_venue_once(api: Api) -> None:
    venue = copy.deepcopy(_catalog(api, ADMIN).json())
    venue["slug"] = "river-courts"
    venue["name"] = "River Courts"
    for resource in venue["resources"]:
        resource["unavailable_periods"] = []
    resources_before = _count(api, ResourceRow)
    answer = api.client.post(f"{OPERATOR}/venues/", json=venue, headers=auth(ADMIN))
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["created"] == [
        "venue river-courts",
        "resource Court 1",
        "resource Court 2",
        "resource Old Court",
    ]
    assert body["updated"] == []
    assert body["conflicts"] == []
    assert _count(api, ResourceRow) == resources_before + 3
    entries = api.client.get(f"{OPERATOR}/audit/?venue={body['venue_id']}", headers=auth(ADMIN)).json()
    assert sorted(e["action"] for e in entries) == [
        "venue.create",
        "venue.update",
        "venue.update",
        "venue.update",
    ]
    again = api.client.post(f"{OPERATOR}/venues/", json=venue, headers=auth(ADMIN))
    assert again.status_code == 400
    assert again.json()["error"].startswith("slug: ")
    assert _count(api, ResourceRow) == resources_before + 3


def test_the_audit_entry_commits_with_the_change_or_nothing_does(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: SqlaAuditLog, entry: AuditEntry) -> None:
        raise StorageUnavailable("the audit log is unavailable")

    monkeypatch.setattr(SqlaAuditLog, "add", refuse)
    venue = _catalog(api, MANAGER).json()
    venue["name"] = "Renamed"
    answer = _put(api, MANAGER, venue)
    assert answer.status_code == 503
    assert _catalog(api, MANAGER).json()["name"] == "Center Court Club"
    monkeypatch.undo()
    assert _put(api, MANAGER, venue).json()["updated"] == ["venue center-court"]
    [entry] = api.client.get(f"{OPERATOR}/audit/", headers=auth(MANAGER)).json()
    assert (entry["action"], entry["object_type"], entry["object_id"]) == (
        "venue.update",
        "venue",
        str(api.venues["center-court"]),
    )


def test_staff_blocks_are_not_the_catalogs_and_survive_its_replacement(api: Api) -> None:
    court = api.resources["Court 1"]
    placed = api.client.post(
        f"{OPERATOR}/venues/{api.venues['center-court']}/blocks/",
        json={
            "resource_ids": [court],
            "start_datetime": "2026-06-04T08:00:00+02:00",
            "end_datetime": "2026-06-04T10:00:00+02:00",
            "reason": "weather",
        },
        headers=auth(DESK),
    )
    assert placed.status_code == 201, placed.text
    venue = _catalog(api, MANAGER).json()
    periods = next(r for r in venue["resources"] if r["name"] == "Court 1")["unavailable_periods"]
    assert [p["reason"] for p in periods] == ["maintenance"]  # the catalog's own, not the block
    venue["resources"][0]["unavailable_periods"] = []
    answer = _put(api, MANAGER, venue)
    assert answer.json()["updated"] == ["resource Court 1"]
    blocks = api.client.get(
        f"{OPERATOR}/venues/{api.venues['center-court']}/blocks/?from=2026-06-01&to=2026-06-30",
        headers=auth(MANAGER),
    ).json()
    assert [(b["source"], b["reason"]) for b in blocks] == [("staff", "weather")]


def test_a_catalog_period_in_its_own_words_reads_back_unchanged(api: Api) -> None:
    venue = _catalog(api, MANAGER).json()
    venue["resources"][1]["unavailable_periods"] = [
        {
            "start_datetime": "2026-07-01T08:00:00+02:00",
            "end_datetime": "2026-07-01T12:00:00+02:00",
            "reason": "Court resurfacing",
        }
    ]
    assert _put(api, MANAGER, venue).json()["updated"] == ["resource Court 2"]
    again = _catalog(api, MANAGER).json()
    assert again["resources"][1]["unavailable_periods"][0]["reason"] == "Court resurfacing"
    assert _put(api, MANAGER, again).json()["updated"] == []


def test_catalog_load_on_the_command_line_audits_what_it_changes(
    api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(os.environ):
        if name.startswith("BOOKING_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no stray .env applies
    monkeypatch.setenv("BOOKING_DATABASE_URL", api.services.settings.database_url)
    venue = _catalog(api, ADMIN).json()
    venue["resources"][1]["capacity"] = 6
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"venues": [venue]}), encoding="utf-8")

    assert main(["catalog", "load", str(path)]) == 0
    assert main(["catalog", "load", str(path)]) == 0  # unchanged: nothing more to audit

    entries = api.client.get(f"{OPERATOR}/audit/", headers=auth(ADMIN)).json()
    assert [(e["action"], e["object_type"], e["object_id"], e["actor"]) for e in entries] == [
        ("venue.update", "resource", str(api.resources["Court 2"]), None)
    ]
    assert "resources: 0 created, 1 updated, 2 unchanged" in entries[0]["details"]["report"]
