"""The composition root: configuration in, wired use-case dependencies out.

Tests rebuild :class:`Services` with fakes (``replace(services, deps=replace(services.deps, ...))``,
``replace(services, mailer=InMemoryMailer())``).

A notification channel is a :class:`~booking_core.ports.Notifier` adapter registered for its outbox
``kind`` in :meth:`Services.notifiers`: nothing else changes for a new one.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from adapters.catalog import SqlaCatalogFiles
from adapters.clock import SystemClock
from adapters.currencies import IsoCurrencies
from adapters.ids import RandomIds
from adapters.mail import ConsoleMailer, FileMailer, SmtpMailer
from adapters.passwords import Argon2Passwords
from adapters.payments import SandboxGateway, StripeGateway, stripe_currencies
from adapters.sqla import SqlaUnitOfWork, make_engine
from adapters.sqla import ping as ping_database
from adapters.sqla.version_probe import DataVersionProbe
from booking_core.outbox import EMAIL_KIND
from booking_core.ports import Currencies, Mailer, Notifiers, PaymentGateway
from booking_core.usecases.deps import Deps
from booking_core.usecases.email_notifier import EmailNotifier
from entrypoints.config import ConfigError, Settings


@dataclass
class Services:
    """Everything the entry points need, built once per process."""

    settings: Settings
    engine: Engine
    deps: Deps
    mailer: Mailer
    #: The read replica's engine (``BOOKING_DATABASE_REPLICA_URL``), if there is one.
    replica_engine: Engine | None = None

    def notifiers(self) -> Notifiers:
        """The channel of each outbox ``kind``: the worker sends every message through its kind's notifier."""
        return {EMAIL_KIND: EmailNotifier(self.mailer)}

    def ping(self) -> bool:
        """True when the database answers (``GET /health``)."""
        return ping_database(self.engine)

    def version_probe(self) -> DataVersionProbe | None:
        """A new probe of data versions for one HTTP application, on PostgreSQL (where reads go)."""
        engine = self.replica_engine or self.engine
        if engine.dialect.name != "postgresql":
            return None
        return DataVersionProbe(engine.url.render_as_string(hide_password=False))

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()
        if self.replica_engine is not None:
            self.replica_engine.dispose()


def payment_gateway(settings: Settings, currencies: Currencies) -> PaymentGateway:
    """The provider chosen by ``BOOKING_PAYMENT_PROVIDER``, reading its webhooks' amounts with
    ``currencies``."""
    if settings.payment_provider == "stripe":
        return StripeGateway(
            secret_key=settings.stripe_secret_key,
            publishable_key=settings.stripe_publishable_key,
            api_base=settings.stripe_api_base,
            webhook_secret=settings.stripe_webhook_secret,
            currencies=currencies,
        )
    return SandboxGateway(
        secret_key=settings.stripe_secret_key,
        publishable_key=settings.stripe_publishable_key,
        webhook_secret=settings.stripe_webhook_secret,
        currencies=currencies,
    )


def charging_currencies() -> IsoCurrencies:
    """ISO 4217's minor units with the amounts Stripe takes, whichever provider is configured: the
    sandbox stands in for Stripe, so a catalog that loads with it can be charged with Stripe too."""
    return stripe_currencies()


def mailer(settings: Settings) -> Mailer:
    """The mail transport chosen by ``BOOKING_MAIL_BACKEND``."""
    if settings.mail_backend == "smtp":
        return SmtpMailer(
            host=settings.smtp_host,
            port=settings.smtp_port,
            sender=settings.mail_from,
            username=settings.smtp_username,
            password=settings.smtp_password,
            starttls=settings.smtp_starttls,
        )
    if settings.mail_backend == "console":
        return ConsoleMailer(sender=settings.mail_from)
    return FileMailer(settings.mail_dir, sender=settings.mail_from)


def bootstrap(settings: Settings) -> Services:
    """Wire the real adapters for ``settings``."""
    currencies = charging_currencies()
    gateway = payment_gateway(settings, currencies)
    try:
        engine = make_engine(settings.database_url, lock_timeout_ms=settings.db_lock_timeout_ms)
    except ValueError as exc:
        raise ConfigError(f"BOOKING_DATABASE_URL: {exc}") from None
    writes, reads = SqlaUnitOfWork.factories(engine)
    replica = _replica_engine(settings)
    passwords = Argon2Passwords()
    deps = Deps(
        uow=writes,
        reads=reads,
        # its own resource cache: a replica a revision behind would evict the primary's entries
        lagging_reads=None if replica is None else SqlaUnitOfWork.factory(replica, read_only=True),
        clock=SystemClock(),
        ids=RandomIds(),
        passwords=passwords,
        payments=gateway,
        currencies=currencies,
        # the catalog file's code, in the units of work above (the operator API's venue catalog)
        catalog=SqlaCatalogFiles(currencies, passwords),
        hold_minutes=settings.pending_hold_minutes,
        max_unpaid_per_user=settings.max_unpaid_per_user,
    )
    return Services(
        settings=settings, engine=engine, deps=deps, mailer=mailer(settings), replica_engine=replica
    )


def _replica_engine(settings: Settings) -> Engine | None:
    if settings.database_replica_url is None:
        return None
    try:
        return make_engine(settings.database_replica_url)
    except ValueError as exc:
        raise ConfigError(f"BOOKING_DATABASE_REPLICA_URL: {exc}") from None
