"""``BOOKING_SECRET_KEY``, or the key the service made for itself (CONTRACT 2).

Unset, a random key is written once into ``BOOKING_SECRET_KEY_FILE`` (``var/secret_key``, beside the
SQLite default) with mode 0600 and read from there on every later start. ``booking serve`` makes it
before it starts its workers; should processes start at once on an empty directory anyway, each
writes its own candidate to a private file and links it into place, which only the first can do
(``link`` fails on an existing name): all of them then read the winner's key, never a half-written file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import replace
from pathlib import Path

from entrypoints.config import MIN_SECRET_KEY, ConfigError, Settings


def with_secret_key(settings: Settings) -> Settings:
    """``settings`` with ``secret_key`` set: its own, or the one kept in ``secret_key_file``."""
    if settings.secret_key:
        return settings
    return replace(settings, secret_key=kept_secret_key(settings.secret_key_file))


def kept_secret_key(path: Path) -> str:
    """The key stored at ``path``, made there first if there is none (ConfigError in one line)."""
    try:
        if not path.exists():
            _create(path)
        key = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"BOOKING_SECRET_KEY: cannot keep a generated key in {path}: {error}") from None
    if len(key) < MIN_SECRET_KEY:
        raise ConfigError(
            f"BOOKING_SECRET_KEY: {path} holds no key of at least {MIN_SECRET_KEY} characters; "
            "delete it to have a new one made, or set BOOKING_SECRET_KEY"
        )
    return key


def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    candidate = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(secrets.token_urlsafe(48) + "\n")
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another process was first: its key is the one
            os.link(candidate, path)
    finally:
        candidate.unlink(missing_ok=True)
