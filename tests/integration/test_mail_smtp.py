"""The SMTP transport against a real SMTP server (``aiosmtpd``): an outage delays mail, then every
message arrives exactly once; STARTTLS and login; a permanent refusal ends a message's tries."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from dataclasses import replace
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from adapters.mail import SmtpMailer
from booking_core.accounts import Language
from booking_core.errors import MailDeliveryFailed
from booking_core.outbox import MailTemplate, OutboxStatus
from booking_core.usecases.email_notifier import email_only
from booking_core.usecases.outbox import dispatch_outbox, list_outbox
from entrypoints.worker import run_once
from tests.integration.test_mail_render import _notification
from tests.support.http_fixtures import ANNA, Api, book, loaded_sqlite_url, pay, sqlite_template, start

__all__ = ["loaded_sqlite_url", "sqlite_template"]  # fixtures

TLS = Path(__file__).resolve().parents[1] / "support" / "tls"
SENDER = "bookings@center.example"


class Inbox:
    """An aiosmtpd handler that keeps what it receives; ``refuse`` answers 550 to every recipient."""

    def __init__(self, refuse: bool = False) -> None:
        self.messages: list[bytes] = []
        self.refuse = refuse

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:  # noqa: N802
        if self.refuse:
            return "550 5.1.1 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append(envelope.original_content)
        return "250 OK queued"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def api(loaded_sqlite_url: str) -> Iterator[Api]:
    yield from start(loaded_sqlite_url)


def test_an_smtp_outage_delays_mail_and_each_message_arrives_once(api: Api) -> None:
    port = _free_port()
    mailer = SmtpMailer(host="127.0.0.1", port=port, sender=SENDER, timeout=5)
    services = replace(api.services, mailer=mailer)
    booking = book(api, ANNA, "Court 1", "2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")
    pay(api, ANNA, booking["id"])  # the webhook answers 200 whatever the mail server does
    # the server is down: the worker's pass goes on, the mail waits
    assert run_once(services).mail.retrying == 2
    waiting = list_outbox(api.services.deps, OutboxStatus.PENDING)
    assert {e.attempts for e in waiting} == {1}
    assert all("ConnectionRefusedError" in (e.last_error or "") for e in waiting)
    api.clock.advance(minutes=2)
    assert dispatch_outbox(api.services.deps, email_only(mailer)).retrying == 2  # still down
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        assert dispatch_outbox(api.services.deps, email_only(mailer)).total == 0  # not due yet: backing off
        api.clock.advance(minutes=5)
        assert dispatch_outbox(api.services.deps, email_only(mailer)).sent == 2
        api.clock.advance(days=1)
        assert dispatch_outbox(api.services.deps, email_only(mailer)).total == 0
    finally:
        controller.stop()
    received = [message_from_bytes(raw, policy=policy.default) for raw in inbox.messages]
    assert sorted(m["To"].addresses[0].addr_spec for m in received) == [
        "anna@example.com",
        "ops@center-court.example",
    ]
    sent = list_outbox(api.services.deps, OutboxStatus.SENT)
    assert sorted(m["Message-ID"] for m in received) == sorted(e.message_id or "" for e in sent)
    assert {e.attempts for e in sent} == {3}


def _tls_server(inbox: Inbox, port: int) -> Controller:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS / "localhost.pem", TLS / "localhost.key")

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"mailer", b"s3cret")
        return AuthResult(success=ok, handled=False)  # handled: aiosmtpd answers 535 itself

    return Controller(
        inbox,
        hostname="127.0.0.1",
        port=port,
        tls_context=context,
        require_starttls=True,
        auth_required=True,
        authenticator=authenticator,
    )


def test_starttls_and_login(tmp_path: Path) -> None:
    port = _free_port()
    inbox = Inbox()
    server = _tls_server(inbox, port)
    server.start()
    trust = ssl.create_default_context(cafile=str(TLS / "localhost.pem"))
    common: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": port,
        "sender": SENDER,
        "tls_context": trust,
        "timeout": 5,
    }
    notification = _notification(MailTemplate.BOOKING_PAID_USER, Language.DE)
    try:
        SmtpMailer(**common, starttls=True, username="mailer", password="s3cret").send(
            notification, message_id="<tls@center.example>"
        )
        with pytest.raises(MailDeliveryFailed) as wrong:
            SmtpMailer(**common, starttls=True, username="mailer", password="wrong").send(
                notification, message_id="<x@center.example>"
            )
        with pytest.raises(MailDeliveryFailed):  # the server insists on STARTTLS
            SmtpMailer(**common, starttls=False, username="mailer", password="s3cret").send(
                notification, message_id="<y@center.example>"
            )
    finally:
        server.stop()
    assert "535" in wrong.value.message
    [raw] = inbox.messages
    assert message_from_bytes(raw, policy=policy.default)["Message-ID"] == "<tls@center.example>"


def test_a_refused_recipient_is_a_permanent_failure() -> None:
    port = _free_port()
    server = Controller(Inbox(refuse=True), hostname="127.0.0.1", port=port)
    server.start()
    try:
        with pytest.raises(MailDeliveryFailed) as refused:
            SmtpMailer(host="127.0.0.1", port=port, sender=SENDER).send(
                _notification(MailTemplate.BOOKING_REFUNDED_USER, Language.EN), message_id="<r@x>"
            )
    finally:
        server.stop()
    assert refused.value.permanent
    assert "550" in refused.value.message


def test_a_server_that_does_not_answer_times_out() -> None:
    with socket.socket() as silent:  # accepts connections, never greets
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        mailer = SmtpMailer(host="127.0.0.1", port=silent.getsockname()[1], sender=SENDER, timeout=0.5)
        with pytest.raises(MailDeliveryFailed) as stalled:
            mailer.send(_notification(MailTemplate.BOOKING_PAID_USER, Language.EN), message_id="<t@x>")
    assert not stalled.value.permanent
    assert "timed out" in stalled.value.message


class _Greylisting:
    """Answers 451 (try again later) to every recipient, as a greylisting server does at first."""

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:  # noqa: N802
        return "451 4.7.1 greylisted, try again later"


def test_a_temporary_refusal_is_retried_not_failed() -> None:
    port = _free_port()
    server = Controller(_Greylisting(), hostname="127.0.0.1", port=port)
    server.start()
    try:
        with pytest.raises(MailDeliveryFailed) as deferred:
            SmtpMailer(host="127.0.0.1", port=port, sender=SENDER).send(
                _notification(MailTemplate.BOOKING_PAID_USER, Language.EN), message_id="<g@x>"
            )
    finally:
        server.stop()
    assert not deferred.value.permanent  # the message stays in the outbox for the next attempt
    assert "451" in deferred.value.message
