"""List answers (CONTRACT section 4.7): a plain JSON array, and a ``Link`` to the next page.

The link starts with ``BOOKING_PUBLIC_URL``: a request's ``Host`` header is the caller's to choose,
and a link built from it would send the next request wherever the caller (or a cache) said.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode

from litestar import Request, Response
from litestar.datastructures import ResponseHeader

from booking_core.paging import Paged

T = TypeVar("T")
S = TypeVar("S")

#: The application state's key of ``BOOKING_PUBLIC_URL`` (no trailing slash).
PUBLIC_URL_STATE = "public_url"

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
        sent = parse_qsl(request.scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        query = [(k, v) for k, v in sent if k != "offset"]  # in the order sent
        # the path as sent: Litestar's own drops the trailing slash that the interface's paths carry
        raw_path = request.scope.get("raw_path", b"").partition(b"?")[0]  # some servers leave the query on
        path = raw_path.decode("ascii", "replace") or request.url.path
        public_url: str = request.app.state[PUBLIC_URL_STATE]
        following = f"{public_url}{path}?{urlencode([*query, ('offset', found.next_offset)])}"
        headers["Link"] = f'<{following}>; rel="next"'
    return Response(content=[render(item) for item in found.items], headers=headers)
