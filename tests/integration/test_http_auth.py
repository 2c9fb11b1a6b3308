"""Direct users over HTTP: sign-up, token, logout (CONTRACT section 4.5)."""

from __future__ import annotations

import pytest

from tests.integration.http_fixtures import (
    ANNA,
    ANNA_PASSWORD,
    BOOKINGS,
    Api,
    api,
    auth,
    book,
    clone_postgres,
    database_url,
    postgres_template,
    sqlite_template,
)

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]

AUTH = "/api/v1/auth"


def test_register_answers_201_with_a_working_token(api: Api) -> None:
    response = api.client.post(
        f"{AUTH}/register/",
        json={
            "email": "Carla@Example.com",
            "password": "ten-chars-or-more",
            "first_name": "Carla",
            "last_name": "Rossi",
            "language": "en",
        },
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {"user_id", "email", "token"}
    assert body["email"] == "carla@example.com"
    created = book(api, body["token"], "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")
    assert created["status"] == "pending"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email": "carla@example.com", "password": "short"}, "password"),
        ({"email": "anna@example.com", "password": "ten-chars-or-more"}, "email"),
        ({"email": "not-an-email", "password": "ten-chars-or-more"}, "email"),
        ({"password": "ten-chars-or-more"}, "email"),
        ({"email": "carla@example.com"}, "password"),
    ],
)
def test_register_validation_is_keyed_by_field(api: Api, body: dict[str, str], field: str) -> None:
    response = api.client.post(f"{AUTH}/register/", json=body)
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert isinstance(response.json()[field][0], str)


def test_token_and_logout(api: Api) -> None:
    response = api.client.post(
        f"{AUTH}/token/", json={"email": "ANNA@example.com", "password": ANNA_PASSWORD}
    )
    assert response.status_code == 200
    token = response.json()["token"]
    assert set(response.json()) == {"token"}
    assert api.client.get(BOOKINGS, headers=auth(token)).status_code == 200
    assert api.client.post(f"{AUTH}/logout/", headers=auth(token)).status_code == 204
    after = api.client.get(BOOKINGS, headers=auth(token))
    assert after.status_code == 401
    assert after.json() == {"detail": "Invalid token."}
    # other tokens of the same user stay valid
    assert api.client.get(BOOKINGS, headers=auth(ANNA)).status_code == 200


def test_wrong_password_is_400(api: Api) -> None:
    response = api.client.post(
        f"{AUTH}/token/", json={"email": "anna@example.com", "password": "wrong-password"}
    )
    assert response.status_code == 400
    assert list(response.json()) == ["non_field_errors"]


def test_logout_needs_a_token(api: Api) -> None:
    response = api.client.post(f"{AUTH}/logout/")
    assert response.status_code == 401
    assert response.json() == {"detail": "Authentication credentials were not provided."}


# Booking creation looks its token up inside the booking's own transaction; these pin down that a
# request still learns about a bad token first, whatever else is wrong with it.
_GOOD_BOOKING = {"start_datetime": "2026-06-03T10:00:00+02:00", "end_datetime": "2026-06-03T11:00:00+02:00"}


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (None, None),  # no body at all
        (b"{not json", "application/json"),
        (b'{"resource": "one", "start_datetime": 5}', "application/json"),
        (b'{"resource": 1, "start_datetime": "soon", "end_datetime": "later"}', "application/json"),
        (b'{"resource": 1, "start_datetime": "2026-06-03T10:00:00+02:00"}', "application/json"),
        (b"x" * (1024 * 1024 + 10), "application/json"),
    ],
    ids=["no-body", "malformed", "wrong-types", "bad-datetimes", "missing-field", "too-large"],
)
@pytest.mark.parametrize("token", ["no-such-token", "revoked"])
def test_a_booking_with_a_bad_token_is_401_whatever_its_body(
    api: Api, token: str, content: bytes | None, content_type: str | None
) -> None:
    if token == "revoked":
        token = api.client.post(
            f"{AUTH}/token/", json={"email": "anna@example.com", "password": ANNA_PASSWORD}
        ).json()["token"]
        assert api.client.post(f"{AUTH}/logout/", headers=auth(token)).status_code == 204
    headers = auth(token) | ({"Content-Type": content_type} if content_type else {})
    response = api.client.post(BOOKINGS, content=content, headers=headers)
    assert response.status_code == 401, response.text
    assert response.json() == {"detail": "Invalid token."}
    assert response.headers["WWW-Authenticate"] == "Token"


def test_a_booking_with_a_bad_token_and_a_good_body_is_401_and_books_nothing(api: Api) -> None:
    body = {"resource": api.resources["Court 1"], **_GOOD_BOOKING}
    refused = api.client.post(BOOKINGS, json=body, headers=auth("no-such-token"))
    assert refused.status_code == 401
    assert refused.json() == {"detail": "Invalid token."}
    # the slot is still free: the refused request wrote nothing
    start, end = _GOOD_BOOKING["start_datetime"], _GOOD_BOOKING["end_datetime"]
    assert book(api, ANNA, "Court 1", start, end)["status"] == "pending"


@pytest.mark.parametrize(
    ("content", "key"),
    [
        (b'{"resource": 1, "start_datetime": "soon", "end_datetime": "later"}', "start_datetime"),
        (b'{"resource": 1, "start_datetime": "2026-06-03T10:00:00+02:00"}', "end_datetime"),
    ],
)
def test_a_booking_with_a_good_token_and_a_bad_body_is_400(api: Api, content: bytes, key: str) -> None:
    headers = auth(ANNA) | {"Content-Type": "application/json"}
    response = api.client.post(BOOKINGS, content=content, headers=headers)
    assert response.status_code == 400, response.text
    assert key in response.json()


def test_a_booking_without_a_token_is_401_before_its_body_is_read(api: Api) -> None:
    response = api.client.post(BOOKINGS, content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 401
    assert response.json() == {"detail": "Authentication credentials were not provided."}
