"""List answers (CONTRACT section 4.7): a plain JSON array, and a ``Link`` to the next page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlencode

from litestar import Request, Response
from litestar.datastructures import ResponseHeader

from booking_core.paging import Paged

T = TypeVar("T")
S = TypeVar("S")

#: The OpenAPI description of the header every list may answer with.
LINK_HEADER = ResponseHeader(
    name="Link",
    documentation_only=True,
    description='`<URL>; rel="next"`: the full URL of the next page, present when more items follow',
)


def paged_response(
    request: Request[Any, Any, Any], found: Paged[T], render: Callable[[T], S]
) -> Response[list[S]]:
    """The page's items rendered, with ``Link: <URL>; rel="next"`` when more follow."""
    headers: dict[str, str] = {}
    if found.next_offset is not None:
        query = [(k, v) for k, v in request.query_params.multi_items() if k != "offset"]
        following = request.url.with_replacements(query=urlencode([*query, ("offset", found.next_offset)]))
        headers["Link"] = f'<{following}>; rel="next"'
    return Response(content=[render(item) for item in found.items], headers=headers)
