"""Settings shared by every test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.support import server

_SERVERS_BEFORE = pytest.StashKey[int]()

# Speed is measured by the benchmarks, not by per-example deadlines that flake on a busy CI machine.
settings.register_profile("booking", deadline=None, print_blob=True)
settings.register_profile("thorough", parent=settings.get_profile("booking"), max_examples=1500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "booking"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_SERVERS_BEFORE] = len(server.started())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test's report ends with the tail of the log of every ``booking serve`` it ran against
    (the whole log stays in the test's temporary directory)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not report.failed or _SERVERS_BEFORE not in item.stash:
        return
    for log in server.logs_of_test(item.stash[_SERVERS_BEFORE]):
        report.sections.append((f"booking serve log {log} (last lines)", server.tail(log)))
