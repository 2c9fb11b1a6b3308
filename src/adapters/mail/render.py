"""A notification as a MIME message: text and HTML parts from Jinja2 templates, and the ``.ics``.

Templates live in ``templates/<language>/<template>.txt.j2`` and ``.html.j2``; the text template
sets the subject (``{% set subject = ... %}``). HTML is autoescaped, text is not. A booking's
templates read its facts as ``f``; an account email's read ``n.code`` and ``n.code_valid_hours``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from adapters.mail import formats
from adapters.mail.calendar import booking_calendar
from booking_core.notifications import Notification

_ENV = Environment(
    loader=PackageLoader("adapters.mail", "templates"),
    autoescape=select_autoescape(enabled_extensions=("html.j2",), default_for_string=False),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_ENV.filters["money"] = formats.money
_ENV.filters["long_date"] = formats.long_date
_ENV.filters["clock"] = formats.clock


def render_email(
    notification: Notification, *, sender: str, message_id: str, now: datetime | None = None
) -> EmailMessage:
    """The complete message, headers included, ready for any transport."""
    now = now or datetime.now(UTC)
    language = notification.language.value
    context = {"n": notification, "f": notification.facts, "lang": language}
    base = f"{language}/{notification.template.value}"
    text = _ENV.get_template(f"{base}.txt.j2").make_module(context)
    html = _ENV.get_template(f"{base}.html.j2").render(context)
    subject = " ".join(str(text.subject).split())
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = sender
    message["To"] = Address(display_name=notification.recipient_name, addr_spec=notification.recipient)
    if notification.reply_to:
        message["Reply-To"] = notification.reply_to
    message["Date"] = format_datetime(now)
    message["Message-ID"] = message_id
    message.set_content(str(text))
    message.add_alternative(html, subtype="html")
    if notification.has_calendar_event and notification.facts is not None:
        message.add_attachment(
            booking_calendar(
                notification.facts, sender=sender, now=now, sequence=notification.change.calendar_sequence
            ),
            subtype="calendar",
            filename=f"booking-{notification.facts.reference_code}.ics",
            params={"method": "PUBLISH"},
        )
    message["Content-Language"] = language  # last: setting the parts moves Content-* headers
    return message
