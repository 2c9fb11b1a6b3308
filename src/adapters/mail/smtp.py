"""Mail through an SMTP server (``BOOKING_MAIL_BACKEND=smtp``): STARTTLS, login, timeouts.

A failure the server calls permanent (a 5xx answer to the recipient or the message) ends the
message's tries; everything else (refused connection, timeout, 4xx) is tried again later.
"""

from __future__ import annotations

import smtplib
import ssl

from adapters.mail.backends import rendered
from booking_core.errors import MailDeliveryFailed
from booking_core.notifications import Notification

#: Seconds for connecting and for each answer of the server. A send takes about a dozen answers (with
#: STARTTLS and login), so it ends within the 7.5 minutes of its hold on the message that the worker
#: makes sure of before it starts (``RetryPolicy.needs_renewal``), even with a server that stalls.
TIMEOUT_SECONDS = 30.0


class SmtpMailer:
    """One connection per message: the worker sends a few messages a minute, not thousands."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        sender: str,
        username: str | None = None,
        password: str | None = None,
        starttls: bool = False,
        timeout: float = TIMEOUT_SECONDS,
        tls_context: ssl.SSLContext | None = None,
    ) -> None:
        self.sender = sender
        self._host, self._port = host, port
        self._username, self._password = username, password
        self._starttls = starttls
        self._timeout = timeout
        self._tls_context = tls_context or ssl.create_default_context()

    def send(self, notification: Notification, *, message_id: str) -> None:
        """Deliver one message to the server."""
        message = rendered(notification, sender=self.sender, message_id=message_id)
        try:
            with smtplib.SMTP(self._host, self._port, timeout=self._timeout) as server:
                if self._starttls:
                    server.starttls(context=self._tls_context)
                if self._username:
                    server.login(self._username, self._password or "")
                server.send_message(message)
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _ in error.recipients.values()]
            raise MailDeliveryFailed(_describe(error), permanent=all(c >= 500 for c in codes)) from error
        except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as error:
            raise MailDeliveryFailed(_describe(error), permanent=error.smtp_code >= 500) from error
        except (smtplib.SMTPException, OSError) as error:
            # connection refused or lost, timeouts, TLS and login trouble: may pass on a later try
            raise MailDeliveryFailed(f"SMTP {self._host}:{self._port}: {_describe(error)}") from error


def _describe(error: Exception) -> str:
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return "; ".join(
            f"{address}: {code} {reply.decode(errors='replace')}"
            for address, (code, reply) in error.recipients.items()
        )
    if isinstance(error, smtplib.SMTPResponseException):
        return f"{error.smtp_code} {error.smtp_error.decode(errors='replace')}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
