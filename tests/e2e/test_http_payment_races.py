"""Races on the payment path, against `booking serve` with several worker processes, on SQLite and PostgreSQL.

Each case of issue 10 is played as a hostile tester would: requests and provider deliveries for the
same bookings sent at the same moment from many threads. Every case ends with the same check: each
booking's status, payments, refund requests, commission and outbox rows agree
(``tests.support.ledger``), no two bookings that block time overlap, and no answer was a 5xx.
"""

from __future__ import annotations

import itertools
import json
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from adapters.sqla import make_engine
from tests.support.arena import BERLIN, CLIENT, DESK, OTHER, as_client, as_user, catalog, signed
from tests.support.ledger import assert_consistent, read
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import serving

pytestmark = pytest.mark.slow

COURTS = 4
#: The client's external id of the catalog's first user (registered by email before the cases run).
PAYER = "payer-1"


class Service:
    """The running service, its database, and the requests the cases send."""

    def __init__(self, base: str, url: str) -> None:
        self.base, self.url = base, url
        self.courts = [r["id"] for r in httpx.get(f"{base}/api/v1/resources/").json()]
        self._slots = itertools.count()
        self.answers: list[httpx.Response] = []
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ requests

    def _send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        response = httpx.request(method, f"{self.base}{path}", timeout=60, **kw)
        with self._lock:
            self.answers.append(response)
        return response

    def slot(self) -> tuple[int, str, str]:
        """A court and an hour nobody else in this module books."""
        n = next(self._slots)
        day = datetime.now(BERLIN).date() + timedelta(days=3 + n // (COURTS * 14))
        hour = 8 + (n // COURTS) % 14
        start = datetime(day.year, day.month, day.day, hour, tzinfo=BERLIN)
        return self.courts[n % COURTS], start.isoformat(), (start + timedelta(hours=1)).isoformat()

    def book(self, who: dict[str, str], slot: tuple[int, str, str]) -> httpx.Response:
        court, start, end = slot
        body = {"resource": court, "start_datetime": start, "end_datetime": end}
        return self._send("POST", "/api/v1/bookings/", json=body, headers=who)

    def booked(self, who: dict[str, str] | None = None) -> str:
        """A new pending booking (of the user, or ``who``) with its payment intent; its id."""
        who = who or as_user()
        response = self.book(who, self.slot())
        assert response.status_code == 201, response.text
        booking_id = str(response.json()["id"])
        self.intent(booking_id, who)
        return booking_id

    def intent(self, booking_id: str, who: dict[str, str] | None = None) -> httpx.Response:
        path = f"/api/v1/bookings/{booking_id}/create-payment-intent/"
        return self._send("POST", path, headers=who or as_user())

    def intent_id(self, booking_id: str) -> str:
        engine = make_engine(self.url)
        try:
            with engine.connect() as db:
                stmt = text(
                    "SELECT payment_intent_id FROM payments WHERE booking_id = :b ORDER BY created_at"
                )
                return str(db.execute(stmt, {"b": booking_id}).scalars().all()[-1])
        finally:
            engine.dispose()

    def cancel(self, booking_id: str, who: dict[str, str] | None = None) -> httpx.Response:
        return self._send("POST", f"/api/v1/bookings/{booking_id}/cancel/", headers=who or as_user(), json={})

    def staff_cancel(self, booking_id: str) -> httpx.Response:
        """The venue's desk cancels the booking giving back all that was paid (CONTRACT 7.4)."""
        path = f"/api/v1/operator/bookings/{booking_id}/cancel/"
        return self._send("POST", path, headers=as_user(DESK), json={"reason": "other", "refund": "full"})

    def event(
        self, kind: str, booking_id: str, *, amount: int = 2000, currency: str = "eur", **obj: Any
    ) -> httpx.Response:
        """Deliver a signed provider event about the booking's (latest) intent, with a new event id."""
        intent = obj.pop("intent", None) or self.intent_id(booking_id)
        found: dict[str, Any] = {
            "amount": amount,
            "currency": currency,
            "metadata": {"booking_id": booking_id},
        }
        if kind == "charge.refunded":
            found |= {
                "id": f"ch_{secrets.token_hex(6)}",
                "object": "charge",
                "payment_intent": intent,
                "refunded": True,
            }
        else:
            found |= {"id": intent, "object": "payment_intent"}
        if kind == "payment_intent.payment_failed":
            found["last_payment_error"] = {"message": "Your card was declined."}
        payload = json.dumps(
            {"id": f"evt_{secrets.token_hex(8)}", "type": kind, "data": {"object": found | obj}}
        )
        return self._send("POST", "/webhooks/provider/", content=payload, headers=signed(payload.encode()))

    def at_once(self, calls: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
        """Send every call at the same moment, one thread each."""
        start = threading.Barrier(len(calls))

        def run(call: Callable[[], httpx.Response]) -> httpx.Response:
            start.wait()
            return call()

        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            return list(pool.map(run, calls))

    # ------------------------------------------------------------------ what the database says

    def check(self) -> None:
        """The check every case ends with."""
        assert_consistent(read(self.url))
        failed = [(r.request.url.path, r.status_code, r.text) for r in self.answers if r.status_code >= 500]
        assert not failed, failed

    def stories(self, booking_ids: list[str]) -> dict[str, Any]:
        return read(self.url, booking_ids)

    def execute(self, sql: str, **params: Any) -> None:
        engine = make_engine(self.url)
        try:
            with engine.begin() as db:
                db.execute(text(sql), params)
        finally:
            engine.dispose()


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp = tmp_path_factory.mktemp("payments")
    if request.param == "postgresql":
        require_postgres()
        with temporary_database() as url, serving(url, catalog(COURTS), tmp, workers=4) as base:
            yield _registered(Service(base, url))
    else:
        url = f"sqlite:///{tmp / 'race.sqlite3'}"
        with serving(url, catalog(COURTS), tmp, workers=3) as base:
            yield _registered(Service(base, url))


def _registered(service: Service) -> Service:
    body = {"external_id": PAYER, "email": "player@example.com"}
    response = httpx.post(f"{service.base}/api/v1/client/users/register/", json=body, headers=as_user(CLIENT))
    assert response.status_code == 201, response.text
    return service


# --------------------------------------------------------------------------- the cases of the issue


def test_cancel_and_payment_at_the_same_moment_end_cancelled_and_refunded(service: Service) -> None:
    bookings = [service.booked() for _ in range(8)]
    calls = [
        c
        for b in bookings
        for c in (lambda b=b: service.cancel(b), lambda b=b: service.event("payment_intent.succeeded", b))
    ]
    answers = service.at_once(calls)
    assert [a.status_code for a in answers] == [200] * len(calls), [a.text for a in answers]
    for booking_id, story in service.stories(bookings).items():
        assert story.status == "cancelled", booking_id
        assert list(story.payments.values()) == ["refund_pending"]
        assert len(story.refund_requests) == 1
        assert story.booking["cancellation_reason"] == "user_request"
    service.check()


def test_payment_for_a_booking_its_owner_cancelled_is_refunded_and_answered_200(service: Service) -> None:
    bookings = [service.booked() for _ in range(4)]
    for booking_id in bookings:
        assert service.cancel(booking_id).status_code == 200
    answers = service.at_once(
        [lambda b=b: service.event("payment_intent.succeeded", b) for b in bookings * 3]
    )
    assert [a.status_code for a in answers] == [200] * len(answers)
    for story in service.stories(bookings).values():
        assert (story.status, list(story.payments.values())) == ("cancelled", ["refund_pending"])
        assert len(story.refund_requests) == 1
    service.check()


def test_late_payments_race_new_bookings_for_their_time(service: Service) -> None:
    slots = [service.slot() for _ in range(8)]
    late = []
    for slot in slots:
        response = service.book(as_user(), slot)
        assert response.status_code == 201, response.text
        late.append(str(response.json()["id"]))
        assert service.intent(late[-1]).status_code == 200
    past = datetime.now(UTC) - timedelta(minutes=1)
    for booking_id in late:  # the holds lapse (as if 600 minutes had passed)
        service.execute(
            "UPDATE bookings SET hold_expires_at = :past WHERE id = :id", past=past, id=booking_id
        )
    contested = range(5)  # for these slots someone else books the same time at the same moment
    calls = [lambda b=b: service.event("payment_intent.succeeded", b) for b in late]
    calls += [lambda s=slots[i]: service.book(as_user(OTHER), s) for i in contested]
    answers = service.at_once(calls)
    assert all(a.status_code == 200 for a in answers[: len(late)])
    rivals = answers[len(late) :]
    stories = service.stories(late)
    for i, booking_id in enumerate(late):
        story = stories[booking_id]
        won = i in contested and rivals[i].status_code == 201
        if won:  # the time went to the rival: the late payment is given back
            assert (story.status, list(story.payments.values())) == ("cancelled", ["refund_pending"])
            assert len(story.refund_requests) == 1
        else:  # the time was still free when the payment came: it books it
            assert (story.status, list(story.payments.values())) == ("paid", ["succeeded"]), i
            assert i not in contested or rivals[i].status_code == 400
    service.check()


def test_events_out_of_order_end_as_in_order(service: Service) -> None:
    # in sequence: a refund before the success it refunds, a failure after a success
    refunded_first = service.booked(as_client(PAYER))
    assert service.event("charge.refunded", refunded_first).status_code == 200
    assert service.event("payment_intent.succeeded", refunded_first).status_code == 200
    failed_last = service.booked()
    assert service.event("payment_intent.succeeded", failed_last).status_code == 200
    assert service.event("payment_intent.payment_failed", failed_last).status_code == 200
    stories = service.stories([refunded_first, failed_last])
    assert (stories[refunded_first].status, list(stories[refunded_first].payments.values())) == (
        "refunded",
        ["refunded"],
    )
    assert stories[refunded_first].commissions == ["reversed"]
    assert (stories[failed_last].status, list(stories[failed_last].payments.values())) == (
        "paid",
        ["succeeded"],
    )
    # all at once, for many bookings: success, failure and refund each, twice
    bookings = [service.booked(as_client(PAYER)) for _ in range(4)]
    kinds = ["payment_intent.succeeded", "payment_intent.payment_failed", "charge.refunded"]
    answers = service.at_once([lambda b=b, k=k: service.event(k, b) for b in bookings for k in kinds * 2])
    assert [a.status_code for a in answers] == [200] * len(answers)
    for story in service.stories(bookings).values():
        assert (story.status, list(story.payments.values())) == ("refunded", ["refunded"])
        assert story.commissions == ["reversed"]
    service.check()


def test_events_that_do_not_match_the_booking_change_nothing(service: Service) -> None:
    booking_id, other_id = service.booked(), service.booked()
    wrong = [
        lambda: service.event("payment_intent.succeeded", booking_id, currency="usd"),
        lambda: service.event("payment_intent.succeeded", booking_id, amount=1999),
        lambda: service.event("payment_intent.succeeded", booking_id, intent=service.intent_id(other_id)),
        lambda: service.event("payment_intent.succeeded", booking_id, intent="pi_sandbox_not_ours"),
        lambda: service.event("charge.refunded", booking_id, currency="usd"),
    ]
    assert [call().status_code for call in wrong] == [200] * len(wrong)
    for story in service.stories([booking_id, other_id]).values():
        assert (story.status, list(story.payments.values())) == ("pending", ["requires_payment"])
    service.check()


def test_thirty_deliveries_of_one_success_write_one_confirmation_and_one_commission(service: Service) -> None:
    booking_id = service.booked(as_client(PAYER))
    answers = service.at_once([lambda: service.event("payment_intent.succeeded", booking_id)] * 30)
    assert [a.status_code for a in answers] == [200] * 30
    story = service.stories([booking_id])[booking_id]
    assert story.status == "paid"
    assert story.notices == {"booking_paid_user": 1, "booking_paid_operator": 1}
    assert story.commissions == ["open"]
    service.check()


def test_thirty_intent_requests_get_one_intent(service: Service) -> None:
    response = service.book(as_user(), service.slot())
    booking_id = str(response.json()["id"])
    answers = service.at_once([lambda: service.intent(booking_id)] * 30)
    assert [a.status_code for a in answers] == [200] * 30, {a.text for a in answers}
    assert len({a.json()["payment_intent_id"] for a in answers}) == 1
    assert len(service.stories([booking_id])[booking_id].payments) == 1
    service.check()


def test_concurrent_cancels_of_a_paid_booking_one_wins_one_refund(service: Service) -> None:
    booking_id = service.booked(as_client(PAYER))
    assert service.event("payment_intent.succeeded", booking_id).status_code == 200
    answers = service.at_once([lambda: service.cancel(booking_id, as_client(PAYER))] * 6)
    assert sorted(a.status_code for a in answers) == [200] + [400] * 5, [a.text for a in answers]
    for refused in (a for a in answers if a.status_code == 400):
        assert refused.json() == {"error": "Cannot cancel a booking with status 'cancelled'."}
    story = service.stories([booking_id])[booking_id]
    assert (story.status, list(story.payments.values())) == ("cancelled", ["refund_pending"])
    assert len(story.refund_requests) == 1
    assert story.commissions == ["reversed"]
    assert story.notices["booking_cancelled_user"] == 1
    # the provider reports the refund (twice, as it may): refunded, once
    answers = service.at_once([lambda: service.event("charge.refunded", booking_id)] * 2)
    assert [a.status_code for a in answers] == [200, 200]
    story = service.stories([booking_id])[booking_id]
    assert (story.status, story.notices["booking_refunded_user"]) == ("refunded", 1)
    service.check()


def test_a_staff_cancel_racing_the_payment_and_the_customers_cancel_gives_back_one_payment_at_most(
    service: Service,
) -> None:
    """CONTRACT 7.9 and 4.3: the venue's cancel, the customer's cancel and the payment's success for one
    booking at the same moment. Whichever comes first, the booking ends cancelled, its payment is
    given back exactly once, and nothing answers 5xx; of the two cancels one wins."""
    bookings = [service.booked() for _ in range(6)]
    calls = [
        call
        for b in bookings
        for call in (
            lambda b=b: service.staff_cancel(b),
            lambda b=b: service.cancel(b),
            lambda b=b: service.event("payment_intent.succeeded", b),
        )
    ]
    answers = service.at_once(calls)
    assert {a.status_code for a in answers} <= {200, 400}, [a.text for a in answers]
    for n in range(len(bookings)):
        staff, customer, payment = answers[3 * n : 3 * n + 3]
        assert payment.status_code == 200
        assert sorted([staff.status_code, customer.status_code]) == [200, 400], (staff.text, customer.text)
    for booking_id, story in service.stories(bookings).items():
        assert story.status == "cancelled", booking_id
        assert list(story.payments.values()) == ["refund_pending"], booking_id
        assert len(story.refund_requests) == 1, booking_id
    service.check()
