"""``Idempotency-Key`` on the POSTs that create something: a retry replays the first response.

The key (1 to 255 printable ASCII characters, checked as the header is read and never cut, so two
keys never share a record) is scoped to the caller (token principal) and the endpoint. Two requests
are "the same" when their decoded bodies are equal (compared canonically, so key order and
whitespace do not matter) and they act for the same user. The same key with another request is
refused with 422.

The first response is stored in the same transaction as the work it answers: both are durable, or
neither is. When two requests with one key race, the loser's transaction fails (on the slot or on the
key) and it replays the winner's response.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
from litestar import MediaType, Response

from booking_core.accounts import Actor, Principal
from booking_core.errors import DomainError
from booking_core.ports import IdempotencyRecord, UnitOfWork
from booking_core.usecases.deps import Deps
from booking_core.usecases.idempotency import remember_in, replay, request_fingerprint

REPLAYED_HEADER = "Idempotent-Replayed"

V = TypeVar("V")
#: What a use case calls, inside its transaction and before committing, with its result.
Recorder = Callable[[UnitOfWork, V], None]


def idempotent(
    deps: Deps,
    *,
    key: str | None,
    principal: Principal,
    actor: Actor,
    endpoint: str,
    body: msgspec.Struct | None,
    run: Callable[[Recorder[V] | None], V],
    render: Callable[[V], tuple[int, msgspec.Struct]],
) -> Response[bytes]:
    """Run the use case once per (caller, endpoint, key); replay its stored response on a retry.

    ``run`` calls the use case, passing on the recorder it is given (None without a key);
    ``render`` turns the use case's result into the status and body of the response.
    """
    if key is None:
        return json_response(*render(run(None)))
    scope = f"{endpoint}|client:{principal.client_id or '-'}|user:{principal.user_id or '-'}"
    canonical = msgspec.json.encode({"actor": actor.user_id, "body": body}, order="sorted")
    fingerprint = request_fingerprint("POST", endpoint, canonical)
    record = replay(deps, scope, key, fingerprint)
    if record is not None:
        return _replayed(record)
    sent: list[tuple[int, bytes]] = []

    def remember(uow: UnitOfWork, result: V) -> None:
        status, answer = render(result)
        encoded = msgspec.json.encode(answer)
        remember_in(uow, scope, key, fingerprint, status, encoded, deps.clock.now())
        sent.append((status, encoded))

    try:
        result = run(remember)
    except DomainError:
        record = replay(deps, scope, key, fingerprint)
        if record is not None:  # a concurrent request with this key won: answer as it did
            return _replayed(record)
        raise
    if sent:
        return _json(*sent[-1])
    return json_response(*render(result))  # the use case stored nothing to remember


def json_response(status: int, answer: msgspec.Struct) -> Response[bytes]:
    """``answer`` encoded as the JSON body of a ``status`` response."""
    return _json(status, msgspec.json.encode(answer))


def _replayed(record: IdempotencyRecord) -> Response[bytes]:
    return _json(record.status_code, record.body, {REPLAYED_HEADER: "true"})


def _json(status: int, content: bytes, headers: dict[str, Any] | None = None) -> Response[bytes]:
    return Response(content=content, status_code=status, media_type=MediaType.JSON, headers=headers)
