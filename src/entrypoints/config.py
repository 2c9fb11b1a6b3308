"""Settings from ``BOOKING_*`` environment variables, optionally from a ``.env`` file.

The real environment wins over ``.env``. An empty value counts as unset (the default applies).
Every invalid value raises :class:`ConfigError` with one line that names the variable, so the
command line can print it and exit without a traceback.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from booking_core.iban import parse_bic, parse_iban
from booking_core.limits import control_character

T = TypeVar("T")

# Placeholders of the offline sandbox provider, not secrets.
SANDBOX_SECRET_KEY = "sk_test_sandbox"  # noqa: S105
SANDBOX_PUBLISHABLE_KEY = "pk_test_sandbox"
_DB_URL_PREFIXES = ("sqlite://", "postgresql://", "postgres://", "postgresql+psycopg://")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class ConfigError(Exception):
    """Invalid configuration; the message is one line naming the variable."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything the service reads from its environment (CONTRACT section 2)."""

    database_url: str = "sqlite:///var/booking.sqlite3"
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    payment_provider: str = "sandbox"
    stripe_secret_key: str = SANDBOX_SECRET_KEY
    stripe_publishable_key: str = SANDBOX_PUBLISHABLE_KEY
    stripe_webhook_secret: str = "whsec_dev"  # noqa: S105  (development default of the contract)
    stripe_api_base: str | None = None  # None: Stripe's own API
    mail_backend: str = "file"
    mail_dir: Path = Path("var/mail")
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_starttls: bool = False
    mail_from: str = "bookings@localhost"
    pending_hold_minutes: int = 15
    max_unpaid_per_user: int = 5
    rate_limit_per_minute: int = 600
    login_rate_limit_per_minute: int = 10
    inprocess_worker: bool = True
    #: Read-only work (browsing, availability, lists) goes here when set; it may lag the primary.
    database_replica_url: str | None = None
    #: Rate-limit counters shared through Redis when set; each process counts alone otherwise.
    redis_url: str | None = None
    #: Prefix of every key the service writes to Redis, so deployments (or tests) can share one server.
    redis_namespace: str = "booking"
    #: Peers (load balancers) whose ``X-Forwarded-For`` names the client; from others it is ignored.
    forwarded_allow_ips: tuple[str, ...] = ()
    sepa_debtor: SepaDebtorSettings = field(default_factory=lambda: SepaDebtorSettings())
    #: The longest a request waits for one database lock; past it, 503 instead of hanging.
    db_lock_timeout_ms: int = 5000
    #: Where people reach the service: every link it builds starts here, never with a request's Host.
    public_url: str = "http://127.0.0.1:8000"
    #: Signs the console's sessions and CSRF tokens; None: the one kept in ``secret_key_file``
    #: (``entrypoints.secret_key``), made there on the first start.
    secret_key: str | None = None
    secret_key_file: Path = Path("var/secret_key")


