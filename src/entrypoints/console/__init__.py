"""The operator console (CONTRACT 8): server-rendered pages for venue staff at ``/console/``.

Jinja2 templates through Litestar's template engine, working with JavaScript switched off; a session
cookie and CSRF tokens signed with ``BOOKING_SECRET_KEY`` (``session``); every label in the staff
member's language (``i18n``). The pages act through the operator use cases with their permissions.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from litestar import Router
from litestar.datastructures import ResponseHeader
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.static_files import create_static_files_router
from litestar.template import TemplateConfig

from booking_core.staff import Action
from entrypoints.console import (
    admin_commissions,
    admin_mappings,
    admin_staff,
    blocks,
    booking_list,
    bookings,
    new_booking,
    report,
    settings,
    signin,
    venues,
)
from entrypoints.console.i18n import gettext_callables
from entrypoints.console.pages import EXCEPTION_HANDLERS
from entrypoints.console.session import PATH, console_middleware

_HERE = Path(__file__).parent
STATIC = f"{PATH}/static"
#: Pages load nothing from elsewhere, run no script, and are framed by nobody (the day sheet places
#: its cards with style attributes, hence inline styles).
_HEADERS = [
    ResponseHeader(
        name="Content-Security-Policy",
        value="default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'none'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ResponseHeader(name="X-Content-Type-Options", value="nosniff"),
    ResponseHeader(name="Referrer-Policy", value="same-origin"),
]


def console_router(secret_key: str, public_url: str) -> Router:
    """The console's pages under ``/console``, with its session and CSRF check."""
    return Router(
        path=PATH,
        route_handlers=[
            *signin.handlers,
            *venues.handlers,
            *bookings.handlers,
            *new_booking.handlers,
            *blocks.handlers,
            *booking_list.handlers,
            *admin_mappings.handlers,
            *admin_commissions.handlers,
            *admin_staff.handlers,
            *report.handlers,
            *settings.handlers,
        ],
        middleware=console_middleware(secret_key, public_url),
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        response_headers=_HEADERS,
        include_in_schema=False,
    )


def console_static() -> Router:
    """The console's stylesheet (outside the session: a file needs no cookie)."""
    return create_static_files_router(
        path=STATIC, directories=[_HERE / "static"], include_in_schema=False, name="console_static"
    )


def console_templates() -> TemplateConfig[JinjaTemplateEngine]:
    """Jinja2 with the i18n extension, escaping everything, refusing undefined names."""
    environment = Environment(
        loader=FileSystemLoader(_HERE / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.install_gettext_callables(**gettext_callables(), newstyle=True)  # type: ignore[attr-defined]
    environment.globals["static"] = lambda name: f"{STATIC}/{name}"
    environment.globals["Action"] = Action  # the navigation offers what ``staff.may`` allows
    return TemplateConfig(instance=JinjaTemplateEngine.from_environment(environment))
