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
from booking_core.ports import IdempotencyRecord, IdempotentRequest
from booking_core.usecases.deps import Deps
from booking_core.usecases.idempotency import replay, request_fingerprint

REPLAYED_HEADER = "Idempotent-Replayed"

V = TypeVar("V")


def idempotent(
    deps: Deps,
    *,
    key: str | None,
    principal: Principal,
    actor: Actor,
    endpoint: str,
    body: msgspec.Struct | None,
    run: Callable[[IdempotentRequest[V] | None], V],
    render: Callable[[V], tuple[int, msgspec.Struct]],
) -> Response[bytes]:
    """Run the use case once per (caller, endpoint, key); replay its stored response on a retry.

    ``run`` calls the use case with the :class:`IdempotentRequest` it is given (None without a key),
    which stores the answer in the use case's transaction; ``render`` turns the use case's result
    into the status and body of the response.
    """
    if key is None:
        return json_response(*render(run(None)))
    scope = f"{endpoint}|client:{principal.client_id or '-'}|user:{principal.user_id or '-'}"
    canonical = msgspec.json.encode({"actor": actor.user_id, "body": body}, order="sorted")
    fingerprint = request_fingerprint("POST", endpoint, canonical)
    record = replay(deps, scope, key, fingerprint)
    if record is not None:
        return _replayed(record)

    def answer(result: V) -> tuple[int, bytes]:
        status, struct = render(result)
        return status, msgspec.json.encode(struct)

    try:
        result = run(IdempotentRequest(scope=scope, key=key, request_hash=fingerprint, answer=answer))
    except DomainError:
        record = replay(deps, scope, key, fingerprint)
        if record is not None:  # a concurrent request with this key won: answer as it did
            return _replayed(record)
        raise
    return _json(*answer(result))


def json_response(status: int, answer: msgspec.Struct) -> Response[bytes]:
    """``answer`` encoded as the JSON body of a ``status`` response."""
    return _json(status, msgspec.json.encode(answer))


def _replayed(record: IdempotencyRecord) -> Response[bytes]:
    return _json(record.status_code, record.body, {REPLAYED_HEADER: "true"})


def _json(status: int, content: bytes, headers: dict[str, Any] | None = None) -> Response[bytes]:
    return Response(content=content, status_code=status, media_type=MediaType.JSON, headers=headers)
