"""Pages of a listing (CONTRACT section 4.7): at most ``limit`` items from ``offset``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from booking_core.errors import ValidationFailed
from booking_core.limits import DEFAULT_PAGE_SIZE, INT64_MAX, MAX_PAGE_SIZE

T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    """Which part of a listing to return; out-of-range values are refused as field errors."""

    limit: int = DEFAULT_PAGE_SIZE
    offset: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.limit <= MAX_PAGE_SIZE:
            raise ValidationFailed(f"Ensure this value is between 1 and {MAX_PAGE_SIZE}.", field="limit")
        if not 0 <= self.offset <= INT64_MAX:
            raise ValidationFailed(f"Ensure this value is between 0 and {INT64_MAX}.", field="offset")


@dataclass(frozen=True, slots=True)
class Paged(Generic[T]):
    """One page of items; ``next_offset`` is where the following page starts, None on the last."""

    items: list[T]
    next_offset: int | None

    def map(self, convert: Callable[[T], U]) -> Paged[U]:
        """The same page with each item converted."""
        return Paged([convert(item) for item in self.items], self.next_offset)


def fetch_page(page: Page, fetch: Callable[[int, int], list[T]]) -> Paged[T]:
    """The page of what ``fetch(limit, offset)`` returns, asked for one item more than the page
    so that storage, which does the limiting, also tells whether more follow."""
    rows = fetch(page.limit + 1, page.offset)
    more = len(rows) > page.limit
    return Paged(rows[: page.limit], page.offset + page.limit if more else None)
