"""``booking staff add|list|remove`` and the catalog's ``staff:`` list (CONTRACT 7.1)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine, select

from adapters.sqla.models import AuditRow, StaffRoleRow, UserRow
from tests.integration.test_cli import db_url, engine, migrated, run

__all__ = ["db_url", "engine", "migrated"]


@pytest.fixture
def demo(engine: Engine, capsys: pytest.CaptureFixture[str]) -> Engine:
    assert run(capsys, "demo")[0] == 0
    return engine


def _roles(engine: Engine) -> set[tuple[str, str, int | None]]:
    with engine.connect() as c:
        rows = c.execute(select(UserRow.email, StaffRoleRow.role, StaffRoleRow.venue_id).join(UserRow))
        return {tuple(r) for r in rows}


def test_add_creates_the_user_prints_a_password_once_and_is_idempotent(
    demo: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "staff", "add", "Desk@Example.com", "--role", "desk", "--venue", "center-court"
    )
    assert status == 0
    password = out.strip()
    assert len(password) >= 16
    assert "created user desk@example.com" in err
    assert _roles(demo) == {("desk@example.com", "desk", 1)}
    again = run(capsys, "staff", "add", "desk@example.com", "--role", "desk", "--venue", "center-court")
    assert again[0] == 0
    assert again[1] == ""  # no new password for an existing user
    assert "already held" in again[2]
    assert _roles(demo) == {("desk@example.com", "desk", 1)}
    with demo.connect() as c:
        audit = c.execute(
            select(AuditRow.action, AuditRow.actor_user_id, AuditRow.venue_id).where(
                AuditRow.action.like("staff.%")  # loading the demo catalog audited its venues too
            )
        ).all()
    assert audit == [("staff.grant", None, 1)]  # the command line: no actor


def test_the_password_may_come_from_stdin(
    demo: Engine, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-staff-passphrase\n"))
    status, out, _ = run(capsys, "staff", "add", "boss@example.com", "--role", "admin", "--password-stdin")
    assert (status, out) == (0, "")
    status, out, _ = run(capsys, "staff", "list")
    assert status == 0
    assert "boss@example.com\tadmin\t-" in out.splitlines()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["x@example.com", "--role", "desk"], "needs at least one venue"),
        (["x@example.com", "--role", "admin", "--venue", "center-court"], "every venue"),
        (["x@example.com", "--role", "desk", "--venue", "nowhere"], "No venue with slug nowhere"),
        (["not-an-email", "--role", "admin"], "valid email"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    demo: Engine, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, _, err = run(capsys, "staff", "add", *args)
    assert status == 1
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert _roles(demo) == set()


def test_remove_takes_one_venues_roles_or_all(demo: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    for venue in ("center-court", "spree-padel"):
        assert run(capsys, "staff", "add", "m@example.com", "--role", "manager", "--venue", venue)[0] == 0
    assert len(_roles(demo)) == 2
    assert run(capsys, "staff", "remove", "m@example.com", "--venue", "center-court")[0] == 0
    assert {r[2] for r in _roles(demo)} == {2}
    assert run(capsys, "staff", "remove", "m@example.com")[0] == 0
    assert _roles(demo) == set()


def test_the_catalog_grants_staff_roles_and_never_removes_others(
    demo: Engine, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run(capsys, "staff", "add", "old@example.com", "--role", "admin")[0] == 0
    catalog = {
        "users": [{"email": "desk@example.com", "first_name": "D", "last_name": "K", "token": "tok-desk-1"}],
        "staff": [
            {"email": "desk@example.com", "role": "desk", "venues": ["center-court"]},
            {"email": "new@example.com", "role": "manager", "venues": ["center-court", "spree-padel"]},
        ],
    }
    path = tmp_path / "staff.yaml"
    path.write_text(yaml.safe_dump(catalog), encoding="utf-8")
    assert run(capsys, "catalog", "load", str(path))[0] == 0
    expected = {
        ("old@example.com", "admin", None),
        ("desk@example.com", "desk", 1),
        ("new@example.com", "manager", 1),
        ("new@example.com", "manager", 2),
    }
    assert _roles(demo) == expected
    assert run(capsys, "catalog", "load", str(path))[0] == 0  # idempotent
    assert _roles(demo) == expected
    bad = {"staff": [{"email": "x@example.com", "role": "desk"}]}
    path.write_text(yaml.safe_dump(bad), encoding="utf-8")
    status, _, err = run(capsys, "catalog", "load", str(path))
    assert status == 1
    assert "staff[0].venues" in err
