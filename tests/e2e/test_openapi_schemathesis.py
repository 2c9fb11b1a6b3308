"""Schemathesis against the served ``/schema/openapi.json`` of a real ``booking serve`` on SQLite.

Three callers: anonymous, a user token, and a client token acting for a mapped user. Every answer
must be no server error, a status the operation documents, a body its schema accepts, with the
documented content type and headers. Bounded (examples per operation below, derandomized) so the
module takes a few minutes on a busy machine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode, checks
from schemathesis.config import SchemathesisConfig

from tests.support.http_fixtures import ANNA, CATALOG, PARTNER, auth
from tests.support.server import serving

pytestmark = pytest.mark.slow

#: Per operation, caller and kind of data (valid, invalid); raise it for a deeper run.
EXAMPLES_PER_OPERATION = int(os.environ.get("BOOKING_SCHEMATHESIS_EXAMPLES", "40"))
PARTNER_USER = "st-partner-user"
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.response_schema_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
]
CALLERS: dict[str, dict[str, str]] = {
    "anonymous": {},
    "user": auth(ANNA),
    "client": auth(PARTNER, X_User_External_ID=PARTNER_USER),
}
_SETTINGS = settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is reported as found
)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``booking serve`` on a seeded SQLite catalog, with one user mapped for the partner client."""
    tmp: Path = tmp_path_factory.mktemp("schemathesis")
    with serving(f"sqlite:///{tmp / 'booking.sqlite3'}", CATALOG, tmp, workers=1) as base:
        mapped = httpx.post(
            f"{base}/api/v1/client/users/register/",
            json={"external_id": PARTNER_USER, "email": "st-user@example.com"},
            headers=auth(PARTNER),
        )
        assert mapped.status_code == 201, mapped.text
        yield base


@pytest.fixture(scope="module")
def api_schema(live_server: str) -> Any:
    """The document as the server serves it."""
    config = SchemathesisConfig.from_dict({"phases": {"stateful": {"enabled": False}}})
    return schemathesis.openapi.from_url(f"{live_server}/schema/openapi.json", config=config)


def _failures(api_schema: Any, caller: str) -> list[str]:
    """Run every operation with positive and negative data as ``caller``; what failed, one line each."""
    failures: list[str] = []
    for result in api_schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @_SETTINGS
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case: Any) -> None:
                # the caller's credentials replace whatever the case generated for the same headers
                case.call_and_validate(headers=CALLERS[caller], checks=CHECKS, timeout=30)

            try:
                run()
            except Unsatisfiable:  # nothing to send wrong: no parameters, no body
                pass
            except (Exception, BaseExceptionGroup) as error:  # every operation is tried, then all reported
                failures.append(f"{operation.label} ({mode.value}): {error}")
    return failures


@pytest.mark.parametrize("caller", list(CALLERS))
def test_every_answer_is_documented(api_schema: Any, caller: str) -> None:
    failures = _failures(api_schema, caller)
    assert not failures, "\n\n".join(failures)
