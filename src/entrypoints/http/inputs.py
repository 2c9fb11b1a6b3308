"""Input checks that hold for every endpoint, before any handler sees the request."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.exceptions import ClientException

NULL_CHARACTERS = "Null characters are not allowed."


async def reject_null_characters(request: Request[Any, Any, Any]) -> None:
    """400 for a NUL character in the query or a JSON body: no database can store one in text."""
    if any("\x00" in key or "\x00" in value for key, value in request.query_params.multi_items()):
        raise ClientException(NULL_CHARACTERS)
    if request.method in {"POST", "PUT", "PATCH"}:
        body = await request.body()
        if b"\\u0000" in body or b"\x00" in body:
            raise ClientException(NULL_CHARACTERS)
