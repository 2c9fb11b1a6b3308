"""Email: rendering (Jinja2 templates, MIME, ``.ics``) and the transports behind ``Mailer``."""

from adapters.mail.backends import ConsoleMailer, FileMailer
from adapters.mail.render import render_email
from adapters.mail.smtp import SmtpMailer

__all__ = ["ConsoleMailer", "FileMailer", "SmtpMailer", "render_email"]
