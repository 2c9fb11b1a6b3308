"""The sandbox's webhook signature: Stripe's scheme (:mod:`adapters.payments.stripe.signature`),
checked here against the service's clock, so tests and ``booking sandbox pay`` can move time."""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import datetime

from adapters.payments.stripe.signature import INVALID_SIGNATURE, TOLERANCE_SECONDS
from booking_core.errors import BadRequest

_TIMESTAMP = re.compile(r"[0-9]{1,12}")


def sign(payload: bytes, secret: str, timestamp: int) -> str:
    """The signature header value for ``payload`` sent at ``timestamp`` (for senders and tests)."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(payload: bytes, header: str | None, secret: str, now: datetime) -> None:
    """Raise BadRequest unless ``header`` signs ``payload`` with ``secret`` within the tolerance."""
    parts = [p.split("=", 1) for p in (header or "").split(",") if "=" in p]
    timestamps = [v.strip() for k, v in parts if k.strip() == "t"]
    signatures = [v.strip() for k, v in parts if k.strip() == "v1"]
    # ASCII digits of a plausible length: int() of thousands of digits fails, and a float of them
    # overflows
    if len(timestamps) != 1 or not _TIMESTAMP.fullmatch(timestamps[0]) or not signatures:
        raise BadRequest(INVALID_SIGNATURE)
    timestamp = int(timestamps[0])
    if abs(int(now.timestamp()) - timestamp) > TOLERANCE_SECONDS:
        raise BadRequest(INVALID_SIGNATURE)
    expected = sign(payload, secret, timestamp).split("v1=", 1)[1]
    # compare_digest refuses non-ASCII strings (a TypeError), and no real signature is one
    if not any(s.isascii() and hmac.compare_digest(expected, s) for s in signatures):
        raise BadRequest(INVALID_SIGNATURE)
