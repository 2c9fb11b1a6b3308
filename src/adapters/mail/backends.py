"""Mail transports without a server: one ``.eml`` file per message, or the console."""

from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import TextIO

from jinja2 import TemplateError

from adapters.mail.render import render_email
from booking_core.errors import MailDeliveryFailed
from booking_core.notifications import Notification

log = logging.getLogger(__name__)


def rendered(notification: Notification, *, sender: str, message_id: str) -> EmailMessage:
    """The message, or a permanent delivery failure when it cannot be built (a bad address, say)."""
    try:
        return render_email(notification, sender=sender, message_id=message_id)
    except (TemplateError, ValueError, TypeError) as error:
        raise MailDeliveryFailed(f"cannot build the message: {error}", permanent=True) from error


class FileMailer:
    """Writes each message to ``<directory>/<Message-ID>.eml`` (``BOOKING_MAIL_BACKEND=file``).

    The name comes from the Message-ID, so a message tried again replaces its own file; the file
    appears whole (written aside, then renamed).
    """

    def __init__(self, directory: Path, *, sender: str) -> None:
        self.directory = directory
        self.sender = sender

    def send(self, notification: Notification, *, message_id: str) -> None:
        """Write the message file."""
        message = rendered(notification, sender=self.sender, message_id=message_id)
        name = re.sub(r"[^A-Za-z0-9._-]", "_", message_id.strip("<>")) + ".eml"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "wb") as out:
                out.write(message.as_bytes(policy=policy.SMTP))
            os.replace(temporary, self.directory / name)
        except OSError as error:
            raise MailDeliveryFailed(f"cannot write to {self.directory}: {error.strerror}") from error


class ConsoleMailer:
    """Prints each message to standard output (``BOOKING_MAIL_BACKEND=console``), for development."""

    def __init__(self, *, sender: str, stream: TextIO | None = None) -> None:
        self.sender = sender
        self._stream = stream

    def send(self, notification: Notification, *, message_id: str) -> None:
        """Print the whole message, attachments included."""
        message = rendered(notification, sender=self.sender, message_id=message_id)
        stream = self._stream or sys.stdout
        stream.write(f"{'-' * 30} email {message_id} {'-' * 30}\n")
        stream.write(message.as_string(policy=policy.default))
        stream.write("\n")
        stream.flush()
