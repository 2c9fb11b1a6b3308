"""Checks of the raw request that hold for every API endpoint, before any handler sees it.

The JSON decoder recurses once per level of nesting and expects UTF-8: a body of 100,000 ``[``
would exhaust Python's recursion limit, and bytes that are not UTF-8 raise a decoding error that
is not a JSON error. Both are refused here, in linear time and without recursion, before the body
is decoded. (Its size is bounded by ``request_max_body_size``: 413.)
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.exceptions import ClientException

from booking_core.limits import MAX_JSON_DEPTH
from entrypoints.http.strict_input import check_body, check_parameters

NULL_CHARACTERS = "Null characters are not allowed."
NOT_UTF8 = "The request body must be UTF-8 encoded JSON."
TOO_DEEP = f"JSON must not be nested more than {MAX_JSON_DEPTH} levels deep."

_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")


def nested_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the JSON text ``body`` nests arrays and objects more than ``limit`` deep.

    Only bytes operations, which run in C: strings are cut out (escapes first, then every other
    piece between quotes), what is left is reduced to its brackets, all of one kind, and each round
    removes the innermost pairs. ``limit + 1`` openers in a row prove the depth at once. Text that
    is not JSON may be judged either way; the decoder refuses it in any case.
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    text = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = b"".join(text.split(b'"')[::2]).translate(_ONE_KIND, _NOT_BRACKETS)
    too_many = b"[" * (limit + 1)
    for _ in range(limit):
        if not skeleton:
            return False
        if too_many in skeleton:
            return True
        inner_removed = skeleton.replace(b"[]", b"")
        if len(inner_removed) == len(skeleton):  # unbalanced
            return True
        skeleton = inner_removed
    return bool(skeleton)


async def check_request(request: Request[Any, Any, Any]) -> None:
    """400 for a NUL character in the query or body, a body that is not UTF-8, or JSON nested too deep;
    integers and bodies not written as their types say (``strict_input``)."""
    # in the raw query a NUL is "%00" (every "%" starts an escape) or the byte itself; reading it
    # there spares the routes that take no parameters from parsing the query at all
    query: bytes = request.scope["query_string"]
    if b"%00" in query or b"\x00" in query:
        raise ClientException(NULL_CHARACTERS)
    check_parameters(request)
    if request.method not in {"POST", "PUT", "PATCH"}:
        return
    body = await request.body()
    if b"\\u0000" in body or b"\x00" in body:  # no database can store one in text
        raise ClientException(NULL_CHARACTERS)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        raise ClientException(NOT_UTF8) from None
    if nested_too_deep(body):
        raise ClientException(TOO_DEEP)
    check_body(request, body)
