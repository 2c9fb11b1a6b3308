"""Direct users over HTTP: sign-up, token, logout, email confirmation, password reset (CONTRACT 4.5)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from entrypoints.bootstrap import Services
from tests.support.http_fixtures import (
    ANNA,
    ANNA_PASSWORD,
    AUTH,
    BOOKINGS,
    PARTNER,
    Api,
    api,
    auth,
    book,
    clone_postgres,
    database_url,
    mailed,
    mailed_code,
    postgres_template,
    register_confirmed,
    sqlite_template,
    start,
)

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]

UNCONFIRMED = {"detail": "Confirm your email address first."}
CODE_WRONG = {"error": "The code is not correct."}
CODE_GONE = {"error": "The code has expired or is used up; ask for a new one."}
MORNING = ("2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")


def _register(api: Api, email: str, password: str = "ten-chars-or-more", **fields: str) -> dict[str, Any]:
    response = api.client.post(f"{AUTH}/register/", json={"email": email, "password": password, **fields})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _confirm(api: Api, email: str, code: str) -> Any:
    return api.client.post(f"{AUTH}/confirm-email/", json={"email": email, "code": code})


def _wrong(code: str) -> str:
    return f"{(int(code) + 1) % 10 ** len(code):0{len(code)}d}"


def test_register_answers_201_with_a_token_that_works_once_the_address_is_confirmed(api: Api) -> None:
    body = _register(api, "Carla@Example.com", first_name="Carla", last_name="Rossi", language="en")
    assert set(body) == {"user_id", "email", "token"}
    assert body["email"] == "carla@example.com"
    refused = api.client.post(
        BOOKINGS,
        json={"resource": api.resources["Court 1"], "start_datetime": MORNING[0], "end_datetime": MORNING[1]},
        headers=auth(body["token"]),
    )
    assert (refused.status_code, refused.json()) == (403, UNCONFIRMED)
    (message,) = mailed(api, "carla@example.com")
    assert message["Content-Language"] == "en"
    assert message.get_body(preferencelist=("html",)) is not None
    code = mailed_code_of(message)
    assert len(code) >= 6
    confirmed = _confirm(api, "CARLA@example.com", code)
    assert confirmed.status_code == 200, confirmed.text
    assert book(api, body["token"], "Court 1", *MORNING)["status"] == "pending"


def mailed_code_of(message: Any) -> str:
    text = message.get_body(preferencelist=("plain",)).get_content()
    digits = [word for word in text.split() if word.isdigit() and len(word) >= 6]
    assert len(digits) == 1, text
    return str(digits[0])


def test_a_stranger_who_registered_a_customers_address_first_sees_nothing_the_partner_books(api: Api) -> None:
    """Finding 3: the partner's registration maps its customer to the stranger's account."""
    stranger = _register(api, "carla@example.com", password="strangers-password")
    mapped = api.client.post(
        "/api/v1/client/users/register/",
        json={"external_id": "cust-1", "email": "carla@example.com"},
        headers=auth(PARTNER),
    )
    assert mapped.status_code == 201, mapped.text
    assert mapped.json()["user_id"] == stranger["user_id"]  # as the interface requires
    booked = book(
        api, PARTNER, "Court 1", *MORNING, headers={"X-User-External-ID": "cust-1"}, notes="door code 4711"
    )
    token = auth(stranger["token"])
    for response in (
        api.client.get(BOOKINGS, headers=token),
        api.client.get(f"{BOOKINGS}upcoming/", headers=token),
        api.client.get(f"{BOOKINGS}{booked['id']}/", headers=token),
        api.client.post(f"{BOOKINGS}{booked['id']}/cancel/", json={}, headers=token),
    ):
        assert (response.status_code, response.json()) == (403, UNCONFIRMED)
    listed = api.client.get(BOOKINGS, headers=auth(PARTNER, X_User_External_ID="cust-1")).json()
    assert [(b["id"], b["status"]) for b in listed] == [(booked["id"], "pending")]


def test_an_unconfirmed_token_may_still_log_out(api: Api) -> None:
    token = _register(api, "carla@example.com")["token"]
    assert api.client.post(f"{AUTH}/logout/", headers=auth(token)).status_code == 204
    after = api.client.get(BOOKINGS, headers=auth(token))
    assert (after.status_code, after.json()) == (401, {"detail": "Invalid token."})


def test_resend_replaces_the_code(api: Api) -> None:
    token = _register(api, "carla@example.com")["token"]
    first = mailed_code(api, "carla@example.com")
    resent = api.client.post(f"{AUTH}/confirm-email/resend/", json={"email": "carla@example.com"})
    assert resent.status_code == 202, resent.text
    second = mailed_code(api, "carla@example.com")
    if first != second:  # eight random digits: the same twice is possible, if unlikely
        old = _confirm(api, "carla@example.com", first)
        assert (old.status_code, old.json()) == (400, CODE_WRONG)
    assert _confirm(api, "carla@example.com", second).status_code == 200
    assert api.client.get(BOOKINGS, headers=auth(token)).status_code == 200
    used = _confirm(api, "carla@example.com", second)
    assert (used.status_code, used.json()) == (400, CODE_GONE)


@pytest.mark.parametrize("email", ["nobody@example.com", "anna@example.com"])
def test_resend_is_202_and_silent_without_an_account_to_confirm(api: Api, email: str) -> None:
    response = api.client.post(f"{AUTH}/confirm-email/resend/", json={"email": email})
    assert response.status_code == 202
    assert mailed(api, email) == []


def test_a_code_has_five_tries(api: Api) -> None:
    token = _register(api, "carla@example.com")["token"]
    code = mailed_code(api, "carla@example.com")
    for _ in range(5):
        wrong = _confirm(api, "carla@example.com", _wrong(code))
        assert (wrong.status_code, wrong.json()) == (400, CODE_WRONG)
    late = _confirm(api, "carla@example.com", code)
    assert (late.status_code, late.json()) == (400, CODE_GONE)
    assert api.client.get(BOOKINGS, headers=auth(token)).status_code == 403
    # a new code starts with five tries again
    api.client.post(f"{AUTH}/confirm-email/resend/", json={"email": "carla@example.com"})
    assert _confirm(api, "carla@example.com", mailed_code(api, "carla@example.com")).status_code == 200


def test_a_code_expires_after_24_hours(api: Api) -> None:
    _register(api, "carla@example.com")
    code = mailed_code(api, "carla@example.com")
    api.clock.advance(hours=24)
    expired = _confirm(api, "carla@example.com", code)
    assert (expired.status_code, expired.json()) == (400, CODE_GONE)


def test_a_code_is_valid_just_under_24_hours(api: Api) -> None:
    _register(api, "carla@example.com")
    code = mailed_code(api, "carla@example.com")
    api.clock.advance(hours=23, minutes=59)
    assert _confirm(api, "carla@example.com", code).status_code == 200


def test_confirming_an_unknown_address_reads_like_no_code(api: Api) -> None:
    response = _confirm(api, "nobody@example.com", "12345678")
    assert (response.status_code, response.json()) == (400, CODE_GONE)


def test_password_reset_sets_the_password_and_revokes_every_token(api: Api) -> None:
    second = api.client.post(f"{AUTH}/token/", json={"email": "anna@example.com", "password": ANNA_PASSWORD})
    requested = api.client.post(f"{AUTH}/password-reset/", json={"email": "Anna@example.com"})
    assert requested.status_code == 202, requested.text
    (message,) = mailed(api, "anna@example.com")
    assert message["Content-Language"] == "en"
    code = mailed_code_of(message)
    wrong = api.client.post(
        f"{AUTH}/password-reset/confirm/",
        json={"email": "anna@example.com", "code": _wrong(code), "password": "a-new-passphrase"},
    )
    assert (wrong.status_code, wrong.json()) == (400, CODE_WRONG)
    assert api.client.get(BOOKINGS, headers=auth(ANNA)).status_code == 200  # nothing changed yet
    done = api.client.post(
        f"{AUTH}/password-reset/confirm/",
        json={"email": "anna@example.com", "code": code, "password": "a-new-passphrase"},
    )
    assert done.status_code == 200, done.text
    for token in (ANNA, second.json()["token"]):
        assert api.client.get(BOOKINGS, headers=auth(token)).status_code == 401
    old = api.client.post(f"{AUTH}/token/", json={"email": "anna@example.com", "password": ANNA_PASSWORD})
    assert old.status_code == 400
    new = api.client.post(
        f"{AUTH}/token/", json={"email": "anna@example.com", "password": "a-new-passphrase"}
    )
    assert api.client.get(BOOKINGS, headers=auth(new.json()["token"])).status_code == 200


def test_password_reset_confirms_the_address(api: Api) -> None:
    token = _register(api, "carla@example.com")["token"]
    mailed(api, "carla@example.com")  # the confirmation mail, left unused
    api.client.post(f"{AUTH}/password-reset/", json={"email": "carla@example.com"})
    code = mailed_code(api, "carla@example.com")
    body = {"email": "carla@example.com", "code": code, "password": "a-new-passphrase"}
    assert api.client.post(f"{AUTH}/password-reset/confirm/", json=body).status_code == 200
    assert api.client.get(BOOKINGS, headers=auth(token)).status_code == 401  # revoked
    new = api.client.post(
        f"{AUTH}/token/", json={"email": "carla@example.com", "password": "a-new-passphrase"}
    )
    assert api.client.get(BOOKINGS, headers=auth(new.json()["token"])).status_code == 200


def test_password_reset_of_an_unknown_address_is_202_and_sends_nothing(api: Api) -> None:
    response = api.client.post(f"{AUTH}/password-reset/", json={"email": "nobody@example.com"})
    assert response.status_code == 202
    assert mailed(api, "nobody@example.com") == []


def test_a_reset_code_does_not_confirm_an_email_and_the_other_way_round(api: Api) -> None:
    _register(api, "carla@example.com")
    confirm_code = mailed_code(api, "carla@example.com")
    body = {"email": "carla@example.com", "code": confirm_code, "password": "a-new-passphrase"}
    refused = api.client.post(f"{AUTH}/password-reset/confirm/", json=body)
    assert (refused.status_code, refused.json()) == (400, CODE_GONE)
    assert _confirm(api, "carla@example.com", confirm_code).status_code == 200


def test_register_confirmed_helper_gives_a_working_token(api: Api) -> None:
    token = register_confirmed(api, "dora@example.com")["token"]
    assert api.client.get(BOOKINGS, headers=auth(token)).status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("register/", {"email": "carl@example.com", "password": " " * 12}, "password"),
        ("register/", {"email": "carl@example.com.", "password": "ten-chars-or-more"}, "email"),
        ("register/", {"email": "carl@exa mple.com", "password": "ten-chars-or-more"}, "email"),
        ("register/", {"email": "carl@example.com\u0007", "password": "ten-chars-or-more"}, "email"),
        ("token/", {"email": "anna@example.com.", "password": ANNA_PASSWORD}, "email"),
        ("password-reset/", {"email": "anna@example.com."}, "email"),
        ("confirm-email/resend/", {"email": "anna@@example.com"}, "email"),
        ("confirm-email/", {"email": "anna@example", "code": "12345678"}, "email"),
        (
            "password-reset/confirm/",
            {"email": "anna@example.com", "code": "12345678", "password": " " * 12},
            "password",
        ),
    ],
)
def test_emails_and_passwords_are_checked(api: Api, path: str, body: dict[str, str], field: str) -> None:
    response = api.client.post(f"{AUTH}/{path}", json=body)
    assert response.status_code == 400, response.text
    assert list(response.json()) == [field]


def test_a_clients_user_registration_checks_the_email(api: Api) -> None:
    response = api.client.post(
        "/api/v1/client/users/register/",
        json={"external_id": "cust-1", "email": "carl@example.com."},
        headers=auth(PARTNER),
    )
    assert response.status_code == 400, response.text
    assert list(response.json()) == ["email"]


@pytest.fixture
def throttled(database_url: str) -> Iterator[Api]:
    def customize(services: Services) -> Services:
        return replace(services, settings=replace(services.settings, login_rate_limit_per_minute=2))

    yield from start(database_url, customize=customize)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("password-reset/", {"email": "anna@example.com"}),
        (
            "password-reset/confirm/",
            {"email": "anna@example.com", "code": "1", "password": "a-new-passphrase"},
        ),
    ],
)
def test_password_resets_are_throttled_like_login_whatever_the_token(
    throttled: Api, path: str, body: dict[str, str]
) -> None:
    statuses = [
        throttled.client.post(f"{AUTH}/{path}", json=body, headers=auth(f"made-up-{i}")).status_code
        for i in range(3)
    ]
    assert statuses[2] == 429, statuses


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
