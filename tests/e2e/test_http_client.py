"""The client (B2B) API over HTTP: mappings, client-mode bookings, commissions, isolation."""

from __future__ import annotations

from typing import Any

import pytest

from booking_core.accounts import ApprovalStatus
from booking_core.usecases.operator import decide_venue_mapping
from tests.support.http_fixtures import (
    ANNA,
    BOOKINGS,
    OTHER,
    PARTNER,
    Api,
    api,
    auth,
    book,
    clone_postgres,
    database_url,
    pay,
    postgres_template,
    sqlite_template,
)

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]

PERMISSION = {"detail": "You do not have permission to perform this action."}
CLIENT = "/api/v1/client"
MORNING = ("2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")
SHORT_FIELDS = {
    "id",
    "reference_code",
    "status",
    "resource_id",
    "resource_name",
    "venue_name",
    "start_datetime",
    "end_datetime",
    "total_price",
    "currency",
    "participant_count",
    "created_at",
}
CLIENT_ONLY = [
    ("POST", "/users/register/"),
    ("GET", "/users/lookup/?external_id=u1"),
    ("GET", "/users/mappings/"),
    ("POST", "/resources/register/"),
    ("GET", "/resources/lookup/?external_id=r1"),
    ("GET", "/resources/mappings/"),
    ("POST", "/venues/register/"),
    ("GET", "/venues/lookup/?external_id=v1"),
    ("GET", "/venues/mappings/"),
    ("GET", "/venues/resources/?venue_external_id=v1"),
    ("GET", "/commissions/?month=2026-06"),
]


def _register_user(api: Api, external_id: str, email: str, token: str = PARTNER, **extra: str) -> Any:
    return api.client.post(
        f"{CLIENT}/users/register/",
        json={"external_id": external_id, "email": email, **extra},
        headers=auth(token),
    )


def _client_book(
    api: Api, external_user: str, resource: str = "Court 1", token: str = PARTNER
) -> dict[str, Any]:
    return book(api, token, resource, *MORNING, headers={"X-User-External-ID": external_user})


@pytest.mark.parametrize(("method", "path"), CLIENT_ONLY)
def test_client_only_endpoints_refuse_user_tokens_with_403(api: Api, method: str, path: str) -> None:
    response = api.client.request(method, f"{CLIENT}{path}", json={}, headers=auth(ANNA))
    assert response.status_code == 403
    assert response.json() == PERMISSION


@pytest.mark.parametrize(("method", "path"), CLIENT_ONLY)
def test_client_only_endpoints_need_a_token(api: Api, method: str, path: str) -> None:
    response = api.client.request(method, f"{CLIENT}{path}", json={})
    assert response.status_code == 401
    assert response.json() == {"detail": "Authentication credentials were not provided."}


def test_register_user_is_201_and_idempotent(api: Api) -> None:
    first = _register_user(api, "u1", "New.Person@Example.com", first_name="New", language="en")
    assert first.status_code == 201
    body = first.json()
    assert set(body) == {"user_id", "external_id", "email", "created", "mapping_created"}
    assert body == body | {
        "external_id": "u1",
        "email": "new.person@example.com",
        "created": True,
        "mapping_created": True,
    }
    again = _register_user(api, "u1", "new.person@example.com")
    assert again.status_code == 201
    assert again.json() == body | {"created": False, "mapping_created": False}


def test_register_user_with_a_known_email_maps_the_existing_user(api: Api) -> None:
    response = _register_user(api, "anna-ext", "anna@example.com")
    assert response.status_code == 201
    assert (response.json()["created"], response.json()["mapping_created"]) == (False, True)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email": "x@example.com"}, "external_id"),
        ({"external_id": "u9"}, "email"),
        ({"external_id": "u9", "email": "not-an-email"}, "email"),
        ({"external_id": "u9", "email": "x@example.com", "language": "fr"}, "language"),
    ],
)
def test_register_user_validation(api: Api, body: dict[str, str], field: str) -> None:
    response = api.client.post(f"{CLIENT}/users/register/", json=body, headers=auth(PARTNER))
    assert response.status_code == 400
    assert list(response.json()) == [field]


