"""The HTTP edge itself: health, metrics, OpenAPI, routing, error shapes, body limit, rate limit."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
from litestar.testing import TestClient

from booking_core.errors import StorageUnavailable
from booking_core.usecases.deps import Deps
from entrypoints.bootstrap import Services
from entrypoints.config import Settings
from entrypoints.http.app import create_app
from entrypoints.http.inputs import NULL_CHARACTERS
from tests.support.http_fixtures import (
    ANNA,
    BEN,
    BOOKINGS,
    PARTNER,
    Api,
    auth,
    loaded_sqlite_url,
    sqlite_template,
    start,
)

__all__ = ["loaded_sqlite_url", "sqlite_template"]  # fixtures used by name

NOT_PROVIDED = {"detail": "Authentication credentials were not provided."}


@pytest.fixture
def api(loaded_sqlite_url: str) -> Iterator[Api]:
    yield from start(loaded_sqlite_url)


@dataclass
class _StubServices:
    settings: Settings
    deps: Deps
    healthy: bool

    def ping(self) -> bool:
        if not self.healthy:
            raise ConnectionError("database down")
        return True

    def version_probe(self) -> None:
        return None


def test_health_answers_ok_when_the_database_answers(api: Api) -> None:
    response = api.client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.parametrize("path", ["/api/v1/", "/api/v1"])
def test_api_index_links_the_collections(api: Api, path: str) -> None:
    response = api.client.get(path)
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == "v1"
    assert api.client.get(body["resources"]).status_code == 200
    assert api.client.get(body["schema"]).status_code == 200


def test_health_answers_503_when_the_database_does_not(api: Api) -> None:
    stub = _StubServices(settings=Settings(), deps=api.services.deps, healthy=False)
    with TestClient(create_app(stub)) as client:
        response = client.get("/health")
    assert response.status_code == 503
    assert response.json()["status"] != "ok"


def test_metrics_are_prometheus_text(api: Api) -> None:
    api.client.get("/api/v1/resources/")
    response = api.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert "booking_requests_total" in response.text


def test_openapi_document_and_interactive_page(api: Api) -> None:
    document = api.client.get("/schema/openapi.json")
    assert document.status_code == 200
    spec = document.json()
    assert spec["openapi"].startswith("3.1")
    assert {"/api/v1/bookings/", "/api/v1/bookings/{booking_id}/cancel/", "/health"} <= set(spec["paths"])
    assert {"UserToken", "ClientToken"} <= set(spec["components"]["securitySchemes"])
    page = api.client.get("/schema")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/resources/",
        "/api/v1/resources",
        "/api/v1/resources/{court}/",
        "/api/v1/resources/{court}",
        "/api/v1/resources/{court}/availability/?start_date=2026-06-02&end_date=2026-06-02",
        "/api/v1/resources/{court}/availability?start_date=2026-06-02&end_date=2026-06-02",
    ],
)
def test_paths_answer_with_and_without_trailing_slash(api: Api, path: str) -> None:
    response = api.client.get(path.format(court=api.resources["Court 1"]))
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("query", "status"),
    [("?q=a%00b", 400), ("?q%00=1", 400), ("?q=a%2500b", 200), ("?q=%250", 200)],
)
def test_a_null_character_anywhere_in_the_query_is_400(api: Api, query: str, status: int) -> None:
    # "%2500" is the text "%00", not a NUL
    response = api.client.get(f"/api/v1/{query}")
    assert response.status_code == status, response.text
    if status == 400:
        assert response.json() == {"detail": NULL_CHARACTERS}


def test_unknown_route_is_404_json(api: Api) -> None:
    response = api.client.get("/api/v1/nothing-here/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


@pytest.mark.parametrize("path", ["/api/v1/resources/abc/", "/api/v1/bookings/not-a-uuid/"])
def test_malformed_path_parameters_are_404(api: Api, path: str) -> None:
    response = api.client.get(path, headers=auth(ANNA))
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_wrong_method_is_405_json(api: Api) -> None:
    response = api.client.delete("/api/v1/resources/")
    assert response.status_code == 405
    assert "detail" in response.json()


def test_missing_token_is_401(api: Api) -> None:
    response = api.client.get(BOOKINGS)
    assert response.status_code == 401
    assert response.json() == NOT_PROVIDED
    assert response.headers["www-authenticate"] == "Token"


@pytest.mark.parametrize(
    ("header", "body"),
    [
        ("Token nonsense", {"detail": "Invalid token."}),
        ("Token", {"detail": "Invalid token header. No credentials provided."}),
        ("Bearer user-token-anna", NOT_PROVIDED),
    ],
)
def test_bad_authorization_header_is_401(api: Api, header: str, body: dict[str, str]) -> None:
    response = api.client.get(BOOKINGS, headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json() == body


def test_invalid_token_on_a_browsing_endpoint_is_401(api: Api) -> None:
    response = api.client.get("/api/v1/resources/", headers=auth("nonsense"))
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token."}


def test_unauthenticated_request_is_401_before_its_body_is_read(api: Api) -> None:
    response = api.client.post(BOOKINGS, content=b"{not json")
    assert response.status_code == 401


def _post(api: Api, content: bytes) -> Any:
    return api.client.post(
        BOOKINGS, content=content, headers={**auth(ANNA), "Content-Type": "application/json"}
    )


def test_malformed_json_is_400_json(api: Api) -> None:
    response = _post(api, b'{"resource": 1,')
    assert response.status_code == 400
    assert isinstance(response.json()["detail"], str)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, {"start_datetime": ["This field is required."]}),
        (
            {"resource": "one", "start_datetime": "2026-06-03T10:00:00+02:00", "end_datetime": "x"},
            {"resource": ["A valid integer is required."]},
        ),
        (
            {"resource": 1, "start_datetime": "2026-06-03T10:00:00", "end_datetime": "2026-06-03T11:00:00Z"},
            {"start_datetime": ["Enter an ISO 8601 date-time with a UTC offset"]},
        ),
        (
            {"resource": 1, "start_datetime": "tomorrow", "end_datetime": "2026-06-03T11:00:00Z"},
            {"start_datetime": ["Enter an ISO 8601 date-time with a UTC offset"]},
        ),
        (
            {
                "resource": 1,
                "start_datetime": "2026-06-03T10:00:00Z",
                "end_datetime": "2026-06-03T11:00:00Z",
                "participant_count": "two",
            },
            {"participant_count": ["A valid integer is required."]},
        ),
        ([1, 2], {"non_field_errors": ["Invalid data. Expected a JSON object."]}),
    ],
)
def test_invalid_bodies_are_400_keyed_by_field(api: Api, body: Any, expected: dict[str, list[str]]) -> None:
    """Each message starts with the expected text."""
    response = api.client.post(BOOKINGS, json=body, headers=auth(ANNA))
    assert response.status_code == 400
    answer = response.json()
    assert answer.keys() == expected.keys()
    for key, messages in expected.items():
        assert len(answer[key]) == len(messages)
        for got, want in zip(answer[key], messages, strict=True):
            assert got.startswith(want)


def test_empty_body_is_400(api: Api) -> None:
    response = _post(api, b"")
    assert response.status_code == 400
    assert response.json() == {"non_field_errors": ["No data provided"]}


def test_body_over_one_megabyte_is_413_json(api: Api) -> None:
    response = _post(api, b'{"notes": "' + b"x" * (1024 * 1024 + 10) + b'"}')
    assert response.status_code == 413
    assert "detail" in response.json()


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/api/v1/resources/?venue=abc", "venue"),
        ("/api/v1/resources/?is_active=maybe", "is_active"),
        (
            "/api/v1/resources/availability/?resource_id=abc&start_date=2026-06-02&end_date=2026-06-02",
            "resource_id",
        ),
        ("/api/v1/client/users/mappings/?limit=abc", "limit"),
        ("/api/v1/client/users/mappings/?is_active=maybe", "is_active"),
        ("/api/v1/client/users/lookup/", "external_id"),
    ],
)
def test_bad_query_parameters_are_400_naming_the_parameter(api: Api, path: str, field: str) -> None:
    response = api.client.get(path, headers=auth(PARTNER))
    assert response.status_code == 400, response.text
    answer = response.json()
    assert list(answer) == ["error"]  # CONTRACT 4.8: {"error": "..."} naming the parameter
    assert answer["error"].startswith(f"{field}: ")


def test_unexpected_error_is_500_without_traceback(api: Api) -> None:
    def broken_uow() -> Any:
        raise RuntimeError("secret internals")

    stub = _StubServices(
        settings=Settings(), deps=replace(api.services.deps, uow=broken_uow, reads=broken_uow), healthy=True
    )
    with TestClient(create_app(stub), raise_server_exceptions=False) as client:
        response = client.get("/api/v1/resources/")
    assert response.status_code == 500
    assert response.json() == {"error": "internal server error"}
    assert "secret" not in response.text


def _storage_down(api: Api) -> TestClient[Any]:
    """A client of the app whose every unit of work fails as an unreachable database does."""

    def down() -> Any:
        raise StorageUnavailable("connection refused")

    stub = _StubServices(
        settings=Settings(), deps=replace(api.services.deps, uow=down, reads=down), healthy=True
    )
    return TestClient(create_app(stub))


def test_storage_failure_is_503(api: Api) -> None:
    with _storage_down(api) as client:
        response = client.get("/api/v1/resources/")
    assert response.status_code == 503
    assert "error" in response.json()


def _limited(url: str, per_minute: int) -> Iterator[Api]:
    def with_limit(services: Services) -> Services:
        return replace(services, settings=replace(services.settings, rate_limit_per_minute=per_minute))

    return start(url, customize=with_limit)


def test_rate_limit_answers_429_with_retry_after(loaded_sqlite_url: str) -> None:
    for api in _limited(loaded_sqlite_url, 3):
        # a token counts on its own key from its first request (that one counts on the address too)
        for _ in range(3):
            assert api.client.get(BOOKINGS, headers=auth(ANNA)).status_code == 200
        refused = api.client.get(BOOKINGS, headers=auth(ANNA))
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert "detail" in refused.json()
        # counted per token: another caller still gets through, as do probes and scrapers
        assert api.client.get(BOOKINGS, headers=auth(BEN)).status_code == 200
        assert api.client.get("/api/v1/resources/").status_code == 200
        for _ in range(5):
            assert api.client.get("/health").status_code == 200
            assert api.client.get("/metrics").status_code == 200


def test_rate_limit_counts_anonymous_callers_by_address(loaded_sqlite_url: str) -> None:
    for api in _limited(loaded_sqlite_url, 2):
        assert api.client.get(BOOKINGS, headers=auth(ANNA)).status_code == 200  # known from now on
        assert api.client.get("/api/v1/resources/").status_code == 200
        assert api.client.get("/api/v1/resources/").status_code == 429
        assert api.client.get(BOOKINGS, headers=auth(ANNA)).status_code == 200


def test_rate_limit_zero_switches_it_off(loaded_sqlite_url: str) -> None:
    for api in _limited(loaded_sqlite_url, 0):
        for _ in range(20):
            assert api.client.get("/api/v1/resources/").status_code == 200


def test_a_booking_whose_token_cannot_be_checked_is_503(api: Api) -> None:
    """Booking creation checks its token late; when the database is gone by then, that is a 503."""
    with _storage_down(api) as client:
        good = client.post(
            BOOKINGS,
            json={
                "resource": 1,
                "start_datetime": "2026-06-03T10:00:00+02:00",
                "end_datetime": "2026-06-03T11:00:00+02:00",
            },
            headers=auth(ANNA),
        )
        malformed = client.post(
            BOOKINGS, content=b"{not json", headers=auth(ANNA) | {"Content-Type": "application/json"}
        )
    assert good.status_code == 503
    assert malformed.status_code == 503  # the token check comes first, and it could not be made
    assert "error" in malformed.json()
