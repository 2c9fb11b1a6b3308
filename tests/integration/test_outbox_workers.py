"""Workers side by side on one outbox: no message is ever sent twice (PostgreSQL's ``FOR UPDATE SKIP
LOCKED`` claims; SQLite's one writer at a time)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from adapters.sqla import SqlaUnitOfWork, make_engine
from adapters.sqla import upgrade as migrate_up
from booking_core.accounts import User
from booking_core.memory import FixedClock, PlainPasswords, SandboxPayments, SequentialIds
from booking_core.notifications import Notification
from booking_core.outbox import MailTemplate, OutboxStatus
from booking_core.ports import OutboxMessage
from booking_core.usecases.deps import Deps
from booking_core.usecases.outbox import dispatch_outbox, outbox_counts
from entrypoints.bootstrap import charging_currencies
from tests.support.bookings import NOW, USER_ID, make_booking
from tests.support.seed import demo_resource, demo_venue, insert_user, seed

BOOKINGS = 30
WORKERS = 2


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


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def deps(request: pytest.FixtureRequest) -> Iterator[Deps]:
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
        clock=FixedClock(NOW),
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=SandboxPayments(),
        currencies=charging_currencies(),
    )
    with deps.uow() as uow:
        for n in range(BOOKINGS):
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
            while dispatch_outbox(deps, mailer, limit=4).total:
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