def test_lookup_and_list_user_mappings(api: Api) -> None:
    user_id = _register_user(api, "u1", "one@example.com").json()["user_id"]
    api.clock.advance(seconds=1)  # mappings are listed by creation time (then id)
    _register_user(api, "u2", "two@example.com")
    found = api.client.get(f"{CLIENT}/users/lookup/?external_id=u1", headers=auth(PARTNER))
    assert found.status_code == 200
    mapping = found.json()
    assert set(mapping) == {"id", "external_id", "user_id", "user_email", "is_active", "created_at"}
    assert mapping == mapping | {
        "external_id": "u1",
        "user_id": user_id,
        "user_email": "one@example.com",
        "is_active": True,
    }
    listed = api.client.get(f"{CLIENT}/users/mappings/", headers=auth(PARTNER)).json()
    assert [m["external_id"] for m in listed] == ["u1", "u2"]
    page = api.client.get(f"{CLIENT}/users/mappings/?limit=1&offset=1&is_active=true", headers=auth(PARTNER))
    assert [m["external_id"] for m in page.json()] == ["u2"]
    assert api.client.get(f"{CLIENT}/users/mappings/?is_active=false", headers=auth(PARTNER)).json() == []


def test_unmapped_external_id_is_404_with_error(api: Api) -> None:
    response = api.client.get(f"{CLIENT}/users/lookup/?external_id=nobody", headers=auth(PARTNER))
    assert response.status_code == 404
    assert response.json() == {"error": "no user found for that external_id"}


@pytest.mark.parametrize("limit", ["1001", "0", "-5"])
def test_user_mappings_limit_is_at_most_1000(api: Api, limit: str) -> None:
    response = api.client.get(f"{CLIENT}/users/mappings/?limit={limit}", headers=auth(PARTNER))
    assert response.status_code == 400
    assert response.json()["error"].startswith("limit: ")
    assert api.client.get(f"{CLIENT}/users/mappings/?limit=1000", headers=auth(PARTNER)).status_code == 200


