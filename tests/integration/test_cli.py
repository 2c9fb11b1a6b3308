"""The ``booking`` command line against a throw-away SQLite database."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine, select, text

from adapters.catalog import DEMO_CATALOG
from adapters.sqla import make_engine
from adapters.sqla.models import BookingRow, ClientRow, ResourceRow, UserRow, VenueMappingRow, VenueRow
from booking_core.usecases.auth import authenticate
from entrypoints.bootstrap import bootstrap
from entrypoints.cli import main
from entrypoints.config import load_settings

SRC = Path(__file__).resolve().parents[2] / "src"
CATALOG_TABLES = (
    "venues",
    "resources",
    "schedules",
    "time_slots",
    "unavailable_periods",
    "activity_types",
    "resource_activity_types",
    "users",
    "clients",
    "tokens",
)


@pytest.fixture
def db_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh SQLite database in a fresh working directory (so no stray ``.env`` applies)."""
    for name in list(os.environ):
        if name.startswith("BOOKING_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'booking.sqlite3'}"
    monkeypatch.setenv("BOOKING_DATABASE_URL", url)
    return url


@pytest.fixture
def migrated(db_url: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    return db_url


@pytest.fixture
def engine(migrated: str) -> Iterator[Engine]:
    engine = make_engine(migrated)
    yield engine
    engine.dispose()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def snapshot(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as connection:
        return {
            table: sorted(map(tuple, connection.execute(text(f"SELECT * FROM {table}"))), key=repr)
            for table in CATALOG_TABLES
        }


def write_catalog_file(path: Path, change: float = 0) -> Path:
    """The demo catalog with Center Court's prices raised by ``change`` (both courts share an anchor)."""
    data = yaml.safe_load(DEMO_CATALOG.read_text(encoding="utf-8"))
    if change:
        for slot in data["venues"][0]["resources"][0]["schedules"][0]["time_slots"]:
            slot["price_per_unit"] = str(Decimal(slot["price_per_unit"]) + Decimal(str(change)))
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_db_upgrade_migrates(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "db", "upgrade")

    assert status == 0
    assert "up to date" in out
    assert run(capsys, "db", "upgrade")[0] == 0  # again: nothing to do


def test_serve_refuses_an_unmigrated_database(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "serve")

    assert status == 1
    assert out == ""
    assert err.count("\n") == 1
    assert "not migrated" in err
    assert "booking db upgrade" in err


def test_catalog_load_is_idempotent(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_catalog_file(tmp_path / "catalog.yaml")

    status, first, _ = run(capsys, "catalog", "load", str(path))
    assert status == 0
    assert "venues: 2 created, 0 updated, 0 unchanged" in first
    assert "resources: 3 created, 0 updated, 0 unchanged" in first
    assert "users: 1 created" in first
    assert "clients: 1 created" in first
    before = snapshot(engine)

    status, second, _ = run(capsys, "catalog", "load", str(path))

    assert status == 0
    assert " 0 created" in second
    assert " 1 created" not in second
    assert " 2 created" not in second
    assert "venues: 0 created, 0 updated, 2 unchanged" in second
    assert "resources: 0 created, 0 updated, 3 unchanged" in second
    assert snapshot(engine) == before


def test_a_changed_catalog_updates_in_place(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "catalog", "load", str(write_catalog_file(tmp_path / "a.yaml")))[0] == 0
    with engine.connect() as connection:
        court_id = connection.scalar(select(ResourceRow.id).where(ResourceRow.name == "Court 1"))

    status, out, _ = run(capsys, "catalog", "load", str(write_catalog_file(tmp_path / "b.yaml", change=1)))

    assert status == 0
    assert "resources: 0 created, 2 updated, 1 unchanged" in out
    assert "schedules: 14 created, 0 updated, 8 unchanged, 14 removed" in out
    with engine.connect() as connection:
        assert connection.scalar(select(ResourceRow.id).where(ResourceRow.name == "Court 1")) == court_id
        prices = connection.scalars(text("SELECT DISTINCT price_per_unit FROM time_slots")).all()
        assert {Decimal(str(p)).quantize(Decimal("0.01")) for p in prices} >= {
            Decimal("21.00"),
            Decimal("31.00"),
        }


def test_json_and_toml_catalogs_load_like_yaml(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[[clients]]\nname = "Other"\ncommission_percent = "5.00"\ncontact_email = "a@b.example"\n',
        encoding="utf-8",
    )

    status, out, _ = run(capsys, "catalog", "load", str(path))

    assert status == 0
    assert out.strip() == "clients: 1 created, 0 updated, 0 unchanged"


def test_a_bad_catalog_writes_nothing(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(DEMO_CATALOG.read_text(encoding="utf-8"))
    data["venues"][1]["resources"][0]["booking_interval_minutes"] = -30
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")

    status, out, err = run(capsys, "catalog", "load", str(path))

    assert status == 1
    assert out == ""
    assert (
        err.splitlines()[-1] == "venues[1].resources[0].booking_interval_minutes: must be a positive integer"
    )
    assert all(rows == [] for rows in snapshot(engine).values())


def test_a_token_already_owned_by_someone_else_rolls_everything_back(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "demo")[0] == 0
    before = snapshot(engine)
    path = tmp_path / "steal.json"
    path.write_text(
        '{"users": [{"email": "new@example.com", "first_name": "N", "last_name": "U", '
        '"token": "demo-user-token"}]}',
        encoding="utf-8",
    )

    status, _, err = run(capsys, "catalog", "load", str(path))

    assert status == 1
    assert err.splitlines()[-1] == "users[0].token: this token is already issued to another user or client"
    assert snapshot(engine) == before


def test_demo_prints_tokens_and_a_curl_line(migrated: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "demo")

    assert status == 0
    assert "demo-user-token" in out
    assert "demo-client-token" in out
    assert "curl http://127.0.0.1:8000/api/v1/resources/" in out
    deps = bootstrap(load_settings()).deps
    assert authenticate(deps, "demo-user-token").user_id is not None
    assert authenticate(deps, "demo-client-token").client_id is not None
    assert run(capsys, "demo")[0] == 0  # loading it again is fine


def test_tokens_create_prints_a_working_token_once(migrated: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "demo")[0] == 0

    status, out, err = run(capsys, "tokens", "create", "--user", "ANNA@example.com")
    assert status == 0
    token = out.strip()
    assert len(token) >= 32
    assert "shown only this once" in err
    status, out, _ = run(capsys, "tokens", "create", "--client", "PartnerApp")
    assert status == 0
    client_token = out.strip()

    deps = bootstrap(load_settings()).deps
    assert authenticate(deps, token).user_id is not None
    assert authenticate(deps, client_token).client_id is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("tokens", "create", "--user", "nobody@example.com"), "No user with email nobody@example.com."),
        (("tokens", "create", "--client", "Nobody"), "No client named Nobody."),
        (("bookings", "confirm", "ZZZZZZZZ"), "No booking with reference ZZZZZZZZ."),
        (("bookings", "no-show", "ZZZZZZZZ"), "No booking with reference ZZZZZZZZ."),
        (("venue-mappings", "approve", "nope"), "No venue mapping with id nope."),
        (("catalog", "load", "missing.yaml"), "missing.yaml: no such file"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line(
    migrated: str, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, *args)

    assert status == 1
    assert out == ""
    assert err.splitlines()[-1] == message


def test_usage_errors_are_one_line(migrated: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as excinfo:
        main(["tokens", "create"])

    assert excinfo.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "one of the arguments --user --client is required" in err


def test_invalid_configuration_exits_2_naming_the_variable(
    db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BOOKING_PORT", "abc")

    status, _, err = run(capsys, "serve")

    assert status == 2
    assert err == "BOOKING_PORT: must be an integer from 1 to 65535, got 'abc'\n"


def test_an_env_file_in_the_working_directory_is_read(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BOOKING_DATABASE_URL")
    (tmp_path / ".env").write_text(f"BOOKING_DATABASE_URL={db_url}\n", encoding="utf-8")

    assert run(capsys, "db", "upgrade")[0] == 0
    assert (tmp_path / "booking.sqlite3").exists()


def test_venue_mappings_are_listed_and_decided(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "demo")[0] == 0
    mapping_id = str(uuid.uuid4())
    with engine.begin() as connection:
        client_id = connection.scalar(select(ClientRow.id))
        venue_id = connection.scalar(select(VenueRow.id).where(VenueRow.slug == "center-court"))
        connection.execute(
            VenueMappingRow.__table__.insert().values(
                id=mapping_id,
                client_id=client_id,
                external_id="partner-venue-1",
                venue_id=venue_id,
                external_data={},
                is_active=True,
                approval_status="pending",
                created_at=datetime.now(UTC),
            )
        )

    status, out, _ = run(capsys, "venue-mappings", "list", "--status", "pending")
    assert status == 0
    assert mapping_id in out
    assert "partner-venue-1" in out

    status, out, _ = run(capsys, "venue-mappings", "approve", mapping_id)
    assert status == 0
    assert out.strip() == f"venue mapping {mapping_id} is approved"
    status, out, _ = run(capsys, "venue-mappings", "list", "--status", "pending")
    assert status == 0
    assert mapping_id not in out
    assert run(capsys, "venue-mappings", "reject", mapping_id)[0] == 0
    assert mapping_id in run(capsys, "venue-mappings", "list", "--status", "rejected")[1]


def insert_booking(
    engine: Engine, reference: str, start: datetime, status: str, hold_expires_at: datetime | None
) -> None:
    now = datetime.now(UTC)
    with engine.begin() as connection:
        connection.execute(
            BookingRow.__table__.insert().values(
                id=str(uuid.uuid4()),
                reference_code=reference,
                resource_id=connection.scalar(select(ResourceRow.id).where(ResourceRow.name == "Court 1")),
                user_id=connection.scalar(select(UserRow.id)),
                start_at=start,
                end_at=start + timedelta(hours=1),
                participant_count=1,
                price_per_unit=Decimal("20.00"),
                pricing_unit="hour",
                total_price=Decimal("20.00"),
                currency="EUR",
                status=status,
                notes="",
                cancellation_notes="",
                hold_expires_at=hold_expires_at,
                created_at=now,
                updated_at=now,
            )
        )


def test_operator_booking_transitions(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "demo")[0] == 0
    now = datetime.now(UTC)
    insert_booking(engine, "ABCD2345", now + timedelta(days=1), "pending", now + timedelta(minutes=15))

    status, _, err = run(capsys, "bookings", "no-show", "abcd2345")
    assert status == 1
    assert err.strip() == "Cannot no-show a booking with status 'pending'."
    status, out, _ = run(capsys, "bookings", "confirm", "abcd2345")
    assert status == 0
    assert out.strip() == "booking ABCD2345 is confirmed"
    status, out, _ = run(capsys, "bookings", "complete-past")
    assert (status, out.strip()) == (0, "completed 0 booking(s)")


def test_the_worker_expires_holds_and_completes_past_bookings(
    engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "demo")[0] == 0
    now = datetime.now(UTC)
    insert_booking(engine, "HELD0001", now + timedelta(days=2), "pending", now - timedelta(minutes=1))
    insert_booking(engine, "PAST0001", now - timedelta(days=1), "confirmed", None)
    insert_booking(engine, "PAST0002", now - timedelta(days=2), "paid", None)

    status, out, _ = run(capsys, "worker", "--once")

    assert (status, out.strip()) == (
        0,
        "expired 1 hold(s), completed 2 booking(s), sent 0 refund request(s); "
        "mail: sent 0, skipped 0, to retry 0, failed 0 message(s)",
    )
    with engine.connect() as connection:
        rows = connection.execute(
            select(BookingRow.reference_code, BookingRow.status, BookingRow.cancellation_reason)
        )
        assert sorted(map(tuple, rows)) == [
            ("HELD0001", "cancelled", "expired"),
            ("PAST0001", "completed", None),
            ("PAST0002", "completed", None),
        ]
    status, _, err = run(capsys, "bookings", "no-show", "PAST0001")
    assert status == 1
    assert err.count("\n") == 1


def test_the_console_entry_point_prints_no_traceback(db_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from entrypoints.cli import main; sys.exit(main())",
            "catalog",
            "load",
            str(tmp_path / "absent.toml"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == f"{tmp_path / 'absent.toml'}: no such file"
