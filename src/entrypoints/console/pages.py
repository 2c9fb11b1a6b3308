"""Rendering a console page: the template with the language, its formats and the signed-in staff member;
and the page that explains an error in words a person can act on."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    NotFoundException,
    PermissionDeniedException,
    TooManyRequestsException,
)
from litestar.response import Redirect, Template

from booking_core.errors import DomainError, Forbidden, NotFound, PermissionDenied, StorageUnavailable
from booking_core.staff import Staff
from entrypoints.console.i18n import LANGUAGES, Formats
from entrypoints.console.session import NotSignedIn, language

LOGIN = "/console/login"
HOME = "/console/"


class ConsoleError(Exception):
    """A request the console refuses with a page: ``problem`` names the message (``error.html``)."""

    def __init__(self, status: int, problem: str) -> None:
        super().__init__(problem)
        self.status = status
        self.problem = problem


def page(
    request: Request[Any, Any, Any],
    template: str,
    *,
    staff: Staff | None = None,
    status: int = 200,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> Template:
    """``template`` in the session's language, for ``staff`` (None: nobody signed in)."""
    speaks = language(request)
    query = request.url.query
    return Template(
        template_name=template,
        status_code=status,
        headers=headers,
        context={
            "language": speaks,
            "languages": LANGUAGES,
            "fmt": Formats(speaks),
            "staff": staff,
            "here": request.url.path + (f"?{query}" if query else ""),
            **context,
        },
    )


def _problem(exc: Exception) -> tuple[int, str]:
    match exc:
        case ConsoleError():
            return exc.status, exc.problem
        case NotFound() | NotFoundException():
            return 404, "not_found"
        case PermissionDenied() | Forbidden():
            return 403, "forbidden"
        case PermissionDeniedException():  # the CSRF check: no token, or not the one we gave
            return 403, "csrf"
        case TooManyRequestsException():
            return 429, "throttled"
        case StorageUnavailable():
            return 503, "unavailable"
        case HTTPException() if exc.status_code >= 500:
            return exc.status_code, "unavailable"
    return 400, "bad_request"


def error_page(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """The console's errors as pages in the person's language (the JSON API keeps its own)."""
    if isinstance(exc, NotSignedIn):
        return Redirect(LOGIN, status_code=303)
    status, problem = _problem(exc)
    return page(request, "error.html", status=status, problem=problem)


#: The console router's error handling: the domain's errors and Litestar's own become pages.
EXCEPTION_HANDLERS = {
    NotSignedIn: error_page,
    ConsoleError: error_page,
    DomainError: error_page,
    HTTPException: error_page,
}
