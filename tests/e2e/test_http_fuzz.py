"""Fuzzing the HTTP edge: whatever arrives at any endpoint, the answer is a 2xx or 4xx with JSON.

Hypothesis sends the classes of hostile input the service was once caught out by (absurd dates,
integers beyond 64 bits, deep JSON, bytes that are not UTF-8, over-long strings) and what it makes
up itself: random bytes, odd content types and unicode, made-up tokens, path ids of every shape.
The routes come from the application itself, so a new endpoint is fuzzed from the day it exists.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.routes import HTTPRoute
from litestar.testing import TestClient

from booking_core.memory import PlainPasswords
from entrypoints.bootstrap import Services
from tests.support.http_fixtures import (
    ANNA,
    BEN,
    OTHER,
    PARTNER,
    clone_postgres,
    postgres_template,
    sqlite_template,
    start,
)

__all__ = ["clone_postgres", "postgres_template", "sqlite_template"]

#: Not JSON by design: the metrics' text format, the OpenAPI pages and the console's HTML.
NOT_JSON = re.compile(r"^/(metrics|schema|console)")
INT64 = 2**63


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str  # with {name:type} placeholders


def _endpoints(app: Litestar) -> list[Endpoint]:
    found = [
        Endpoint(method, route.path)
        for route in app.routes
        if isinstance(route, HTTPRoute) and not NOT_JSON.match(route.path)
        for method in sorted(route.methods - {"OPTIONS"})
    ]
    assert len(found) > 20, found
    return found


# --------------------------------------------------------------------------- strategies

HUGE_INTS = st.sampled_from([INT64, INT64 - 1, -INT64 - 1, 10**30, -(10**30), 2**31, 0, -1])
INTEGERS = st.integers() | HUGE_INTS
ODD_TEXT = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ["", " ", "\u202e", "\ufeff", "\U0001d518\U0001d52b", "é" * 300, "x" * 1100, "null", "[]",
     "\\u0000", "%ff"]
)  # fmt: skip
GOOD_DATETIMES = ["2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00", "2026-06-03T09:00:00Z"]
DATETIMES = st.sampled_from(
    [*GOOD_DATETIMES, "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "2026-06-03T10:00:00+14:30",
     "2026-06-03T10:00:00+23:59", "2026-06-03T10:00:00+01:00:30", "2026-W23-3T10:00:00+02:00",
     "20260603T100000+0200", "2026-06-03T10:00:00"]
)  # fmt: skip
DATES = st.sampled_from(
    ["2026-06-02", "2026-06-08", "0001-01-01", "9999-12-31", "1999-12-31", "20261201", "2026-W48-2",
     "2026-02-30"]
)  # fmt: skip
MONTHS = st.sampled_from(["2026-06", "0000-01", "1999-12", "2026-13", "2026-1"])
SCALARS = st.none() | st.booleans() | INTEGERS | st.floats() | ODD_TEXT | DATES | DATETIMES
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ODD_TEXT, inner, max_size=4),
    max_leaves=12,
)
IDS = st.sampled_from([1, 2, 4]) | INTEGERS
EXTERNAL_IDS = st.sampled_from(["u1", "r1", "v1", "x" * 255, "x" * 256]) | ODD_TEXT
EMAILS = (
    st.sampled_from(["anna@example.com", "new@example.com", "a" * 250 + "@x.de", "no-at-sign"]) | ODD_TEXT
)
#: Each field with plausible values (so requests get past the first check) and hostile ones.
FIELDS = {
    "resource": IDS,
    "resource_external_id": EXTERNAL_IDS,
    "start_datetime": DATETIMES,
    "end_datetime": DATETIMES,
    "participant_count": IDS,
    "notes": st.sampled_from(["", "n" * 1000, "n" * 1001]) | ODD_TEXT,
    "reason": st.sampled_from(["weather", "expired", "x" * 50]),
    "email": EMAILS,
    "password": st.sampled_from(["anna-long-passphrase", "short", "p" * 1025]) | ODD_TEXT,
    "first_name": st.sampled_from(["Eva", "f" * 151]) | ODD_TEXT,
    "last_name": ODD_TEXT,
    "language": st.sampled_from(["de", "en", "fr"]),
    "external_id": EXTERNAL_IDS,
    "resource_id": IDS,
    "venue_id": IDS,
    "external_data": JSON_VALUES,
}
QUERY = {
    "venue": IDS, "activity": IDS, "resource_id": IDS, "limit": IDS, "offset": IDS,
    "venue_slug": ODD_TEXT, "is_active": st.sampled_from(["true", "false", "maybe"]),
    "resource_external_id": EXTERNAL_IDS, "external_id": EXTERNAL_IDS, "venue_external_id": EXTERNAL_IDS,
    "start_date": DATES, "end_date": DATES, "month": MONTHS,
    "approval_status": st.sampled_from(["pending", "x"]),
}  # fmt: skip
SHAPED = st.fixed_dictionaries({}, optional={name: values | SCALARS for name, values in FIELDS.items()})


@st.composite
def _nested(draw: st.DrawFn) -> bytes:
    depth = draw(st.sampled_from([31, 32, 33, 1000, 100_000]))
    opener = draw(st.sampled_from([b"[", b'{"a":']))
    closer = b"]" if opener == b"[" else b"}"
    return opener * depth + (b"1" + closer * depth if draw(st.booleans()) else b"")


BODIES = st.one_of(
    SHAPED.map(lambda v: json.dumps(v).encode()),
    SHAPED.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    st.none(),
    st.binary(max_size=200),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    _nested(),
    st.sampled_from([b'{"email": "\xff\xfe"}', b"\xc3\x28", b'"\\ud800"', b'{"notes": "\\ud800"}', b"{}"]),
)
CONTENT_TYPES = st.sampled_from(
    ["application/json", "application/json", "text/plain", "application/x-www-form-urlencoded",
     "multipart/form-data", "application/json; charset=latin-1", "application/xml", "*/*"]
)  # fmt: skip
HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=300)
#: Header values are bytes on the wire; beyond ASCII they are Latin-1 or just not text.
HEADER_BYTES = st.lists(st.integers(0x20, 0xFF).filter(lambda b: b != 0x7F), max_size=40).map(bytes)
TOKENS = st.sampled_from([f"Token {t}" for t in (ANNA, BEN, PARTNER, PARTNER, OTHER)])
BAD_TOKENS = (
    st.sampled_from(["Token", "Token a b", "Bearer x"])
    | HEADER_TEXT.map("Token {}".format)
    | HEADER_BYTES.map(lambda b: b"Token " + b)
)
# mostly valid, to reach the handlers (one_of draws its first branches far more often than its last)
AUTHORIZATION = st.integers(0, 4).flatmap(lambda n: BAD_TOKENS if n == 4 else TOKENS)
#: A user token that logged out would answer 401 for the rest of the run.
LOGOUT_AUTHORIZATION = st.sampled_from([f"Token {PARTNER}", f"Token {OTHER}"]) | BAD_TOKENS
OPTIONAL_HEADERS = {
    "Content-Type": CONTENT_TYPES,
    "X-User-External-ID": EXTERNAL_IDS.filter(str.isascii).filter(str.isprintable),
    "X-User-ID": HEADER_TEXT | HEADER_BYTES,
    "Idempotency-Key": HEADER_TEXT | HEADER_BYTES,
}


@st.composite
def _path_value(draw: st.DrawFn, kind: str) -> str:
    value = draw(st.uuids() if kind == "uuid" else IDS) if draw(st.integers(0, 3)) else draw(ODD_TEXT)
    return quote(str(value), safe="")


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str | bytes]
    body: bytes | None


def _calls(endpoints: list[Endpoint]) -> st.SearchStrategy[Call]:
    @st.composite
    def call(draw: st.DrawFn) -> Call:
        endpoint = draw(st.sampled_from(endpoints))
        method = (
            endpoint.method if draw(st.integers(0, 9)) else draw(st.sampled_from(["PUT", "DELETE", "HEAD"]))
        )
        path = re.sub(r"\{\w+:(\w+)\}", lambda m: draw(_path_value(m[1])), endpoint.path)
        path = path + "/" if draw(st.integers(0, 3)) else path
        names = st.sampled_from(sorted(QUERY))
        query = [(n, str(draw(QUERY[n] | SCALARS))) for n in draw(st.lists(names, max_size=4))]
        query += draw(st.lists(st.tuples(ODD_TEXT, ODD_TEXT), max_size=1))
        authorization = LOGOUT_AUTHORIZATION if endpoint.path.endswith("/logout") else AUTHORIZATION
        headers: dict[str, str | bytes] = (
            {} if draw(st.integers(0, 9)) == 9 else {"Authorization": draw(authorization)}
        )
        for name, values in OPTIONAL_HEADERS.items():
            if draw(st.integers(0, 3)) == 0:
                headers[name] = draw(values)
        return Call(method, path, query, headers, draw(BODIES) if method in {"POST", "PUT"} else None)

    return call()


# --------------------------------------------------------------------------- the property


def _services(services: Services) -> Services:
    # a cheap hasher (sign-ups and logins are fuzzed too), and no limits to answer 429 instead
    settings_ = replace(services.settings, rate_limit_per_minute=0, login_rate_limit_per_minute=0)
    return replace(services, settings=settings_, deps=replace(services.deps, passwords=PlainPasswords()))


def _check(client: TestClient[Any], call: Call) -> None:
    response = client.request(
        call.method, call.path, params=call.query, headers=call.headers, content=call.body
    )
    where = f"{call.method} {call.path} {call.query} {call.headers} {call.body!r:.300}"
    assert response.status_code < 500, f"{response.status_code} {response.text[:300]} for {where}"
    if response.status_code == 204 or call.method == "HEAD":
        return
    assert response.headers.get("content-type", "").startswith("application/json"), where
    json.loads(response.content)


def _fuzz(client: TestClient[Any], endpoints: list[Endpoint], examples: int) -> None:
    @settings(
        max_examples=examples,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(call=_calls(endpoints))
    def fuzz(call: Call) -> None:
        _check(client, call)

    fuzz()


@pytest.fixture
def sqlite_copy(sqlite_template: Path, tmp_path: Path) -> str:
    target = tmp_path / "fuzz.sqlite3"
    shutil.copyfile(sqlite_template, target)
    return f"sqlite:///{target}"


def _run(url: str, examples: int) -> Iterator[None]:
    for api in start(url, customize=_services):
        _fuzz(api.client, _endpoints(api.client.app), examples)
        yield


def test_fuzzed_requests_get_2xx_or_4xx_json_on_sqlite(sqlite_copy: str) -> None:
    for _ in _run(sqlite_copy, 300):
        pass


@pytest.mark.postgres
def test_fuzzed_requests_get_2xx_or_4xx_json_on_postgres(clone_postgres: str) -> None:
    for _ in _run(clone_postgres, 150):
        pass
