"""Staff over HTTP (CONTRACT 7.8's ``/operator/staff/``) and the audit log's listing (7.6), on SQLite
and PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from adapters.sqla.models import StaffRoleRow, UserRow
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
)

FORBIDDEN = {"detail": "You do not have permission to perform this action."}


def _staff(api: Api, token: str) -> Any:
    return api.client.get(f"{OPERATOR}/staff/", headers=auth(token))


def _grant(api: Api, token: str, **body: Any) -> Any:
    return api.client.post(f"{OPERATOR}/staff/", json=body, headers=auth(token))


def _password_hash(api: Api, email: str) -> str | None:
    with api.services.engine.connect() as connection:
        found: str | None = connection.scalar(select(UserRow.password_hash).where(UserRow.email == email))
        return found


def _roles(api: Api) -> int:
    with api.services.engine.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(StaffRoleRow)) or 0)


def test_admins_list_every_role_and_managers_their_venues(api: Api) -> None:
    everyone = _staff(api, ADMIN)
    assert everyone.status_code == 200
    assert {(s["email"], s["role"]) for s in everyone.json()} == {
        ("admin@platform.example", "admin"),
        ("desk@center-court.example", "desk"),
        ("manager@center-court.example", "manager"),
        ("manager@harbour.example", "manager"),
    }
    center = {(s["email"], s["venue_id"]) for s in _staff(api, MANAGER).json()}
    venue = api.venues["center-court"]
    assert center == {("desk@center-court.example", venue), ("manager@center-court.example", venue)}
    assert (_staff(api, DESK).status_code, _staff(api, DESK).json()) == (403, FORBIDDEN)
    for token in (ANNA, PARTNER):
        assert _staff(api, token).status_code == 403


def test_a_manager_grants_desk_at_their_venue_to_a_new_user_without_password(api: Api) -> None:
    venue = api.venues["center-court"]
    answer = _grant(api, MANAGER, email="New.Desk@Center-Court.example", role="desk", venue_ids=[venue])
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert (body["email"], body["created"]) == ("new.desk@center-court.example", True)
    assert [(g["role"], g["venue_id"]) for g in body["granted"]] == [("desk", venue)]
    assert _password_hash(api, "new.desk@center-court.example") is None
    again = _grant(api, MANAGER, email="new.desk@center-court.example", role="desk", venue_ids=[venue])
    assert (again.status_code, again.json()["created"], again.json()["granted"]) == (201, False, [])
    entries = api.client.get(f"{OPERATOR}/audit/?action=staff.grant", headers=auth(MANAGER)).json()
    assert [(e["object_id"], e["actor"]["email"]) for e in entries] == [
        (body["user_id"], "manager@center-court.example")
    ]


def test_grants_refused(api: Api) -> None:
    center, harbour = api.venues["center-court"], api.venues["harbour-padel"]
    roles = _roles(api)
    unknown = _grant(api, ADMIN, email="x@example.com", role="owner", venue_ids=[center])
    assert (unknown.status_code, list(unknown.json())) == (400, ["role"])
    elsewhere = _grant(api, MANAGER, email="x@example.com", role="desk", venue_ids=[harbour])
    assert elsewhere.status_code == 404
    manager = _grant(api, MANAGER, email="x@example.com", role="manager", venue_ids=[center])
    assert (manager.status_code, manager.json()) == (403, FORBIDDEN)
    desk = _grant(api, DESK, email="x@example.com", role="desk", venue_ids=[center])
    assert (desk.status_code, desk.json()) == (403, FORBIDDEN)
    no_venue = _grant(api, ADMIN, email="x@example.com", role="desk", venue_ids=[])
    assert (no_venue.status_code, list(no_venue.json())) == (400, ["venue_ids"])
    not_int = _grant(api, ADMIN, email="x@example.com", role="desk", venue_ids=["1"])
    assert not_int.status_code == 400
    assert _roles(api) == roles
    admin = _grant(api, ADMIN, email="second.admin@platform.example", role="admin")
    assert admin.status_code == 201
    assert _roles(api) == roles + 1


def test_removing_staff(api: Api) -> None:
    center = api.venues["center-court"]
    people = {s["email"]: s["user_id"] for s in _staff(api, ADMIN).json()}
    desk, manager = people["desk@center-court.example"], people["manager@center-court.example"]
    no_venue = api.client.delete(f"{OPERATOR}/staff/{desk}/", headers=auth(MANAGER))
    assert (no_venue.status_code, no_venue.json()["error"].startswith("venue: ")) == (400, True)
    other = api.client.delete(f"{OPERATOR}/staff/{desk}/?venue={center}", headers=auth(HARBOUR_MANAGER))
    assert other.status_code == 404
    peer = api.client.delete(f"{OPERATOR}/staff/{manager}/?venue={center}", headers=auth(MANAGER))
    assert (peer.status_code, peer.json()) == (403, FORBIDDEN)
    by_desk = api.client.delete(f"{OPERATOR}/staff/{desk}/?venue={center}", headers=auth(DESK))
    assert by_desk.status_code == 403
    bad = api.client.delete(f"{OPERATOR}/staff/{desk}/?venue=+1", headers=auth(MANAGER))
    assert (bad.status_code, bad.json()["error"].startswith("venue")) == (400, True)
    gone = api.client.delete(f"{OPERATOR}/staff/{desk}/?venue={center}", headers=auth(MANAGER))
    assert gone.status_code == 204
    assert api.client.get(f"{OPERATOR}/me/", headers=auth(DESK)).status_code == 403
    [entry] = api.client.get(f"{OPERATOR}/audit/?action=staff.revoke", headers=auth(ADMIN)).json()
    assert (entry["object_id"], entry["venue_id"], entry["details"]["role"]) == (desk, center, "desk")
    by_admin = api.client.delete(f"{OPERATOR}/staff/{manager}/", headers=auth(ADMIN))
    assert by_admin.status_code == 204


# --------------------------------------------------------------------------- audit log


def _audit(api: Api, token: str, query: str = "") -> Any:
    return api.client.get(f"{OPERATOR}/audit/{query}", headers=auth(token))


def test_the_audit_log_pages_newest_first_and_filters(api: Api) -> None:
    center, harbour = api.venues["center-court"], api.venues["harbour-padel"]
    for n in range(3):
        api.clock.advance(minutes=1)
        _grant(api, ADMIN, email=f"desk{n}@center-court.example", role="desk", venue_ids=[center])
    api.clock.advance(minutes=1)
    _grant(api, ADMIN, email="desk@harbour.example", role="desk", venue_ids=[harbour])
    every = _audit(api, ADMIN).json()
    assert [e["details"]["email"] for e in every] == [
        "desk@harbour.example",
        "desk2@center-court.example",
        "desk1@center-court.example",
        "desk0@center-court.example",
    ]
    assert set(every[0]) == {"id", "at", "actor", "action", "venue_id", "object_type", "object_id", "details"}
    assert every[0]["actor"]["email"] == "admin@platform.example"
    assert every[0]["at"] == "2026-06-01T06:04:00Z"
    first = _audit(api, ADMIN, f"?venue={center}&limit=2")
    assert [e["details"]["email"] for e in first.json()] == [
        "desk2@center-court.example",
        "desk1@center-court.example",
    ]
    assert first.headers["link"].endswith(f'/operator/audit/?venue={center}&limit=2&offset=2>; rel="next"')
    second = _audit(api, ADMIN, f"?venue={center}&limit=2&offset=2")
    assert [e["details"]["email"] for e in second.json()] == ["desk0@center-court.example"]
    assert "link" not in second.headers
    # a manager reads their venues' entries, and another venue as not found
    assert len(_audit(api, MANAGER).json()) == 3
    assert len(_audit(api, DESK).json()) == 3
    assert _audit(api, MANAGER, f"?venue={harbour}").status_code == 404
    assert len(_audit(api, ADMIN, "?from=2026-06-01&to=2026-06-01").json()) == 4
    assert _audit(api, ADMIN, "?from=2026-06-02").json() == []
    assert _audit(api, ADMIN, "?to=2026-05-31").json() == []
    assert _audit(api, ADMIN, f"?object_id={every[0]['object_id']}").json() == [every[0]]
    assert len(_audit(api, ADMIN, "?action=staff.grant").json()) == 4
    assert _audit(api, ADMIN, "?action=booking.move").json() == []
    for token in (ANNA, PARTNER):
        assert _audit(api, token).status_code == 403


def test_bad_audit_parameters_are_400_naming_them(api: Api) -> None:
    for query, name in (
        ("?from=2026-6-1", "from"),
        ("?to=tomorrow", "to"),
        ("?action=venue.delete", "action"),
        ("?venue=x", "venue"),
        ("?limit=0", "limit"),
        ("?limit=1001", "limit"),
        ("?offset=-1", "offset"),
    ):
        answer = _audit(api, ADMIN, query)
        assert answer.status_code == 400, query
        assert answer.json()["error"].startswith(f"{name}"), (query, answer.json())