def test_clients_do_not_see_each_others_mappings(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    assert api.client.get(f"{CLIENT}/users/mappings/", headers=auth(OTHER)).json() == []
    assert api.client.get(f"{CLIENT}/users/lookup/?external_id=u1", headers=auth(OTHER)).status_code == 404


def test_resource_registration_lookup_and_list(api: Api) -> None:
    court = api.resources["Court 1"]
    body = {"external_id": "r1", "resource_id": court, "external_data": {"color": "red"}}
    first = api.client.post(f"{CLIENT}/resources/register/", json=body, headers=auth(PARTNER))
    assert first.status_code == 201
    assert first.json() == {
        "external_id": "r1",
        "resource_id": court,
        "resource_name": "Court 1",
        "venue_name": "Center Court Club",
        "created": True,
    }
    again = api.client.post(f"{CLIENT}/resources/register/", json=body, headers=auth(PARTNER))
    assert again.status_code == 201
    assert again.json()["created"] is False
    found = api.client.get(f"{CLIENT}/resources/lookup/?external_id=r1", headers=auth(PARTNER))
    assert found.status_code == 200
    mapping = found.json()
    assert set(mapping) == {
        "id",
        "external_id",
        "resource_id",
        "resource_name",
        "venue_name",
        "is_active",
        "created_at",
    }
    listed = api.client.get(f"{CLIENT}/resources/mappings/", headers=auth(PARTNER)).json()
    assert listed == [mapping]
    missing = api.client.get(f"{CLIENT}/resources/lookup/?external_id=zz", headers=auth(PARTNER))
    assert missing.status_code == 404
    assert set(missing.json()) == {"error"}
    unknown = api.client.post(
        f"{CLIENT}/resources/register/",
        json={"external_id": "r2", "resource_id": 999_999},
        headers=auth(PARTNER),
    )
    assert unknown.status_code == 400
    assert list(unknown.json()) == ["resource_id"]


def test_venue_registration_needs_approval_before_use(api: Api) -> None:
    venue = api.venues["center-court"]
    body = {"external_id": "v1", "venue_id": venue}
    first = api.client.post(f"{CLIENT}/venues/register/", json=body, headers=auth(PARTNER))
    assert first.status_code == 201
    assert first.json() == {
        "external_id": "v1",
        "venue_id": venue,
        "venue_name": "Center Court Club",
        "venue_slug": "center-court",
        "venue_city": "Berlin",
        "approval_status": "pending",
        "created": True,
    }
    assert (
        api.client.post(f"{CLIENT}/venues/register/", json=body, headers=auth(PARTNER)).json()["created"]
        is False
    )
    lookup = api.client.get(f"{CLIENT}/venues/lookup/?external_id=v1", headers=auth(PARTNER))
    assert lookup.status_code == 200
    mapping = lookup.json()
    assert set(mapping) == {
        "id",
        "external_id",
        "venue_id",
        "venue_name",
        "venue_slug",
        "venue_city",
        "is_active",
        "approval_status",
        "created_at",
    }
    refused = api.client.get(f"{CLIENT}/venues/resources/?venue_external_id=v1", headers=auth(PARTNER))
    assert refused.status_code == 403
    assert refused.json() == {"error": "venue mapping is not approved"}

    pending = api.client.get(
        f"{CLIENT}/venues/mappings/?approval_status=pending", headers=auth(PARTNER)
    ).json()
    assert [m["external_id"] for m in pending] == ["v1"]
    assert (
        api.client.get(f"{CLIENT}/venues/mappings/?approval_status=approved", headers=auth(PARTNER)).json()
        == []
    )
    bad = api.client.get(f"{CLIENT}/venues/mappings/?approval_status=maybe", headers=auth(PARTNER))
    assert bad.status_code == 400

    decide_venue_mapping(api.services.deps, mapping["id"], ApprovalStatus.APPROVED)
    api.client.post(
        f"{CLIENT}/resources/register/",
        json={"external_id": "r1", "resource_id": api.resources["Court 1"]},
        headers=auth(PARTNER),
    )
    response = api.client.get(f"{CLIENT}/venues/resources/?venue_external_id=v1", headers=auth(PARTNER))
    assert response.status_code == 200
    venue_view = response.json()
    assert venue_view == venue_view | {
        "id": venue,
        "external_id": "v1",
        "name": "Center Court Club",
        "slug": "center-court",
        "venue_type": "tennis_club",
        "city": "Berlin",
        "country": "DE",
        "latitude": "52.520008",
        "longitude": "13.404954",
        "timezone": "Europe/Berlin",
        "is_active": True,
        "is_published": True,
    }
    by_name = {r["name"]: r for r in venue_view["resources"]}
    assert by_name["Court 1"]["external_id"] == "r1"
    assert "external_id" not in by_name["Court 2"]
    assert set(by_name["Court 2"]) == {
        "id",
        "name",
        "description",
        "capacity",
        "base_price",
        "currency",
        "price_unit",
        "booking_interval_minutes",
        "min_booking_duration_minutes",
        "max_booking_duration_minutes",
        "is_active",
        "is_bookable",
    }


def test_client_booking_needs_exactly_one_user_header(api: Api) -> None:
    user_id = _register_user(api, "u1", "one@example.com").json()["user_id"]
    body = {"resource": api.resources["Court 1"], "start_datetime": MORNING[0], "end_datetime": MORNING[1]}
    none = api.client.post(BOOKINGS, json=body, headers=auth(PARTNER))
    assert none.status_code == 400
    assert none.json() == {"error": "user identification required"}
    both = api.client.post(
        BOOKINGS, json=body, headers=auth(PARTNER, X_User_ID=user_id, X_User_External_ID="u1")
    )
    assert both.status_code == 400
    assert both.json() == {"error": "send exactly one of X-User-ID or X-User-External-ID"}
    unknown = api.client.post(BOOKINGS, json=body, headers=auth(PARTNER, X_User_External_ID="nobody"))
    assert unknown.status_code == 404
    assert unknown.json() == {"error": "no user found for that external_id"}
    by_user_id = api.client.post(BOOKINGS, json=body, headers=auth(PARTNER, X_User_ID=user_id))
    assert by_user_id.status_code == 201


def test_client_booking_answers_with_the_short_body(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    created = _client_book(api, "u1")
    assert set(created) == SHORT_FIELDS
    assert created == created | {
        "status": "pending",
        "resource_id": api.resources["Court 1"],
        "resource_name": "Court 1",
        "venue_name": "Center Court Club",
        "start_datetime": MORNING[0],
        "end_datetime": MORNING[1],
        "total_price": "20.00",
        "currency": "EUR",
        "participant_count": 1,
    }


def test_client_booking_by_resource_external_id(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    body = {"resource_external_id": "court-x", "start_datetime": MORNING[0], "end_datetime": MORNING[1]}
    unmapped = api.client.post(BOOKINGS, json=body, headers=auth(PARTNER, X_User_External_ID="u1"))
    assert unmapped.status_code == 400
    assert list(unmapped.json()) == ["resource_external_id"]
    assert isinstance(unmapped.json()["resource_external_id"], list)
    api.client.post(
        f"{CLIENT}/resources/register/",
        json={"external_id": "court-x", "resource_id": api.resources["Court 2"]},
        headers=auth(PARTNER),
    )
    created = api.client.post(BOOKINGS, json=body, headers=auth(PARTNER, X_User_External_ID="u1"))
    assert created.status_code == 201
    assert created.json()["resource_id"] == api.resources["Court 2"]


def test_slot_unavailable_in_client_mode_is_an_error_body(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    book(api, ANNA, "Court 1", *MORNING)
    body = {"resource": api.resources["Court 1"], "start_datetime": MORNING[0], "end_datetime": MORNING[1]}
    response = api.client.post(BOOKINGS, json=body, headers=auth(PARTNER, X_User_External_ID="u1"))
    assert response.status_code == 400
    assert set(response.json()) == {"error"}
    assert isinstance(response.json()["error"], str)


def test_client_sees_only_its_own_bookings(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    _register_user(api, "u2", "two@example.com")
    _register_user(api, "o1", "one@example.com", token=OTHER)
    mine = _client_book(api, "u1")
    theirs = book(api, OTHER, "Court 2", *MORNING, headers={"X-User-External-ID": "o1"})
    direct = book(api, ANNA, "Padel A", "2026-06-03T08:00:00-04:00", "2026-06-03T09:00:00-04:00")

    listed = api.client.get(BOOKINGS, headers=auth(PARTNER)).json()
    assert [b["id"] for b in listed] == [mine["id"]]
    assert api.client.get(BOOKINGS, headers=auth(PARTNER, X_User_External_ID="u2")).json() == []
    for_u1 = api.client.get(f"{BOOKINGS}upcoming/", headers=auth(PARTNER, X_User_External_ID="u1")).json()
    assert [b["id"] for b in for_u1] == [mine["id"]]
    for foreign in (theirs["id"], direct["id"]):
        assert api.client.get(f"{BOOKINGS}{foreign}/", headers=auth(PARTNER)).status_code == 404
    # the user themself does not see bookings that another client made for the same person
    assert api.client.get(BOOKINGS, headers=auth(ANNA)).json()[0]["id"] == direct["id"]

    detail = api.client.get(f"{BOOKINGS}{mine['id']}/", headers=auth(PARTNER))
    assert detail.status_code == 200
    client = detail.json()["client"]
    assert set(client) == {"id", "name", "external_user_id"}
    assert (client["name"], client["external_user_id"]) == ("PartnerApp", "u1")


def test_client_cancel_and_pay_need_the_user_header(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    _register_user(api, "u2", "two@example.com")
    created = _client_book(api, "u1")
    path = f"{BOOKINGS}{created['id']}"
    no_header = api.client.post(f"{path}/cancel/", headers=auth(PARTNER))
    assert no_header.status_code == 400
    assert no_header.json() == {"error": "user identification required"}
    wrong_user = api.client.post(
        f"{path}/create-payment-intent/", headers=auth(PARTNER, X_User_External_ID="u2")
    )
    assert wrong_user.status_code == 403
    assert wrong_user.json() == PERMISSION
    other_client = api.client.post(f"{path}/cancel/", headers=auth(OTHER, X_User_External_ID="u1"))
    assert other_client.status_code == 404
    intent = api.client.post(f"{path}/create-payment-intent/", headers=auth(PARTNER, X_User_External_ID="u1"))
    assert intent.status_code == 200
    cancelled = api.client.post(f"{path}/cancel/", headers=auth(PARTNER, X_User_External_ID="u1"))
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"


def test_commissions_of_paid_client_bookings(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    created = _client_book(api, "u1")
    pay(api, PARTNER, created["id"], headers={"X-User-External-ID": "u1"})
    response = api.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(PARTNER))
    assert response.status_code == 200
    (record,) = response.json()
    assert set(record) == {
        "id",
        "booking_id",
        "reference_code",
        "base_amount",
        "commission_percent",
        "amount",
        "currency",
        "month",
        "status",
        "created_at",
    }
    assert record == record | {
        "booking_id": created["id"],
        "reference_code": created["reference_code"],
        "base_amount": "20.00",
        "commission_percent": "10.00",
        "amount": "2.00",
        "currency": "EUR",
        "month": "2026-06",
        "status": "open",
    }
    assert api.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(OTHER)).json() == []
    assert api.client.get(f"{CLIENT}/commissions/?month=2026-07", headers=auth(PARTNER)).json() == []


@pytest.mark.parametrize("query", ["", "?month=2026-13", "?month=June"])
def test_commissions_need_a_valid_month(api: Api, query: str) -> None:
    response = api.client.get(f"{CLIENT}/commissions/{query}", headers=auth(PARTNER))
    assert response.status_code == 400
    assert set(response.json()) == {"error"}


def test_null_characters_are_refused_on_every_backend(api: Api) -> None:
    body = {"external_id": "a\x00b", "email": "z@example.com", "external_data": {"k": "\x00"}}
    response = api.client.post(f"{CLIENT}/users/register/", json=body, headers=auth(PARTNER))
    assert response.status_code == 400
    assert response.json() == {"detail": "Null characters are not allowed."}
    lookup = api.client.get(f"{CLIENT}/users/lookup/?external_id=a%00b", headers=auth(PARTNER))
    assert lookup.status_code == 400


def test_commissions_come_a_page_at_a_time(api: Api) -> None:
    _register_user(api, "u1", "one@example.com")
    made = [_client_book(api, "u1", resource) for resource in ("Court 1", "Court 2")]
    for booking in made:
        pay(api, PARTNER, booking["id"], headers={"X-User-External-ID": "u1"})
    first = api.client.get(f"{CLIENT}/commissions/?month=2026-06&limit=1", headers=auth(PARTNER))
    assert first.status_code == 200
    assert len(first.json()) == 1
    assert first.headers["link"].endswith('offset=1>; rel="next"'), first.headers["link"]
    second = api.client.get(f"{CLIENT}/commissions/?month=2026-06&limit=1&offset=1", headers=auth(PARTNER))
    assert "link" not in second.headers
    together = first.json() + second.json()
    assert {r["booking_id"] for r in together} == {b["id"] for b in made}
    whole = api.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(PARTNER)).json()
    assert whole == together
    too_many = api.client.get(f"{CLIENT}/commissions/?month=2026-06&limit=1001", headers=auth(PARTNER))
    assert too_many.status_code == 400
