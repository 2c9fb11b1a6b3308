"""Delivering the outbox on the in-memory ports: retries, backoff, the final failed state, the
operator's retry, and the retry policy's arithmetic (property-based)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking_core.accounts import Language
from booking_core.memory import (
    FixedClock,
    InMemoryMailer,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.notifications import Notification
from booking_core.outbox import EMAIL_KIND, MailTemplate, OutboxEntry, OutboxStatus, RetryPolicy
from booking_core.ports import OutboxMessage, UnitOfWork
from booking_core.usecases.deps import Deps
from booking_core.usecases.email_notifier import EmailNotifier, email_only
from booking_core.usecases.outbox import (
    DispatchResult,
    dispatch_outbox,
    list_outbox,
    outbox_counts,
    retry_failed,
)
from entrypoints.bootstrap import charging_currencies
from tests.unit.test_usecase_flow import BERLIN, NOW, at, book, court, pay, user_actor

VENUE = replace(
    BERLIN, operator_email="ops@center.example", street_address="Hauptstrasse 1", postal_code="10115"
)
POLICY = RetryPolicy(max_attempts=3, base=timedelta(minutes=1), cap=timedelta(minutes=10))


@pytest.fixture
def store() -> InMemoryStore:
    store = InMemoryStore()
    store.add_resource(court(1, venue=VENUE))
    return store


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def deps(store: InMemoryStore, clock: FixedClock) -> Deps:
    return Deps(
        uow=store.uow,
        clock=clock,
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=InMemoryPaymentGateway(),
        currencies=charging_currencies(),
    )


@pytest.fixture
def paid(deps: Deps) -> str:
    """A paid booking of Anna (English); its two emails are in the outbox."""
    anna = user_actor(deps)
    view = book(deps, anna, at(2, 10))
    pay(deps, view, anna)
    return view.booking.id


def _dispatch(deps: Deps, mailer: InMemoryMailer) -> tuple[int, int, int, int]:
    result = dispatch_outbox(deps, email_only(mailer), policy=POLICY, jitter=lambda: 0.5)
    return result.sent, result.skipped, result.retrying, result.failed


def test_paid_booking_mails_the_user_and_the_operator_once(deps: Deps, paid: str) -> None:
    mailer = InMemoryMailer(sender="bookings@center.example")
    assert _dispatch(deps, mailer) == (2, 0, 0, 0)
    by_template = {n.template: (n, message_id) for n, message_id in mailer.sent}
    user, user_message_id = by_template[MailTemplate.BOOKING_PAID_USER]
    operator, _ = by_template[MailTemplate.BOOKING_PAID_OPERATOR]
    assert (user.recipient, user.language, user.reply_to) == (
        "anna@example.com",
        Language.EN,
        "ops@center.example",
    )
    assert (operator.recipient, operator.reply_to) == ("ops@center.example", "anna@example.com")
    assert user.facts.booking_id == paid
    assert user.facts.start == at(2, 10).astimezone(VENUE.tz)
    assert user.facts.venue_address == "Hauptstrasse 1, 10115 Berlin"
    assert user_message_id.endswith("@center.example>")
    assert _dispatch(deps, mailer) == (0, 0, 0, 0)  # nothing twice
    assert len(mailer.sent) == 2
    assert outbox_counts(deps)[OutboxStatus.SENT] == 2


def test_an_outage_delays_mail_with_growing_waits_then_it_goes_out_once(
    deps: Deps, clock: FixedClock, paid: str
) -> None:
    mailer = InMemoryMailer(down=True)
    assert _dispatch(deps, mailer) == (0, 0, 2, 0)
    [first, _] = list_outbox(deps, OutboxStatus.PENDING)
    # jitter 0.5 waits 3/4 of the ceiling: 45 s after the first try
    assert first.due_at == NOW + timedelta(seconds=45)
    assert first.attempts == 1
    assert first.last_error == "connection refused"
    assert _dispatch(deps, mailer) == (0, 0, 0, 0)  # not due yet
    clock.advance(timedelta(seconds=45))
    assert _dispatch(deps, mailer) == (0, 0, 2, 0)
    second = next(e for e in list_outbox(deps) if e.id == first.id)
    assert second.due_at == clock.now() + timedelta(seconds=90)  # twice the wait
    assert second.message_id == first.message_id  # the same Message-ID on every try
    mailer.down = False
    clock.advance(timedelta(seconds=90))
    assert _dispatch(deps, mailer) == (2, 0, 0, 0)
    assert {message_id for _, message_id in mailer.sent} == {e.message_id for e in list_outbox(deps)}


def test_after_the_last_attempt_a_message_fails_and_the_operator_can_send_it_again(
    deps: Deps, clock: FixedClock, paid: str
) -> None:
    mailer = InMemoryMailer(down=True)
    for _ in range(POLICY.max_attempts - 1):
        assert _dispatch(deps, mailer) == (0, 0, 2, 0)
        clock.advance(POLICY.cap)
    assert _dispatch(deps, mailer) == (0, 0, 0, 2)
    failed = list_outbox(deps, OutboxStatus.FAILED)
    assert [e.attempts for e in failed] == [POLICY.max_attempts] * 2
    clock.advance(timedelta(days=1))
    assert _dispatch(deps, mailer) == (0, 0, 0, 0)  # failed stays failed
    assert outbox_counts(deps) == {OutboxStatus.PENDING: 0, OutboxStatus.SENT: 0, OutboxStatus.FAILED: 2}
    assert retry_failed(deps, [failed[0].id]) == 1
    mailer.down = False
    assert _dispatch(deps, mailer) == (1, 0, 0, 0)
    assert retry_failed(deps) == 1
    assert _dispatch(deps, mailer) == (1, 0, 0, 0)
    assert len(mailer.sent) == 2


def test_a_permanent_refusal_fails_at_once(deps: Deps, paid: str) -> None:
    assert _dispatch(deps, InMemoryMailer(refuse=True)) == (0, 0, 0, 2)
    assert {e.last_error for e in list_outbox(deps)} == {"550 mailbox unavailable"}


def test_a_venue_without_operator_email_skips_the_operators_message(store: InMemoryStore, deps: Deps) -> None:
    store.add_resource(court(1, venue=replace(VENUE, operator_email="")))
    anna = user_actor(deps)
    view = book(deps, anna, at(2, 10))
    pay(deps, view, anna)
    mailer = InMemoryMailer()
    assert _dispatch(deps, mailer) == (1, 1, 0, 0)
    assert [n.template for n, _ in mailer.sent] == [MailTemplate.BOOKING_PAID_USER]
    skipped = next(e for e in list_outbox(deps) if e.template == "booking_paid_operator")
    assert skipped.status is OutboxStatus.SENT
    assert skipped.last_error == "skipped: the venue has no operator_email"


@pytest.mark.parametrize(
    ("kind", "payload", "error"),
    [
        ("email", {"template": "nonsense", "booking_id": "b"}, "unknown email template 'nonsense'"),
        ("email", {"template": "booking_paid_user", "booking_id": "gone"}, "booking 'gone' not found"),
        ("booking_paid", {"booking_id": "b"}, "unknown message kind 'booking_paid'"),
    ],
)
def test_a_message_that_cannot_be_built_fails_at_once(
    deps: Deps, kind: str, payload: dict[str, str], error: str
) -> None:
    with deps.uow() as uow:
        uow.outbox.add(OutboxMessage(id="m-1", kind=kind, payload=payload, created_at=NOW))
        uow.commit()
    assert _dispatch(deps, InMemoryMailer()) == (0, 0, 0, 1)
    assert [e.last_error for e in list_outbox(deps, OutboxStatus.FAILED)] == [error]


def test_a_claimed_message_is_not_claimed_again_until_its_lease_runs_out(
    deps: Deps, clock: FixedClock, paid: str
) -> None:
    lease = RetryPolicy().lease
    with deps.uow() as uow:
        assert len(uow.outbox_queue.claim_due(NOW, lease=lease, limit=10)) == 2
        uow.commit()
    mailer = InMemoryMailer()
    assert _dispatch(deps, mailer) == (0, 0, 0, 0)  # another worker holds them
    clock.advance(lease)
    assert _dispatch(deps, mailer) == (2, 0, 0, 0)  # that worker died: they are taken over


class SlowMailer(InMemoryMailer):
    """Each send takes ``minutes`` of the clock, and another worker makes a pass while it lasts."""

    def __init__(self, clock: FixedClock, minutes: int, other_worker: Callable[[], object]) -> None:
        super().__init__()
        self.clock, self.minutes, self.other_worker = clock, minutes, other_worker

    def send(self, notification: Notification, *, message_id: str) -> None:
        self.clock.advance(timedelta(minutes=self.minutes))
        self.other_worker()
        super().send(notification, message_id=message_id)


LEASE = RetryPolicy(lease=timedelta(minutes=10))


def _two_paid_bookings(deps: Deps) -> None:
    anna = user_actor(deps)
    for n, hour in enumerate((10, 12)):
        pay(deps, book(deps, anna, at(2, hour)), anna, event_id=f"evt_{n}")


def _each_once(*mailers: InMemoryMailer) -> list[str]:
    """The Message-IDs the mailers sent more than once between them."""
    sent = Counter(message_id for mailer in mailers for _, message_id in mailer.sent)
    return [message_id for message_id, times in sent.items() if times > 1]


def test_a_batch_that_outlasts_its_lease_stays_with_its_worker(deps: Deps, clock: FixedClock) -> None:
    _two_paid_bookings(deps)
    other = InMemoryMailer()
    # four sends of four minutes under a lease of ten: from the second on, the worker finds less
    # than three quarters of the lease left and renews its holds first, so the other worker, which
    # comes by during every send, never finds a message whose lease has run out
    slow = SlowMailer(clock, 4, lambda: dispatch_outbox(deps, email_only(other), policy=LEASE))
    result = dispatch_outbox(deps, email_only(slow), policy=LEASE)
    assert _each_once(slow, other) == []
    assert (len(slow.sent), len(other.sent), result.sent, result.lost) == (4, 0, 4, 0)
    assert outbox_counts(deps)[OutboxStatus.SENT] == 4


def test_a_worker_that_stalled_past_its_lease_leaves_the_rest_of_its_batch(
    deps: Deps, clock: FixedClock
) -> None:
    _two_paid_bookings(deps)
    other = InMemoryMailer()
    passes: list[DispatchResult] = []
    # the first send stalls for longer than the lease: the other worker takes over the whole batch
    stalled = SlowMailer(
        clock, 11, lambda: passes.append(dispatch_outbox(deps, email_only(other), policy=LEASE))
    )
    result = dispatch_outbox(deps, email_only(stalled), policy=LEASE)
    assert len(stalled.sent) == 1  # the one it was sending; the rest it no longer held
    assert (result.sent, result.lost) == (1, 3)
    assert [p.sent for p in passes] == [4]
    assert outbox_counts(deps)[OutboxStatus.SENT] == 4


# --------------------------------------------------------------------------- channels and secrets


@dataclass
class RecordingNotifier:
    """A channel of its own (text messages, say): what a new channel adds, and nothing else."""

    sent: list[tuple[str, dict[str, object]]] = field(default_factory=list)

    def delivery_id(self, outbox_id: str) -> str:
        return f"sms-{outbox_id}"

    def deliver(self, entry: OutboxEntry, *, delivery_id: str, read: Callable[[], UnitOfWork]) -> str | None:
        with read() as uow:  # a channel resolves what the payload names, like e-mail does
            assert uow.users.get(str(entry.payload["user_id"])) is not None
        self.sent.append((delivery_id, dict(entry.payload)))
        return None


def test_each_message_goes_through_the_notifier_of_its_kind(deps: Deps, paid: str) -> None:
    anna = user_actor(deps, "sms@example.com")
    with deps.uow() as uow:
        text = OutboxMessage(id="t-1", kind="sms", payload={"user_id": anna.user_id}, created_at=NOW)
        uow.outbox.add(text)
        uow.commit()
    mailer, texts = InMemoryMailer(), RecordingNotifier()
    result = dispatch_outbox(deps, {EMAIL_KIND: EmailNotifier(mailer), "sms": texts}, policy=POLICY)
    assert (result.sent, result.failed) == (3, 0)
    assert texts.sent == [("sms-t-1", {"user_id": anna.user_id})]
    assert sorted(n.template for n, _ in mailer.sent) == ["booking_paid_operator", "booking_paid_user"]
    [sent_text] = [e for e in list_outbox(deps) if e.kind == "sms"]
    assert (sent_text.status, sent_text.message_id) == (OutboxStatus.SENT, "sms-t-1")


def test_a_mailer_in_place_of_the_notifiers_is_still_the_email_channel(deps: Deps, paid: str) -> None:
    mailer = InMemoryMailer()
    with pytest.warns(DeprecationWarning, match="email_only"):
        assert dispatch_outbox(deps, mailer).sent == 2  # type: ignore[arg-type]
    assert len(mailer.sent) == 2


def _code_mail(deps: Deps) -> None:
    anna = user_actor(deps)
    with deps.uow() as uow:
        uow.outbox.add(
            OutboxMessage.account_email(
                MailTemplate.PASSWORD_RESET, anna.user_id, "271828", id="c-1", now=NOW
            )
        )
        uow.commit()


def test_a_one_time_code_is_kept_until_its_mail_is_sent_then_forgotten(deps: Deps, clock: FixedClock) -> None:
    _code_mail(deps)
    mailer = InMemoryMailer(down=True)
    assert _dispatch(deps, mailer) == (0, 0, 1, 0)
    [waiting] = list_outbox(deps)
    assert waiting.payload["code"] == "271828"  # the next try needs it
    mailer.down = False
    clock.advance(POLICY.cap)
    assert _dispatch(deps, mailer) == (1, 0, 0, 0)
    assert [n.code for n, _ in mailer.sent] == ["271828"]
    [sent] = list_outbox(deps)
    assert sent.status is OutboxStatus.SENT
    assert sent.payload == {"template": "password_reset", "user_id": waiting.payload["user_id"]}


# --------------------------------------------------------------------------- the retry policy

policies = st.builds(
    RetryPolicy,
    max_attempts=st.integers(1, 50),
    base=st.timedeltas(timedelta(seconds=1), timedelta(hours=1)),
    cap=st.timedeltas(timedelta(hours=1), timedelta(days=2)),
)


@given(policies, st.integers(1, 200), st.floats(0, 1))
def test_a_wait_lies_between_half_and_all_of_its_ceiling(
    policy: RetryPolicy, attempts: int, jitter: float
) -> None:
    ceiling = min(policy.cap, policy.base * 2 ** min(attempts - 1, 32))
    assert ceiling / 2 <= policy.delay(attempts, jitter) <= ceiling


@given(policies, st.integers(1, 200), st.floats(0, 1), st.floats(0, 1))
def test_the_fixed_half_of_the_wait_never_shrinks(
    policy: RetryPolicy, attempts: int, jitter: float, other: float
) -> None:
    # the shortest wait after a later attempt is at least the shortest after an earlier one
    assert policy.delay(attempts + 1, 0) >= policy.delay(attempts, 0)
    assert policy.delay(attempts, min(jitter, other)) <= policy.delay(attempts, max(jitter, other))


@given(policies, st.integers(0, 60))
def test_giving_up_happens_at_the_bound(policy: RetryPolicy, attempts: int) -> None:
    assert policy.gives_up(attempts) == (attempts >= policy.max_attempts)
