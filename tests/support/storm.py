"""A webhook storm against ``booking serve`` on PostgreSQL, and the model its outcome is checked against.

Each booking gets a realistic history of provider events (the intent created, declined cards, the
success, the charge, perhaps the refund, in full or in part; some bookings cancelled by their owner
before the payment arrives, some paid and then cancelled by the venue, giving part of the payment
back or none of it). Every event is delivered twice and all deliveries are shuffled, then posted from several
threads at once to a server with four worker processes. The outcome must equal what applying each
event once, in its true order, gives: :func:`expected` computes that with a plain model of the
contract (CONTRACT 4.3, 5 and 9.2), independent of the service's state machine. Meanwhile the mail server
is down; once it is up, every message arrives exactly once.
"""

from __future__ import annotations

import random
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import httpx
import psycopg
from aiosmtpd.controller import Controller

from booking_core.booking import CancellationReason
from booking_core.refund_choice import RefundChoice
from booking_core.usecases.venue_cancel import cancel_booking_for_venue
from entrypoints.bootstrap import bootstrap
from entrypoints.config import load_settings
from tests.support.arena import HOUR_MINOR, as_client, as_user, catalog, event, hour, intent_ids, signed
from tests.support.ledger import Story, assert_consistent, read
from tests.support.server import BOOKING, free_port, prepared, running

CREATED, FAILED, SUCCEEDED = (
    "payment_intent.created",
    "payment_intent.payment_failed",
    "payment_intent.succeeded",
)
CHARGED, REFUNDED = "charge.succeeded", "charge.refunded"
#: A ``charge.refunded`` of part of the charge: ``amount_refunded`` is :data:`PART_MINOR`.
PARTLY = "charge.refunded (part)"
HANDLED = {FAILED, SUCCEEDED, REFUNDED, PARTLY}
#: The part of the 20.00 EUR (2000 minor units) a partial refund gives back.
PART_MINOR = 500
COURTS = 4
EVENTS_PER_BOOKING = 5
SENDERS = 8  # concurrent deliveries; with 4 processes this keeps well within max_connections

#: What happens before the storm: nothing, the owner cancels the booking (pending, intent open), or
#: the booking is paid (its success delivered once) and the venue cancels it, giving back
#: :data:`PART_MINOR` or nothing.
NOTHING, OWNER, VENUE_PART, VENUE_NONE = "", "owner cancels", "venue gives part back", "venue keeps all"

#: Five events per booking, in the order the provider would send them, and what happens before.
SCENARIOS: dict[str, tuple[str, tuple[str, ...]]] = {
    "paid after a declined card": (NOTHING, (CREATED, FAILED, FAILED, SUCCEEDED, CHARGED)),
    "paid, then refunded": (NOTHING, (CREATED, FAILED, SUCCEEDED, CHARGED, REFUNDED)),
    "every card declined": (NOTHING, (CREATED, FAILED, FAILED, FAILED, FAILED)),
    "cancelled, then paid: refunded at once": (OWNER, (CREATED, FAILED, FAILED, SUCCEEDED, CHARGED)),
    "cancelled, paid, refund reported": (OWNER, (CREATED, FAILED, SUCCEEDED, CHARGED, REFUNDED)),
    "paid, part refunded at the dashboard, then the rest": (
        NOTHING,
        (CREATED, SUCCEEDED, CHARGED, PARTLY, REFUNDED),
    ),
    "cancelled by the venue, the part it gives back reported": (
        VENUE_PART,
        (CREATED, FAILED, SUCCEEDED, CHARGED, PARTLY),
    ),
    "cancelled by the venue keeping it, part refunded at the dashboard": (
        VENUE_NONE,
        (CREATED, FAILED, SUCCEEDED, CHARGED, PARTLY),
    ),
}


@dataclass
class Planned:
    """One booking of the storm: who booked it, whether it was cancelled, and its events in order."""

    booking_id: str
    through_client: bool
    before: str  # one of NOTHING, OWNER, VENUE_PART, VENUE_NONE
    events: list[tuple[str, str]]  # (event id, type)


