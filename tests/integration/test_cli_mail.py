"""``booking sandbox pay`` against a running service, the ``booking outbox`` commands, and the
start-up refusal of the stripe provider without keys."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time as clock
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import text

from adapters.sqla import make_engine
from entrypoints.cli import main
from tests.integration.test_cli import db_url, migrated, run

__all__ = ["db_url", "migrated"]  # fixtures

USER = {"Authorization": "Token demo-user-token"}
BOOKING = str(Path(sys.executable).with_name("booking"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def demo(
    migrated: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> str:
    monkeypatch.setenv("BOOKING_PORT", str(_free_port()))
    monkeypatch.setenv("BOOKING_MAIL_DIR", str(tmp_path / "outgoing"))
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "booking sandbox pay <id>" in out  # `make run` shows how to settle a payment
    return migrated


@pytest.fixture
def service(demo: str) -> Iterator[str]:
    """`booking serve` on BOOKING_PORT, its own worker off (the tests send the mail themselves)."""
    env = {**os.environ, "BOOKING_INPROCESS_WORKER": "false"}
    base = f"http://127.0.0.1:{env['BOOKING_PORT']}"
    server = subprocess.Popen(
        [BOOKING, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(150):
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                clock.sleep(0.2)
        else:
            pytest.fail("booking serve did not start")
        yield base
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def _open_intent(base: str) -> dict[str, Any]:
    """A booking of Court 1 in three days, 10:00 Berlin, with its payment intent open."""
    with httpx.Client(base_url=base, headers=USER, timeout=10) as client:
        court = next(r for r in client.get("/api/v1/resources/").json() if r["name"] == "Court 1")
        day = date.today() + timedelta(days=3)
        start = datetime.combine(day, time(10), ZoneInfo("Europe/Berlin"))
        body = {
            "resource": court["id"],
            "start_datetime": start.isoformat(),
            "end_datetime": (start + timedelta(hours=1)).isoformat(),
        }
        booking = client.post("/api/v1/bookings/", json=body).json()
        intent = client.post(f"/api/v1/bookings/{booking['id']}/create-payment-intent/")
        assert intent.status_code == 200, intent.text
    return dict(booking)


def _status(base: str, booking_id: str) -> str:
    return str(httpx.get(f"{base}/api/v1/bookings/{booking_id}/", headers=USER).json()["status"])


def test_sandbox_pay_settles_the_open_intent(service: str, capsys: pytest.CaptureFixture[str]) -> None:
    booking = _open_intent(service)
    status, out, _ = run(capsys, "sandbox", "pay", booking["id"])
    assert status == 0
    assert f"booking {booking['reference_code']} is paid" in out
    assert _status(service, booking["id"]) == "paid"
    # nothing left to pay, and an unknown booking: one line each, non-zero
    status, _, err = run(capsys, "sandbox", "pay", booking["id"])
    assert status == 1
    assert "has no open payment intent" in err
    assert len(err.strip().splitlines()) == 1
    status, _, err = run(capsys, "sandbox", "pay", "00000000-0000-4000-8000-00000000dead")
    assert (status, err.strip()) == (1, "No booking with id 00000000-0000-4000-8000-00000000dead.")


def test_sandbox_pay_says_when_the_service_is_down(
    service: str, demo: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    booking = _open_intent(service)
    monkeypatch.setenv("BOOKING_PORT", str(_free_port()))  # where nothing listens
    status, _, err = run(capsys, "sandbox", "pay", booking["id"])
    assert status == 1
    assert "cannot reach the service" in err
    assert "is `booking serve` running" in err
    assert _status(service, booking["id"]) == "pending"


def test_sandbox_pay_refuses_the_stripe_provider(
    demo: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOOKING_PAYMENT_PROVIDER", "stripe")
    monkeypatch.setenv("BOOKING_STRIPE_SECRET_KEY", "sk_test_x")
    monkeypatch.setenv("BOOKING_STRIPE_PUBLISHABLE_KEY", "pk_test_x")
    status, _, err = run(capsys, "sandbox", "pay", "any")
    assert status == 2
    assert "BOOKING_PAYMENT_PROVIDER=sandbox" in err


@pytest.mark.parametrize(
    ("environment", "variable"),
    [
        ({}, "BOOKING_STRIPE_SECRET_KEY"),
        ({"BOOKING_STRIPE_SECRET_KEY": "not-a-key"}, "BOOKING_STRIPE_SECRET_KEY"),
        ({"BOOKING_STRIPE_SECRET_KEY": "sk_live_abc"}, "BOOKING_STRIPE_PUBLISHABLE_KEY"),
    ],
)
def test_serve_refuses_stripe_without_usable_keys(
    migrated: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    environment: dict[str, str],
    variable: str,
) -> None:
    monkeypatch.setenv("BOOKING_PAYMENT_PROVIDER", "stripe")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    status, out, err = run(capsys, "serve")
    assert (status, out) == (2, "")
    assert err.startswith(variable)
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_outbox_commands(service: str, demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    booking = _open_intent(service)
    assert run(capsys, "sandbox", "pay", booking["id"])[0] == 0
    status, out, _ = run(capsys, "outbox", "list", "--status", "pending")
    assert status == 0
    assert sorted(line.split()[3] for line in out.splitlines()[1:]) == [
        "booking_paid_operator",
        "booking_paid_user",
    ]
    status, out, _ = run(capsys, "outbox", "dispatch")
    assert (status, out.strip()) == (0, "sent 2, skipped 0, to retry 0, failed 0 message(s)")
    assert len(list((tmp_path / "outgoing").glob("*.eml"))) == 2
    assert run(capsys, "outbox", "dispatch")[1].strip().startswith("sent 0")
    # a message that failed for good: listed, and sent again on request
    engine = make_engine(demo)
    with engine.begin() as connection:
        failed_id = connection.execute(text("SELECT id FROM outbox LIMIT 1")).scalar_one()
        connection.execute(
            text("UPDATE outbox SET status = 'failed', last_error = '550 no such user' WHERE id = :id"),
            {"id": failed_id},
        )
    engine.dispose()
    status, out, _ = run(capsys, "outbox", "list", "--status", "failed")
    assert failed_id in out
    assert "550 no such user" in out
    status, _, err = run(capsys, "outbox", "retry", "00000000-0000-0000-0000-000000000000")
    assert status == 1
    assert "none of these messages has failed" in err
    status, out, _ = run(capsys, "outbox", "retry", failed_id)
    assert (status, out.strip()) == (0, "1 failed message(s) will be sent again on the worker's next pass")
    assert run(capsys, "outbox", "dispatch")[1].strip().startswith("sent 1,")
    with pytest.raises(SystemExit) as usage:  # an id or --all is required
        main(["outbox", "retry"])
    assert usage.value.code == 2
