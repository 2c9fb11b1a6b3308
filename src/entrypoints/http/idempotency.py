"""``Idempotency-Key`` on the POSTs that create something: a retry replays the first response.

The key is scoped to the caller (token principal) and the endpoint. Two requests are "the same" when
their decoded bodies are equal (compared canonically, so key order and whitespace do not matter) and
they act for the same user. The same key with another request is refused with 422.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from litestar import MediaType, Response

from booking_core.accounts import Actor, Principal
from booking_core.usecases.deps import Deps
from booking_core.usecases.idempotency import remember, replay, request_fingerprint

IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
_MAX_KEY_LENGTH = 255


def idempotent(
    deps: Deps,
    *,
    key: str | None,
    principal: Principal,
    actor: Actor,
    endpoint: str,
    body: msgspec.Struct | None,
    run: Callable[[], tuple[int, msgspec.Struct]],
) -> Response[bytes]:
    """Run ``run`` once per (caller, endpoint, key); replay its stored response on a retry."""
    if not key:
        status, answer = run()
        return _json(status, msgspec.json.encode(answer))
    key = key.strip()[:_MAX_KEY_LENGTH]
    scope = f"{endpoint}|client:{principal.client_id or '-'}|user:{principal.user_id or '-'}"
    canonical = msgspec.json.encode({"actor": actor.user_id, "body": body}, order="sorted")
    fingerprint = request_fingerprint("POST", endpoint, canonical)
    record = replay(deps, scope, key, fingerprint)
    if record is not None:
        return _json(record.status_code, record.body, {REPLAYED_HEADER: "true"})
    status, answer = run()
    encoded = msgspec.json.encode(answer)
    remember(deps, scope, key, fingerprint, status, encoded)
    return _json(status, encoded)


def _json(status: int, content: bytes, headers: dict[str, Any] | None = None) -> Response[bytes]:
    return Response(content=content, status_code=status, media_type=MediaType.JSON, headers=headers)