@dataclass
class Expected:
    """What the database must hold about one booking."""

    status: str = "pending"
    payment: str = "requires_payment"
    commissions: list[str] = field(default_factory=list)
    notices: Counter[str] = field(default_factory=Counter)
    refund_requests: int = 0
    #: minor units reported given back, and what the venue asked back (None: all, once asked)
    refunded: int = field(default=0, compare=False)
    asked: int | None = field(default=None, compare=False)


def expected(plan: Planned) -> Expected:
    """Each event of ``plan`` applied once, in order, by the contract's rules."""
    state = Expected()
    events = [kind for _, kind in plan.events]
    if plan.before == OWNER:
        state.status = "cancelled"
        state.notices["booking_cancelled_user"] += 1
    if plan.before in {VENUE_PART, VENUE_NONE}:  # paid first, then cancelled by the venue
        _apply(state, SUCCEEDED, plan.through_client)
        _venue_cancel(state, PART_MINOR if plan.before == VENUE_PART else 0)
    for kind in events:
        _apply(state, kind, plan.through_client)
    return state


def _venue_cancel(state: Expected, back: int) -> None:
    """The venue cancels a paid booking, ``back`` of the payment to go back (CONTRACT 7.4, 9.2)."""
    state.status = "cancelled"
    state.notices["booking_cancelled_by_venue_user"] += 1
    if back:  # the part is asked back; the commission follows what the venue keeps
        state.payment, state.asked = "refund_pending", back
        state.refund_requests += 1


def _apply(state: Expected, kind: str, through_client: bool) -> None:
    is_open = state.payment in {"requires_payment", "failed"}
    if kind == FAILED and is_open:
        state.payment = "failed"
    elif kind == SUCCEEDED and is_open:
        if state.status == "pending":  # booked; the client earns its commission; both are told
            state.status, state.payment = "paid", "succeeded"
            state.commissions += ["open"] if through_client else []
            state.notices.update(["booking_paid_user", "booking_paid_operator"])
        else:  # the owner cancelled it: the payment goes back at once
            state.payment = "refund_pending"
            state.refund_requests += 1
    elif kind == REFUNDED:
        if is_open:  # a refund reported before its success: the success first
            _apply(state, SUCCEEDED, through_client)
        if state.payment in {"succeeded", "refund_pending"}:
            state.status, state.payment = "refunded", "refunded"
            state.commissions = ["reversed" for _ in state.commissions]
            state.notices["booking_refunded_user"] += 1
        elif state.payment == "refunded" and state.refunded < HOUR_MINOR:  # the rest of a part refunded
            state.commissions = ["reversed" for _ in state.commissions]
        state.refunded = HOUR_MINOR
    elif kind == PARTLY and state.refunded < PART_MINOR and state.refunded < HOUR_MINOR:
        # the booking keeps its status (the commission is reduced, still open), unless it is the part
        # the venue asked back: then it is refunded
        state.refunded = PART_MINOR
        if state.payment == "refund_pending" and state.asked is not None and state.asked <= PART_MINOR:
            state.status, state.payment = "refunded", "refunded"
            state.notices["booking_refunded_user"] += 1


@dataclass
class Figures:
    """What a storm run measured."""

    bookings: int
    events: int
    deliveries: int
    seconds: float
    setup_seconds: float
    messages: int
    mail_seconds: float

    @property
    def per_second(self) -> float:
        return self.deliveries / self.seconds

    def __str__(self) -> str:
        return (
            f"webhook storm: {self.events} events for {self.bookings} bookings, {self.deliveries} deliveries "
            f"in {self.seconds:.1f} s ({self.per_second:.0f} deliveries/s, {self.events / self.seconds:.0f} "
            f"events/s) on 4 server processes; setup {self.setup_seconds:.1f} s; {self.messages} messages "
            f"held through the SMTP outage, then delivered once each in {self.mail_seconds:.1f} s"
        )


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append(envelope.original_content)
        return "250 OK queued"


