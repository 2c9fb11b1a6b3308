"""``GET /metrics`` shows how much email is pending and how much has failed."""

from __future__ import annotations

import re

from booking_core.memory import InMemoryMailer
from booking_core.usecases.email_notifier import email_only
from booking_core.usecases.outbox import dispatch_outbox
from tests.support.http_fixtures import (
    ANNA,
    Api,
    book,
    clone_postgres,
    database_url,
    pay,
    postgres_template,
    sqlite_template,
)
from tests.support.http_fixtures import api as api

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]  # fixtures


def _gauge(api: Api, name: str) -> float:
    text = api.client.get("/metrics").text
    found = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    assert found, text[-600:]
    return float(found.group(1))


def test_metrics_count_pending_and_failed_mail(api: Api) -> None:
    assert _gauge(api, "booking_outbox_pending_messages") == 0
    created = book(api, ANNA, "Court 1", "2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")
    pay(api, ANNA, created["id"])
    assert _gauge(api, "booking_outbox_pending_messages") == 2
    dispatch_outbox(api.services.deps, email_only(InMemoryMailer(refuse=True)))
    assert _gauge(api, "booking_outbox_pending_messages") == 0
    assert _gauge(api, "booking_outbox_failed_messages") == 2
    assert "booking_requests_total" in api.client.get("/metrics").text  # the HTTP metrics stay
