"""A small recording stand-in for Stripe's API, for the real ``stripe`` SDK to talk to.

It answers the calls the gateway makes (create and retrieve a PaymentIntent, create a refund, in full
or of an ``amount``) the way Stripe does, replays answers for a repeated ``Idempotency-Key``, records
every request (method, path, headers, form fields) for the tests to assert on, keeps what each intent
gave back (``amount_refunded``; a refund beyond it is refused, as Stripe refuses it), and can be told
to fail: an error answer, a stall past the client's timeout, or a connection closed without an answer.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    params: dict[str, str]

    @property
    def idempotency_key(self) -> str | None:
        return self.headers.get("idempotency-key")


@dataclass
class _Failure:
    kind: str  # "status", "stall" or "drop"
    status: int = 500
    seconds: float = 0.0
    path: str | None = None  # only requests to this path; None: any


@dataclass
class FakeStripe:
    """The server's state; ``url`` is its base address (``BOOKING_STRIPE_API_BASE``)."""

    url: str = ""
    requests: list[Recorded] = field(default_factory=list)
    intents: dict[str, dict[str, Any]] = field(default_factory=dict)
    refunds: dict[str, dict[str, Any]] = field(default_factory=dict)
    _replays: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    _failures: list[_Failure] = field(default_factory=list)
    _counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail_next(self, status: int = 500, times: int = 1, *, path: str | None = None) -> None:
        """Answer the next ``times`` requests (to ``path``, if given) with a Stripe error of ``status``."""
        self._failures.extend(_Failure("status", status=status, path=path) for _ in range(times))

    def stall_next(self, seconds: float, times: int = 1, *, path: str | None = None) -> None:
        """Wait ``seconds`` before answering the next ``times`` requests (to ``path``, if given)."""
        self._failures.extend(_Failure("stall", seconds=seconds, path=path) for _ in range(times))

    def drop_next(self, times: int = 1, *, path: str | None = None) -> None:
        """Close the connection of the next ``times`` requests (to ``path``, if given) without answering."""
        self._failures.extend(_Failure("drop", path=path) for _ in range(times))

    def posts(self, path: str) -> list[Recorded]:
        """The POST requests to ``path``."""
        return [r for r in self.requests if r.method == "POST" and r.path == path]

    def succeed(self, intent_id: str) -> dict[str, Any]:
        """Mark an intent paid, as the customer's confirmation in the browser would."""
        intent = self.intents[intent_id]
        intent["status"] = "succeeded"
        intent["amount_received"] = intent["amount"]
        return intent

    def cancel(self, intent_id: str) -> dict[str, Any]:
        """Give an intent up, as Stripe does with one left unpaid."""
        intent = self.intents[intent_id]
        intent["status"] = "canceled"
        return intent

    # ------------------------------------------------------------------ the API

    def answer(
        self, method: str, path: str, headers: dict[str, str], params: dict[str, str]
    ) -> tuple[int, Any]:
        key = headers.get("idempotency-key")
        with self._lock:
            if method == "POST" and key and key in self._replays:
                return self._replays[key]
            status, body = self._route(method, path, params)
            if method == "POST" and key and status < 500:
                self._replays[key] = (status, body)
        return status, body

    def _route(self, method: str, path: str, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if method == "POST" and path == "/v1/payment_intents":
            return self._create_intent(params)
        if method == "GET" and path.startswith("/v1/payment_intents/"):
            intent = self.intents.get(path.rsplit("/", 1)[1])
            return (200, intent) if intent else _error(404, "No such payment_intent", "resource_missing")
        if method == "POST" and path == "/v1/refunds":
            return self._refund(params)
        return _error(404, f"Unrecognized request URL ({method}: {path})")

    def _create_intent(self, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if not params.get("amount", "").isdigit() or int(params["amount"]) < 1:
            return _error(400, "Invalid positive integer", "parameter_invalid_integer")
        number = next(self._counter)
        intent_id = f"pi_fake_{number:06d}"
        intent: dict[str, Any] = {
            "id": intent_id,
            "object": "payment_intent",
            "amount": int(params["amount"]),
            "amount_received": 0,
            "currency": params.get("currency", ""),
            "client_secret": f"{intent_id}_secret_{number:04d}",
            "status": "requires_payment_method",
            "description": params.get("description"),
            "metadata": _nested(params, "metadata"),
            "transfer_data": _nested(params, "transfer_data") or None,
            "livemode": False,
        }
        self.intents[intent_id] = intent
        return 200, intent

    def _refund(self, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        intent = self.intents.get(params.get("payment_intent", ""))
        if intent is None:
            return _error(404, "No such payment_intent", "resource_missing")
        if intent["status"] != "succeeded":
            return _error(400, "This PaymentIntent does not have a successful charge to refund.")
        if params.get("reverse_transfer") == "true" and not intent["transfer_data"]:
            return _error(400, "reverse_transfer is only for charges with a transfer")
        left = intent["amount"] - intent.get("amount_refunded", 0)
        amount = int(params["amount"]) if params.get("amount", "").isdigit() else left
        if ("amount" in params and not params["amount"].isdigit()) or amount < 1:
            return _error(400, "Invalid positive integer", "parameter_invalid_integer")
        if amount > left:
            return _error(400, f"Refund amount ({amount}) is greater than unrefunded amount ({left}).")
        intent["amount_refunded"] = intent.get("amount_refunded", 0) + amount
        refund_id = f"re_fake_{next(self._counter):06d}"
        refund = {
            "id": refund_id,
            "object": "refund",
            "amount": amount,
            "currency": intent["currency"],
            "payment_intent": intent["id"],
            "status": "succeeded",
        }
        self.refunds[refund_id] = refund
        return 200, refund

    def next_failure(self, path: str) -> _Failure | None:
        with self._lock:
            for index, failure in enumerate(self._failures):
                if failure.path in {None, path}:
                    return self._failures.pop(index)
            return None


def _nested(params: dict[str, str], name: str) -> dict[str, str]:
    prefix = f"{name}["
    return {k[len(prefix) : -1]: v for k, v in params.items() if k.startswith(prefix) and k.endswith("]")}


def _error(status: int, message: str, code: str | None = None) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"type": "invalid_request_error", "message": message, "code": code}}


def _handler(fake: FakeStripe) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode() if length else ""
            path, _, query = self.path.partition("?")
            params = dict(parse_qsl(raw or query, keep_blank_values=True))
            headers = {k.lower(): v for k, v in self.headers.items()}
            fake.requests.append(Recorded(self.command, path, headers, params))
            failure = fake.next_failure(path)
            if failure and failure.kind == "drop":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if failure and failure.kind == "stall":
                time.sleep(failure.seconds)
            if failure and failure.kind == "status":
                status, body = _error(failure.status, "Something went wrong on the fake's side.")
                body["error"]["type"] = "api_error" if failure.status >= 500 else "card_error"
            else:
                status, body = fake.answer(self.command, path, headers, params)
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Request-Id", f"req_fake_{len(fake.requests)}")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up waiting (a timeout test)

        do_GET = _serve  # noqa: N815 - http.server's names
        do_POST = _serve  # noqa: N815

    return Handler


@contextmanager
def fake_stripe() -> Iterator[FakeStripe]:
    """Run a fake on a free loopback port for the length of the block."""
    fake = FakeStripe()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="fake-stripe", daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
