"""The served OpenAPI document tells the truth: a valid document, who may call each operation,
which headers act for a user, the real error bodies, times of day, required dates and examples.

Schemathesis (``test_openapi_schemathesis``) checks the answers of a live server against it; here
the document itself is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from openapi_spec_validator import validate

from tests.support.http_fixtures import (  # noqa: F401 - fixtures used by name
    ANNA,
    PARTNER,
    Api,
    auth,
    book,
    loaded_sqlite_url,
    sqlite_template,
    start,
)

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture
def api(request: pytest.FixtureRequest) -> Iterator[Api]:
    """The app on a fresh SQLite database: the document does not depend on the storage."""
    yield from start(request.getfixturevalue("loaded_sqlite_url"))


@pytest.fixture
def document(api: Api) -> dict[str, Any]:
    response = api.client.get("/schema/openapi.json")
    assert response.status_code == 200
    spec: dict[str, Any] = response.json()
    return spec


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator of ``schema`` in which the document's ``#/components/...`` references resolve."""
    rooted = {**schema, "components": document["components"]}
    return jsonschema.Draft202012Validator(
        rooted, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def _response_schema(document: dict[str, Any], path: str, method: str, status: int) -> dict[str, Any]:
    schema: dict[str, Any] = document["paths"][path][method]["responses"][str(status)]["content"][
        "application/json"
    ]["schema"]
    return schema


def test_the_document_passes_openapi_spec_validator(document: dict[str, Any]) -> None:
    validate(document)


def test_security_is_stated_per_operation(document: dict[str, Any]) -> None:
    assert "security" not in document  # no document-wide requirement that every operation inherits
    schemes = document["components"]["securitySchemes"]
    assert {name: (s["type"], s["in"], s["name"]) for name, s in schemes.items()} == {
        "UserToken": ("apiKey", "header", "Authorization"),
        "ClientToken": ("apiKey", "header", "Authorization"),
        "StaffToken": ("apiKey", "header", "Authorization"),
    }
    security = {(path, method): op.get("security") for path, method, op in _operations(document)}
    browse = [{}, {"UserToken": []}, {"ClientToken": []}]
    assert security[("/api/v1/resources/", "get")] == browse
    assert security[("/api/v1/resources/availability/", "get")] == browse
    assert security[("/api/v1/bookings/", "post")] == [{"UserToken": []}, {"ClientToken": []}]
    assert security[("/api/v1/auth/logout/", "post")] == [{"UserToken": []}]
    assert security[("/api/v1/auth/token/", "post")] is None
    for (path, _), requirement in security.items():
        if path.startswith("/api/v1/client/"):
            assert requirement == [{"ClientToken": []}], path
        if path.startswith("/api/v1/operator/"):
            assert requirement == [{"StaffToken": []}], path


def test_every_operator_operation_needs_a_staff_token_and_documents_its_refusals(
    document: dict[str, Any],
) -> None:
    operator = [
        (path, method, op)
        for path, method, op in _operations(document)
        if path.startswith("/api/v1/operator/")
    ]
    assert len(operator) >= 27  # every path of CONTRACT 7
    for path, method, op in operator:
        assert op["security"] == [{"StaffToken": []}], (method, path)
        assert {"401", "403"} <= set(op["responses"]), (method, path)
        for status in ("401", "403"):
            assert op["responses"][status]["content"]["application/json"]["schema"], (method, path, status)
    schemas = document["components"]["schemas"]
    choices = {
        ("StaffBookingIn", "payment"): ["at_venue", "online"],
        ("StaffCancelIn", "refund"): ["policy", "full", "none", "amount"],
        ("StaffCancelIn", "reason"): ["user_request", "weather", "other", None],
        ("RecordPaymentIn", "method"): ["cash", "card_terminal", "other"],
        ("BlockIn", "on_conflict"): ["refuse", "cancel"],
    }
    for (struct, field), expected in choices.items():
        assert schemas[struct]["properties"][field]["enum"] == expected, (struct, field)


def test_user_headers_and_idempotency_key_are_parameters_where_they_apply(document: dict[str, Any]) -> None:
    for path, method, op in _operations(document):
        headers = {p["name"] for p in op.get("parameters", []) if p["in"] == "header"}
        acts_for_a_user = path.startswith("/api/v1/bookings/")
        assert ({"X-User-External-ID", "X-User-ID"} <= headers) is acts_for_a_user, (method, path)
        idempotent = op["operationId"] in {"create_booking", "create_payment_intent", "create_staff_booking"}
        assert ("Idempotency-Key" in headers) is idempotent, (method, path)
    webhook = document["paths"]["/webhooks/provider/"]["post"]["parameters"]
    assert [(p["name"], p["required"]) for p in webhook] == [("Stripe-Signature", True)]


def test_no_time_of_day_is_called_a_duration(document: dict[str, Any]) -> None:
    assert '"duration"' not in str(document).replace("'", '"')
    start_time = document["components"]["schemas"]["AvailableRangeOut"]["properties"]["start_time"]
    assert _validator(document, start_time).is_valid("08:00:00")
    assert not _validator(document, start_time).is_valid("PT8H")


def test_required_and_optional_query_parameters(document: dict[str, Any]) -> None:
    for path in ("/api/v1/resources/availability/", "/api/v1/resources/{resource_id}/availability/"):
        params = {p["name"]: p["required"] for p in document["paths"][path]["get"]["parameters"]}
        assert params["start_date"] is params["end_date"] is True
    listing = {p["name"]: p["required"] for p in document["paths"]["/api/v1/resources/"]["get"]["parameters"]}
    assert not any(listing.values())
    for _, _, op in _operations(document):
        for param in op.get("parameters", []):
            if not param["required"]:  # left out when not wanted, never sent as null
                assert "oneOf" not in param["schema"], (op["operationId"], param["name"])


def test_both_bodies_of_a_created_booking_are_described(api: Api, document: dict[str, Any]) -> None:
    schema = _response_schema(document, "/api/v1/bookings/", "post", 201)
    short = document["components"]["schemas"]["ClientBookingCreated"]
    assert len(short["required"]) == 12
    mapped = api.client.post(
        "/api/v1/client/users/register/",
        json={"external_id": "u-1", "email": "u1@example.com"},
        headers=auth(PARTNER),
    )
    assert mapped.status_code == 201
    as_client = book(
        api,
        PARTNER,
        "Court 1",
        "2026-06-03T10:00:00+02:00",
        "2026-06-03T11:00:00+02:00",
        headers={"X-User-External-ID": "u-1"},
    )
    as_user = book(api, ANNA, "Court 1", "2026-06-03T12:00:00+02:00", "2026-06-03T13:00:00+02:00")
    assert "duration_minutes" not in as_client
    _validator(document, schema).validate(as_client)
    _validator(document, schema).validate(as_user)


@pytest.mark.parametrize(
    ("request_args", "status", "path", "method"),
    [
        (
            {"json": {"resource": 1, "start_datetime": "x", "end_datetime": "y"}},
            400,
            "/api/v1/bookings/",
            "post",
        ),
        (
            {"content": b"{", "headers": {"Content-Type": "application/json"}},
            400,
            "/api/v1/bookings/",
            "post",
        ),
        (
            {
                "json": {
                    "resource": 1,
                    "start_datetime": "2026-06-03T10:10:00+02:00",
                    "end_datetime": "2026-06-03T11:10:00+02:00",
                }
            },
            400,
            "/api/v1/bookings/",
            "post",
        ),
        ({"json": {}, "headers": auth(PARTNER)}, 400, "/api/v1/bookings/", "post"),
        ({"json": {}, "headers": {"Authorization": "Token nope"}}, 401, "/api/v1/bookings/", "post"),
    ],
    ids=["field-keyed", "malformed-json", "non-field-rule", "client-without-user", "bad-token"],
)
def test_real_error_bodies_match_the_document(
    api: Api,
    document: dict[str, Any],
    request_args: dict[str, Any],
    status: int,
    path: str,
    method: str,
) -> None:
    args = {**request_args, "headers": {**auth(ANNA), **request_args.get("headers", {})}}
    response = api.client.request(method.upper(), path, **args)
    assert response.status_code == status, response.text
    _validator(document, _response_schema(document, path, method, status)).validate(response.json())
    # what the document described before: Litestar's own {status_code, detail} validation body
    litestar_default = {"status_code": 400, "detail": "Bad Request"}
    assert not _validator(document, _response_schema(document, path, method, 400)).is_valid(litestar_default)


def test_examples_match_their_schemas(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    with_examples = {name: s for name, s in schemas.items() if s.get("examples")}
    assert {"CreateBookingIn", "ClientBookingCreated", "PaymentIntentOut", "AvailabilityOut"} <= set(
        with_examples
    )
    for name, schema in with_examples.items():
        for example in schema["examples"]:
            _validator(document, {"$ref": f"#/components/schemas/{name}"}).validate(example)
    for path, method, op in _operations(document):
        for status, response in op["responses"].items():
            for media in (response.get("content") or {}).values():
                for example in (media.get("examples") or {}).values():
                    _validator(document, media["schema"]).validate(example["value"]), (path, method, status)
