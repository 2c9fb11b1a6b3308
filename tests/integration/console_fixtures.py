"""The console's test data: the HTTP tests' catalog, with passwords for its staff and one customer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.integration.http_fixtures import CATALOG

STAFF_PASSWORD = "staff-long-passphrase"
DESK_EMAIL = "desk@center-court.example"  # desk at Center Court, speaks German (the default)
ADMIN_EMAIL = "admin@platform.example"  # admin of the platform, speaks English
CUSTOMER_EMAIL = "anna@example.com"  # a customer: no console
CUSTOMER_PASSWORD = "anna-long-passphrase"


def _with_password(user: Mapping[str, Any]) -> dict[str, Any]:
    staff = {s["email"] for s in CATALOG["staff"]}
    return {**user, "password": STAFF_PASSWORD} if user["email"] in staff else dict(user)


CONSOLE_CATALOG: Mapping[str, Any] = {**CATALOG, "users": [_with_password(u) for u in CATALOG["users"]]}
