"""Workers side by side on one outbox: no message is ever sent twice (PostgreSQL's ``FOR UPDATE SKIP
LOCKED`` claims; SQLite's one writer at a time), not even through a mail server so slow that a
worker's batch outlasts its lease (a real SMTP server, ``aiosmtpd``, that dawdles over each message).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy.orm import Session

from adapters.mail import SmtpMailer
from adapters.sqla import SqlaUnitOfWork, make_engine
from adapters.sqla import upgrade as migrate_up
from booking_core.accounts import User
from booking_core.memory import FixedClock, InMemoryPaymentGateway, PlainPasswords, SequentialIds
from booking_core.notifications import Notification
from booking_core.outbox import MailTemplate, OutboxStatus, RetryPolicy
from booking_core.ports import Clock, OutboxMessage
from booking_core.usecases.deps import Deps
from booking_core.usecases.email_notifier import email_only
from booking_core.usecases.outbox import dispatch_outbox, outbox_counts
from entrypoints.bootstrap import charging_currencies
from tests.integration.test_mail_smtp import _free_port
from tests.support.bookings import NOW, USER_ID, make_booking
from tests.support.seed import demo_resource, demo_venue, insert_user, seed

BOOKINGS = 30
WORKERS = 2
DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]

# The slow mail server, scaled down from the finding (14 s a message, 50 messages under a lease of
# 10 minutes): 20 messages of 0.3 s each are 6 s of sending, three times the lease.
SLOW_BOOKINGS = 10  # two messages each
SECONDS_PER_MESSAGE = 0.3
SHORT_LEASE = RetryPolicy(lease=timedelta(seconds=2))


@dataclass
class SlowMailer:
    """Records every send; each takes a little while, so that workers overlap."""

    sender: str = "bookings@example.com"
    sent: list[str] = field(default_factory=list)
    by_worker: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, notification: Notification, *, message_id: str) -> None:
        time.sleep(0.005)
        with self.lock:
            self.sent.append(message_id)
            self.by_worker[threading.current_thread().name] += 1


class ElapsingClock:
    """Real time going by, from NOW on (so that leases run out as they would in production)."""

    def __init__(self, start: datetime) -> None:
        self._start, self._started = start, time.monotonic()

    def now(self) -> datetime:
        return self._start + timedelta(seconds=time.monotonic() - self._started)


class SlowInbox:
    """An aiosmtpd handler that takes its time over each message and counts them by Message-ID."""

    def __init__(self) -> None:
        self.received: Counter[str] = Counter()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        await asyncio.sleep(SECONDS_PER_MESSAGE)
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        self.received[str(message["Message-ID"])] += 1
        return "250 OK queued"


@pytest.fixture(params=DATABASES)
def deps(request: pytest.FixtureRequest) -> Iterator[Deps]:
    yield from _outbox_of(request, bookings=BOOKINGS, clock=FixedClock(NOW))


@pytest.fixture(params=DATABASES)
def slow_deps(request: pytest.FixtureRequest) -> Iterator[Deps]:
    yield from _outbox_of(request, bookings=SLOW_BOOKINGS, clock=ElapsingClock(NOW))


def _outbox_of(request: pytest.FixtureRequest, *, bookings: int, clock: Clock) -> Iterator[Deps]:
    """Deps over a fresh database whose outbox holds two emails for each of ``bookings`` bookings."""
    url: str = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    migrate_up(url)
    engine = make_engine(url)
    seed(engine, demo_resource(venue=demo_venue(operator_email="ops@venue.example")))
    with Session(engine) as session:
        insert_user(session, User(id=USER_ID, email="anna@example.com", created_at=NOW))
        session.commit()
    writes, reads = SqlaUnitOfWork.factories(engine)
    deps = Deps(
        uow=writes,
        reads=reads,
        clock=clock,
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=InMemoryPaymentGateway(),
        currencies=charging_currencies(),
    )
    with deps.uow() as uow:
        for n in range(bookings):
            start = NOW + timedelta(days=1, hours=n)
            booking = make_booking(start, start + timedelta(hours=1))
            uow.bookings.add(booking)
            for template in (MailTemplate.BOOKING_PAID_USER, MailTemplate.BOOKING_PAID_OPERATOR):
                uow.outbox.add(OutboxMessage.email(template, booking.id, id=deps.ids.new_id(), now=NOW))
        uow.commit()
    try:
        yield deps
    finally:
        engine.dispose()


def test_two_workers_never_send_a_message_twice(deps: Deps) -> None:
    mailer = SlowMailer()
    start = threading.Barrier(WORKERS)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            start.wait()
            while dispatch_outbox(deps, email_only(mailer), limit=4).total:
                pass
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=work, name=f"worker-{n}") for n in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    duplicates = [message_id for message_id, count in Counter(mailer.sent).items() if count > 1]
    assert duplicates == []
    assert len(mailer.sent) == 2 * BOOKINGS
    assert len(mailer.by_worker) == WORKERS, mailer.by_worker  # both took part
    counts = outbox_counts(deps)
    assert (counts[OutboxStatus.SENT], counts[OutboxStatus.PENDING]) == (2 * BOOKINGS, 0)


def test_a_slow_mail_server_gets_each_message_once(slow_deps: Deps) -> None:
    inbox = SlowInbox()
    port = _free_port()
    server = Controller(inbox, hostname="127.0.0.1", port=port)
    mailer = SmtpMailer(host="127.0.0.1", port=port, sender="bookings@example.com", timeout=10)
    start = threading.Barrier(WORKERS)
    errors: list[BaseException] = []

    def work() -> None:
        # like the worker's loop: a pass, and when it found nothing due, another a moment later
        try:
            start.wait()
            deadline = time.monotonic() + 120
            while outbox_counts(slow_deps)[OutboxStatus.PENDING] and time.monotonic() < deadline:
                if not dispatch_outbox(slow_deps, email_only(mailer), policy=SHORT_LEASE).total:
                    time.sleep(0.05)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    server.start()
    try:
        threads = [threading.Thread(target=work, name=f"worker-{n}") for n in range(WORKERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=180)
    finally:
        server.stop()
    assert not errors
    messages = 2 * SLOW_BOOKINGS
    deliveries = sum(inbox.received.values())
    assert (deliveries, len(inbox.received)) == (messages, messages), (
        f"{deliveries} deliveries of {messages} messages"
    )
    counts = outbox_counts(slow_deps)
    assert (counts[OutboxStatus.SENT], counts[OutboxStatus.PENDING]) == (messages, 0)
