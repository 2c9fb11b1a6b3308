"""Staff, roles and the operator API's gate (CONTRACT 7.1, 7.2's ``me`` and ``venues``), over HTTP on
SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

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


def _get(api: Api, path: str, token: str) -> Any:
    return api.client.get(f"{OPERATOR}{path}", headers=auth(token))


def test_me_names_the_roles_with_their_venues(api: Api) -> None:
    answer = _get(api, "/me/", DESK)
    assert answer.status_code == 200
    body = answer.json()
    assert body["email"] == "desk@center-court.example"
    assert body["roles"] == [
        {"role": "desk", "venue_id": api.venues["center-court"], "venue_slug": "center-court"}
    ]
    admin = _get(api, "/me/", ADMIN).json()
    assert admin["roles"] == [{"role": "admin", "venue_id": None, "venue_slug": None}]
    assert admin["language"] == "en"


def test_customers_and_clients_get_403_and_no_token_401(api: Api) -> None:
    for token in (ANNA, PARTNER):
        for path in ("/me/", "/venues/"):
            answer = _get(api, path, token)
            assert (answer.status_code, answer.json()) == (403, FORBIDDEN)
    assert api.client.get(f"{OPERATOR}/me/").status_code == 401
    assert api.client.get(f"{OPERATOR}/me/", headers=auth("no-such-token")).status_code == 401


def test_venues_are_those_of_the_roles_and_all_for_an_admin(api: Api) -> None:
    desk = _get(api, "/venues/", DESK).json()
    assert [(v["slug"], v["role"]) for v in desk] == [("center-court", "desk")]
    assert [r["name"] for r in desk[0]["resources"]] == ["Court 1", "Court 2", "Old Court"]
    assert [r["is_active"] for r in desk[0]["resources"]] == [True, True, False]
    assert desk[0]["timezone"] == "Europe/Berlin"
    harbour = _get(api, "/venues/", HARBOUR_MANAGER).json()
    assert [(v["slug"], v["role"]) for v in harbour] == [("harbour-padel", "manager")]
    admin = _get(api, "/venues/", ADMIN).json()
    assert {(v["slug"], v["role"]) for v in admin} == {("center-court", "admin"), ("harbour-padel", "admin")}
    assert _get(api, "/venues/", MANAGER).json()[0]["role"] == "manager"