def load_settings(environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")) -> Settings:
    """Read :class:`Settings` from ``environ`` (default ``os.environ``) over ``env_file`` if it exists."""
    values = dict(read_env_file(env_file)) if env_file is not None and env_file.is_file() else {}
    values.update(os.environ if environ is None else environ)
    env = _Env(values)
    d = Settings()
    settings = Settings(
        database_url=env.get("BOOKING_DATABASE_URL", d.database_url, _database_url),
        host=env.get("BOOKING_HOST", d.host, _non_empty),
        port=env.get("BOOKING_PORT", d.port, _int_range(1, 65535)),
        workers=env.get("BOOKING_WORKERS", d.workers, _int_range(1, 512)),
        payment_provider=env.get(
            "BOOKING_PAYMENT_PROVIDER", d.payment_provider, _one_of("stripe", "sandbox")
        ),
        stripe_secret_key=env.get(
            "BOOKING_STRIPE_SECRET_KEY", d.stripe_secret_key, _prefixed("sk_", "rk_"), secret=True
        ),
        stripe_publishable_key=env.get(
            "BOOKING_STRIPE_PUBLISHABLE_KEY", d.stripe_publishable_key, _prefixed("pk_")
        ),
        stripe_webhook_secret=env.get("BOOKING_STRIPE_WEBHOOK_SECRET", d.stripe_webhook_secret, _non_empty),
        stripe_api_base=env.get("BOOKING_STRIPE_API_BASE", None, _http_url),
        mail_backend=env.get("BOOKING_MAIL_BACKEND", d.mail_backend, _one_of("smtp", "file", "console")),
        mail_dir=env.get("BOOKING_MAIL_DIR", d.mail_dir, Path),
        smtp_host=env.get("BOOKING_SMTP_HOST", d.smtp_host, _non_empty),
        smtp_port=env.get("BOOKING_SMTP_PORT", d.smtp_port, _int_range(1, 65535)),
        smtp_username=env.get("BOOKING_SMTP_USERNAME", None, str),
        smtp_password=env.get("BOOKING_SMTP_PASSWORD", None, str),
        smtp_starttls=env.get("BOOKING_SMTP_STARTTLS", d.smtp_starttls, _boolean),
        mail_from=env.get("BOOKING_MAIL_FROM", d.mail_from, _email),
        pending_hold_minutes=env.get(
            "BOOKING_PENDING_HOLD_MINUTES", d.pending_hold_minutes, _int_range(1, 7 * 24 * 60)
        ),
        max_unpaid_per_user=env.get(
            "BOOKING_MAX_UNPAID_PER_USER", d.max_unpaid_per_user, _int_range(1, 1_000_000)
        ),
        rate_limit_per_minute=env.get(
            "BOOKING_RATE_LIMIT_PER_MINUTE", d.rate_limit_per_minute, _int_range(0, 10**9)
        ),
        login_rate_limit_per_minute=env.get(
            "BOOKING_LOGIN_RATE_LIMIT_PER_MINUTE", d.login_rate_limit_per_minute, _int_range(0, 10**9)
        ),
        inprocess_worker=env.get("BOOKING_INPROCESS_WORKER", d.inprocess_worker, _boolean),
        database_replica_url=env.get("BOOKING_DATABASE_REPLICA_URL", None, _replica_url),
        redis_url=env.get("BOOKING_REDIS_URL", None, _redis_url),
        redis_namespace=env.get("BOOKING_REDIS_NAMESPACE", d.redis_namespace, _namespace),
        forwarded_allow_ips=env.get("BOOKING_FORWARDED_ALLOW_IPS", d.forwarded_allow_ips, _addresses),
        sepa_debtor=_sepa_debtor(env),
        db_lock_timeout_ms=env.get(
            "BOOKING_DB_LOCK_TIMEOUT_MS", d.db_lock_timeout_ms, _int_range(1, 24 * 60 * 60 * 1000)
        ),
        public_url=env.get("BOOKING_PUBLIC_URL", d.public_url, _public_url),
        secret_key=env.get("BOOKING_SECRET_KEY", None, _secret_key, secret=True),
        secret_key_file=env.get("BOOKING_SECRET_KEY_FILE", d.secret_key_file, Path),
    )
    _check_stripe_keys(settings)
    return settings


def _check_stripe_keys(settings: Settings) -> None:
    """The sandbox's placeholders would only fail later, at the first payment or in the browser."""
    if settings.payment_provider != "stripe":
        return
    if settings.stripe_secret_key == SANDBOX_SECRET_KEY:
        raise ConfigError(
            "BOOKING_STRIPE_SECRET_KEY: must be set to a Stripe secret key (sk_live_..., sk_test_... or a "
            "restricted rk_... key) when BOOKING_PAYMENT_PROVIDER is stripe"
        )
    if settings.stripe_publishable_key == SANDBOX_PUBLISHABLE_KEY:
        raise ConfigError(
            "BOOKING_STRIPE_PUBLISHABLE_KEY: must be set to the account's publishable key (pk_...) "
            "when BOOKING_PAYMENT_PROVIDER is stripe"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SepaDebtorSettings:
    """``BOOKING_SEPA_DEBTOR_*``: the operator's account that commission payouts are paid from.

    Checked whenever set; needed by ``booking commissions payout`` only (:meth:`require`).
    """

    name: str | None = None
    iban: str | None = None
    bic: str | None = None

    def require(self) -> tuple[str, str, str | None]:
        """Name, IBAN and BIC; a ConfigError names the first required variable that is unset."""
        if not self.name:
            raise ConfigError("BOOKING_SEPA_DEBTOR_NAME: must be set to pay out (the account holder's name)")
        if not self.iban:
            raise ConfigError("BOOKING_SEPA_DEBTOR_IBAN: must be set to pay out (the account's IBAN)")
        return self.name, self.iban, self.bic


def _sepa_debtor(env: _Env) -> SepaDebtorSettings:
    return SepaDebtorSettings(
        name=env.get("BOOKING_SEPA_DEBTOR_NAME", None, _non_empty),
        iban=env.get("BOOKING_SEPA_DEBTOR_IBAN", None, parse_iban),
        bic=env.get("BOOKING_SEPA_DEBTOR_BIC", None, parse_bic),
    )


def read_env_file(path: Path) -> dict[str, str]:
    """Parse ``KEY=VALUE`` lines; ``#`` comments, ``export`` prefixes and quotes are allowed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise ConfigError(f"{path}: line {number}: expected KEY=VALUE, got {raw.strip()!r}")
        values[key] = _unquote(value.strip(), path, number)
    return values


def _unquote(value: str, path: Path, number: int) -> str:
    if value[:1] in {'"', "'"}:
        quote = value[0]
        end = value.find(quote, 1)
        while quote == '"' and end > 0 and value[end - 1] == "\\":
            end = value.find(quote, end + 1)
        if end < 0:
            raise ConfigError(f"{path}: line {number}: unterminated quoted value")
        inner = value[1:end]
        if quote == '"':
            inner = inner.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        return inner
    # An unquoted value ends where a comment starts (" #").
    return re.split(r"\s+#", value, maxsplit=1)[0].strip()


class _Env:
    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = values

    def get(self, name: str, default: T, parse: Callable[[str], T], *, secret: bool = False) -> T:
        raw = self._values.get(name, "").strip()
        if not raw:
            return default
        try:
            return parse(raw)
        except ValueError as exc:
            # Secrets are not echoed into logs and terminals.
            got = "" if secret else f", got {raw!r}"
            raise ConfigError(f"{name}: {exc}{got}") from None


def _non_empty(raw: str) -> str:
    return raw


def _int_range(low: int, high: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        if not re.fullmatch(r"[+-]?\d+", raw) or not low <= int(raw) <= high:
            raise ValueError(f"must be an integer from {low} to {high}")
        return int(raw)

    return parse


def _one_of(*choices: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw.lower() not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return raw.lower()

    return parse


def _prefixed(*prefixes: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if not raw.startswith(prefixes) or any(c.isspace() for c in raw):
            raise ValueError(f"must be a key starting with {' or '.join(prefixes)}")
        return raw

    return parse


def _boolean(raw: str) -> bool:
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise ValueError("must be true or false")


def _database_url(raw: str) -> str:
    if not raw.startswith(_DB_URL_PREFIXES) or raw in _DB_URL_PREFIXES:
        raise ValueError("must be sqlite:///PATH or postgresql://USER@HOST/DB")
    return raw


def _replica_url(raw: str) -> str:
    if not raw.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        raise ValueError("must be a postgresql://USER@HOST/DB URL of a streaming replica")
    return raw


def _redis_url(raw: str) -> str:
    if not re.fullmatch(r"(rediss?|unix)://\S+", raw):
        raise ValueError("must be a redis://HOST:PORT/DB, rediss:// or unix:// URL")
    return raw


def _namespace(raw: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.:-]{1,64}", raw):
        raise ValueError("must be 1 to 64 letters, digits or _ . : -")
    return raw


def _addresses(raw: str) -> tuple[str, ...]:
    """Comma-separated IP addresses and networks (``10.0.0.0/8``), each written in its usual form."""
    found = []
    for item in (part.strip() for part in raw.split(",")):
        try:
            found.append(str(ipaddress.ip_network(item)) if "/" in item else str(ipaddress.ip_address(item)))
        except ValueError:
            message = f"must be IP addresses or networks separated by commas ({item!r} is neither)"
            raise ValueError(message) from None
    return tuple(found)


def _http_url(raw: str) -> str:
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", raw):
        raise ValueError("must be an http:// or https:// URL")
    return raw.rstrip("/")


def _public_url(raw: str) -> str:
    """An http(s) address with a host (and perhaps a path prefix), kept without a trailing slash."""
    parts = urlsplit(raw)
    if (
        parts.scheme not in {"http", "https"}
        or not parts.hostname
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
        or any(c.isspace() for c in raw)
        or control_character(raw) is not None
    ):
        raise ValueError("must be an http:// or https:// address such as https://booking.example.com")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number from 0 to 65535
    except ValueError:
        raise ValueError("must be an http:// or https:// address with a valid port") from None
    return raw.rstrip("/")


#: The shortest ``BOOKING_SECRET_KEY`` taken: a guessable key would let anyone forge a session.
MIN_SECRET_KEY = 32


def _secret_key(raw: str) -> str:
    if len(raw) < MIN_SECRET_KEY:
        raise ValueError(
            f"must be at least {MIN_SECRET_KEY} characters, for example the output of "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(48))'"
        )
    return raw


def _email(raw: str) -> str:
    if not re.fullmatch(r"[^@\s<>]+@[^@\s<>]+", raw):
        raise ValueError("must be an email address")
    return raw
