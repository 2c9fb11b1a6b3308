"""Use cases meeting a transient conflict run again, a bounded number of times."""

from __future__ import annotations

import pytest

from booking_core.errors import NotFound, TransientConflict
from booking_core.usecases.retry import ATTEMPTS, retried


def test_a_conflict_runs_the_use_case_again_from_the_start() -> None:
    calls: list[int] = []

    @retried
    def use_case(value: int) -> int:
        calls.append(value)
        if len(calls) < 3:
            raise TransientConflict("deadlock")
        return value * 2

    assert use_case(21) == 42
    assert calls == [21, 21, 21]


def test_a_conflict_that_persists_reaches_the_caller_after_the_last_attempt() -> None:
    calls: list[None] = []

    @retried
    def use_case() -> None:
        calls.append(None)
        raise TransientConflict("deadlock")

    with pytest.raises(TransientConflict):
        use_case()
    assert len(calls) == ATTEMPTS


def test_other_errors_are_not_retried() -> None:
    calls: list[None] = []

    @retried
    def use_case() -> None:
        calls.append(None)
        raise NotFound("no such booking")

    with pytest.raises(NotFound):
        use_case()
    assert len(calls) == 1
