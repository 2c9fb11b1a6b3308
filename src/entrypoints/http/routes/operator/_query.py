"""Query parameters of the operator API that the use cases read: a refusal names the parameter in
``{"error": "<name>: <message>"}`` (CONTRACT 4.8), as Litestar's own refusals of queries do."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

from booking_core.errors import BadRequest, ValidationFailed
from booking_core.limits import parse_date


@contextmanager
def query_errors() -> Iterator[None]:
    """A use case's field error about a query parameter, as a query parameter's 400."""
    try:
        yield
    except ValidationFailed as error:
        raise BadRequest(f"{error.field}: {error.message}" if error.field else error.message) from None


def query_date(name: str, text: str | None) -> date | None:
    """The date ``YYYY-MM-DD`` in query parameter ``name``, if given."""
    if not text:
        return None
    try:
        return parse_date(text)
    except ValueError as error:
        raise BadRequest(f"{name}: {error}") from None
