"""Names changed to tell the architecture still import under the old ones, for one release, with a
DeprecationWarning: ``booking_core`` is a library, and these packages are part of its public API."""

from __future__ import annotations

import importlib
import sys

import pytest

import booking_core.memory
import booking_core.memory.repositories
import booking_core.state_machine
from booking_core.memory import InMemoryMailer, InMemoryPaymentGateway
from booking_core.memory.repositories import InMemoryBookings


def test_the_lifecycle_package_is_the_state_machine_under_its_old_name() -> None:
    sys.modules.pop("booking_core.lifecycle", None)
    with pytest.warns(DeprecationWarning, match=r"import booking_core\.state_machine"):
        old = importlib.import_module("booking_core.lifecycle")
    assert old.__all__ == booking_core.state_machine.__all__
    for name in old.__all__:
        assert getattr(old, name) is getattr(booking_core.state_machine, name)


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        (booking_core.memory, "FakeMailer", InMemoryMailer),
        (booking_core.memory, "SandboxPayments", InMemoryPaymentGateway),
        (booking_core.memory.repositories, "MemoryBookings", InMemoryBookings),
    ],
)
def test_a_fake_answers_to_its_old_name_with_a_warning(module: object, old: str, new: type) -> None:
    with pytest.warns(DeprecationWarning, match=new.__name__):
        assert getattr(module, old) is new


def test_the_old_names_import_with_from() -> None:
    with pytest.warns(DeprecationWarning, match="InMemoryMailer"):
        from booking_core.memory import FakeMailer
    assert FakeMailer is InMemoryMailer


def test_a_name_that_never_was_is_still_an_error() -> None:
    with pytest.raises(AttributeError, match="Nonsense"):
        booking_core.memory.Nonsense  # noqa: B018 - the attribute access is what is tested