@contextmanager
def storm_server(url: str, tmp: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``booking serve`` with 4 processes on ``url``, mail through SMTP on a port nobody listens on."""
    smtp = {
        "BOOKING_MAIL_BACKEND": "smtp",
        "BOOKING_SMTP_HOST": "127.0.0.1",
        "BOOKING_SMTP_PORT": str(free_port()),
    }
    env = prepared(url, catalog(courts=COURTS), tmp, workers=4, env=smtp)
    with running(env, tmp) as server:
        yield server.base, env


def run_storm(url: str, tmp: Path, bookings: int, *, seed: int = 13) -> Figures:
    """Book, storm, check everything; the figures of the run."""
    chance = random.Random(seed)
    with storm_server(url, tmp) as (base, env), httpx.Client(base_url=base, timeout=120) as http:
        started = time.monotonic()
        plans = _book(http, url, bookings)
        setup = time.monotonic() - started
        deliveries = [(p.booking_id, event_id, kind) for p in plans for event_id, kind in p.events] * 2
        booking_of = {p.booking_id: p for p in plans}
        chance.shuffle(deliveries)
        intents = intent_ids(url)

        def deliver(item: tuple[str, str, str]) -> httpx.Response:
            booking_id, event_id, kind = item
            return _deliver(http, booking_id, event_id, kind, intents[booking_id])

        _cancelled_by_venue(http, env, plans, intents)

        started = time.monotonic()
        answers = _all_at_once(deliver, deliveries)
        seconds = time.monotonic() - started
        refused = [
            (a.status_code, a.text) for a in answers if (a.status_code, a.json()) != (200, {"received": True})
        ]
        assert not refused, refused[:5]

        stories = read(url)
        for booking_id, plan in booking_of.items():
            _agree(booking_id, stories[booking_id], expected(plan))
        assert_consistent(stories)
        _count_totals(url, plans)
        started = time.monotonic()
        messages = _mail_arrives_once(url, env)
        mail_seconds = time.monotonic() - started
    return Figures(bookings, len(deliveries) // 2, len(deliveries), seconds, setup, messages, mail_seconds)


def _deliver(http: httpx.Client, booking_id: str, event_id: str, kind: str, intent_id: str) -> httpx.Response:
    if kind == PARTLY:
        payload = event(event_id, REFUNDED, booking_id, intent_id, refunded=PART_MINOR)
    else:
        payload = event(event_id, kind, booking_id, intent_id)
    return http.post("/webhooks/provider/", content=payload, headers=signed(payload))


def _cancelled_by_venue(
    http: httpx.Client, env: dict[str, str], plans: list[Planned], intents: dict[str, str]
) -> None:
    """The bookings the venue cancels: paid (their success delivered once), then cancelled through the
    core as the operator's route does, the part given back sent to the provider at once."""
    services = bootstrap(load_settings(env, env_file=None))
    try:
        for plan in (p for p in plans if p.before in {VENUE_PART, VENUE_NONE}):
            success = next(event_id for event_id, kind in plan.events if kind == SUCCEEDED)
            paid = _deliver(http, plan.booking_id, success, SUCCEEDED, intents[plan.booking_id])
            assert paid.status_code == 200, paid.text
            part = plan.before == VENUE_PART
            cancel_booking_for_venue(
                services.deps,
                plan.booking_id,
                reason=CancellationReason.WEATHER,
                refund=RefundChoice.AMOUNT if part else RefundChoice.NONE,
                amount=services.deps.currencies.unit("EUR").from_minor(PART_MINOR) if part else None,
            )
    finally:
        services.engine.dispose()


def _book(http: httpx.Client, url: str, bookings: int) -> list[Planned]:
    registered = http.post(
        "/api/v1/client/users/register/",
        json={"external_id": "arena-player", "email": "player@example.com"},
        headers=as_client(),
    )
    assert registered.status_code == 201, registered.text
    courts = [r["id"] for r in http.get("/api/v1/resources/").json()]
    names = list(SCENARIOS)

    def one(n: int) -> Planned:
        who = as_client() if n % 2 else as_user()
        response = http.post("/api/v1/bookings/", json=hour(courts[n % COURTS], n // COURTS), headers=who)
        assert response.status_code == 201, response.text
        booking_id = str(response.json()["id"])
        paying = http.post(f"/api/v1/bookings/{booking_id}/create-payment-intent/", headers=who)
        assert paying.status_code == 200, paying.text
        before, kinds = SCENARIOS[names[n % len(names)]]
        if before == OWNER:
            answer = http.post(f"/api/v1/bookings/{booking_id}/cancel/", json={}, headers=who)
            assert answer.status_code == 200, answer.text
        events = [(f"evt_storm_{n:04d}_{k}", kind) for k, kind in enumerate(kinds)]
        return Planned(booking_id, bool(n % 2), before, events)

    with ThreadPoolExecutor(max_workers=SENDERS) as pool:
        return list(pool.map(one, range(bookings)))


def _all_at_once(deliver: Callable[[Any], httpx.Response], items: list[Any]) -> list[httpx.Response]:
    start = threading.Barrier(SENDERS)

    def sender(share: list[Any]) -> list[httpx.Response]:
        start.wait()
        return [deliver(item) for item in share]

    with ThreadPoolExecutor(max_workers=SENDERS) as pool:
        shares = pool.map(sender, [items[i::SENDERS] for i in range(SENDERS)])
        return [answer for share in shares for answer in share]


def _agree(booking_id: str, story: Story, want: Expected) -> None:
    found = Expected(
        status=story.status,
        payment=next(iter(story.payments.values())),
        commissions=story.commissions,
        notices=+story.notices,
        refund_requests=len(story.refund_requests),
    )
    assert found == want, f"booking {booking_id}: stored {found}, expected {want}"


def _count_totals(url: str, plans: list[Planned]) -> None:
    """The sums over the whole storm, counted in the tables themselves."""
    wants = [expected(p) for p in plans]
    handled = {event_id for p in plans for event_id, kind in p.events if kind in HANDLED}
    with psycopg.connect(url) as db:
        processed = {row[0] for row in db.execute("SELECT event_id FROM processed_events")}
        commissions = Counter(
            dict(db.execute("SELECT status, count(*) FROM commissions GROUP BY status").fetchall())
        )
        refunds = db.execute("SELECT count(*), count(accepted_at) FROM refund_requests").fetchone()
        outbox = db.execute("SELECT count(*) FROM outbox").fetchone()
    assert processed == handled
    assert commissions == Counter(c for w in wants for c in w.commissions)
    requested = sum(w.refund_requests for w in wants)
    assert refunds == (requested, requested)  # each asked for once, and accepted by the provider
    assert outbox == (sum(sum(w.notices.values()) for w in wants),)


def _mail_arrives_once(url: str, env: dict[str, str]) -> int:
    """The mail server was down all along: nothing sent, nothing failed; once it is up, each arrives once."""
    with psycopg.connect(url, autocommit=True) as db:
        deadline = time.monotonic() + 60
        # the servers' workers meet the outage: each message is tried, fails, and is kept for later
        untried = "SELECT count(*) FROM outbox WHERE attempts = 0 OR last_error IS NULL"
        while db.execute(untried).fetchone() != (0,):
            assert time.monotonic() < deadline, "the workers never tried to send"
            time.sleep(0.5)
        statuses = dict(db.execute("SELECT status, count(*) FROM outbox GROUP BY status").fetchall())
        assert set(statuses) == {"pending"}, statuses
        errors = {str(row[0]) for row in db.execute("SELECT last_error FROM outbox")}
        assert all("Connection refused" in e or "ConnectionRefused" in e for e in errors), errors
        db.execute("UPDATE outbox SET due_at = now()")  # instead of waiting out the backoff
    inbox = _Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=int(env["BOOKING_SMTP_PORT"]))
    controller.start()
    try:
        # the servers' own workers send too, side by side with this command
        subprocess.run([BOOKING, "outbox", "dispatch"], env=env, check=True, capture_output=True)
        with psycopg.connect(url, autocommit=True) as db:
            deadline = time.monotonic() + 60
            while db.execute("SELECT count(*) FROM outbox WHERE status <> 'sent'").fetchone() != (0,):
                assert time.monotonic() < deadline, "mail still unsent"
                time.sleep(0.5)
            sent = {row[0] for row in db.execute("SELECT message_id FROM outbox")}
    finally:
        controller.stop()
    received = [message_from_bytes(raw, policy=policy.default)["Message-ID"] for raw in inbox.messages]
    assert len(received) == len(sent)
    assert set(received) == sent
    return len(received)
