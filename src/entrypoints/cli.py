"""The ``booking`` command line (CONTRACT section 3).

Every failure the operator can cause (bad configuration, a bad catalog, an unknown reference, an
unmigrated database) ends as one line on stderr and a non-zero exit status: 2 for usage and
configuration errors, 1 for the rest. Results go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from sqlalchemy.exc import SQLAlchemyError

from adapters.catalog import (
    DEMO_CATALOG,
    CatalogError,
    CatalogSpec,
    SqlaCatalogFiles,
    issue_token,
    read_catalog,
)
from adapters.sqla import current_revision, head_revision, upgrade
from booking_core.accounts import ApprovalStatus
from booking_core.errors import DomainError, NoOpenPaymentIntent
from booking_core.outbox import OutboxStatus
from booking_core.usecases import operator, outbox, sandbox
from booking_core.usecases.operator_catalog import record_catalog_changes
from entrypoints import worker
from entrypoints.bootstrap import Services, bootstrap, charging_currencies
from entrypoints.commission_commands import add_commission_commands
from entrypoints.config import ConfigError, Settings, load_settings
from entrypoints.sandbox import DeliveryFailed, service_url
from entrypoints.sandbox import pay as post_payment
from entrypoints.secret_key import with_secret_key
from entrypoints.staff_commands import add_staff_commands

Handler = Callable[[argparse.Namespace], int]


class _Exit(Exception):
    """A one-line failure with its exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, like every other error of the command line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``booking`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        handler: Handler = args.handler
        return handler(args)
    except ConfigError as exc:
        return _fail(str(exc), 2)
    except _Exit as exc:
        return _fail(str(exc), exc.status)
    except (CatalogError, DomainError) as exc:
        return _fail(str(exc), 1)
    except SQLAlchemyError as exc:
        return _fail(f"database error: {str(exc.orig if hasattr(exc, 'orig') else exc).splitlines()[0]}", 1)
    except KeyboardInterrupt:
        return 130


def _fail(message: str, status: int) -> int:
    print(" ".join(message.split("\n")), file=sys.stderr)
    return status


def _say(message: str) -> None:
    """Progress, on stderr so stdout stays parseable."""
    print(message, file=sys.stderr, flush=True)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = _Parser(prog="booking", description="Booking service: API server and operator commands.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(
        name: str, handler: Handler, help_text: str, parent: Any = commands
    ) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = parent.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(handler=handler)
        return sub

    def group(name: str, help_text: str) -> Any:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        return sub.add_subparsers(dest="action", required=True, metavar="ACTION")

    command("serve", _serve, "run the HTTP API (and the background worker unless switched off)")
    db = group("db", "database schema")
    command("upgrade", _db_upgrade, "apply the schema migrations", db)
    catalog = group("catalog", "venues, resources, users and clients from a file")
    load = command("load", _catalog_load, "upsert the catalog in FILE (YAML, JSON or TOML)", catalog)
    load.add_argument("file", metavar="FILE", type=Path)
    command("demo", _demo, "load the built-in demo catalog and print its tokens")
    tokens = group("tokens", "API tokens")
    create = command("create", _tokens_create, "issue a token and print it once", tokens)
    owner = create.add_mutually_exclusive_group(required=True)
    owner.add_argument("--user", metavar="EMAIL", help="a user's token")
    owner.add_argument("--client", metavar="NAME", help="a client's service-account token")
    mappings = group("venue-mappings", "the operator's approval of clients' venue mappings")
    listing = command("list", _mappings_list, "list venue mappings", mappings)
    listing.add_argument("--status", choices=[s.value for s in ApprovalStatus])
    for name, status in (("approve", ApprovalStatus.APPROVED), ("reject", ApprovalStatus.REJECTED)):
        decide = command(name, _mappings_decide, f"{name} a venue mapping", mappings)
        decide.add_argument("mapping_id", metavar="ID")
        decide.set_defaults(status=status)
    bookings = group("bookings", "operator transitions of bookings")
    command("confirm", _bookings_confirm, "confirm a pending booking", bookings).add_argument(
        "ref", metavar="REF"
    )
    command("no-show", _bookings_no_show, "mark a started booking as no-show", bookings).add_argument(
        "ref", metavar="REF"
    )
    command("complete-past", _bookings_complete, "complete paid/confirmed bookings that have ended", bookings)
    mail = group("outbox", "email: send what is due, see and retry failed messages")
    command("dispatch", _outbox_dispatch, "send what is due in the outbox once, then exit", mail)
    listing = command("list", _outbox_list, "list messages, newest first", mail)
    listing.add_argument("--status", choices=[s.value for s in OutboxStatus])
    listing.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    retry = command("retry", _outbox_retry, "send failed messages again (due now, attempts from zero)", mail)
    chosen = retry.add_mutually_exclusive_group(required=True)
    chosen.add_argument("ids", nargs="*", default=[], metavar="ID", help="ids from `booking outbox list`")
    chosen.add_argument("--all", action="store_true", help="every failed message")
    sandbox_group = group("sandbox", "the offline payment provider (BOOKING_PAYMENT_PROVIDER=sandbox)")
    settle = command(
        "pay",
        _sandbox_pay,
        "post a signed payment_intent.succeeded for the booking's open intent to the running service",
        sandbox_group,
    )
    settle.add_argument("booking_id", metavar="BOOKING_ID")
    commissions = group("commissions", "partners' commissions: the monthly report and the SEPA payout")
    add_commission_commands(commissions, command, _services)
    staff = group("staff", "venue staff and their roles (admin, manager, desk)")
    add_staff_commands(staff, command, _services)
    work = command("worker", _worker, "run the background worker in the foreground")
    work.add_argument("--once", action="store_true", help="one pass, then exit")
    work.add_argument(
        "--interval", type=float, default=worker.INTERVAL_SECONDS, help="seconds between passes"
    )
    return parser


# --------------------------------------------------------------------------- helpers


def _require_migrated(settings: Settings) -> None:
    """Refuse to work on a database that lacks migrations (it would fail later, less clearly)."""
    _require_migrated_at(settings.database_url)


def _require_migrated_at(url: str, variable: str = "") -> None:
    label = f"{variable}: " if variable else ""
    try:
        current = current_revision(url)
    except SQLAlchemyError as exc:
        raise _Exit(f"{label}cannot open the database {url}: {_first_line(exc)}") from None
    head = head_revision()
    if current is None:
        raise _Exit(f"{label}the database {url} is not migrated; run `booking db upgrade` first")
    if current != head:
        raise _Exit(
            f"{label}the database {url} is at revision {current}, this version needs {head}; "
            "run `booking db upgrade` first"
        )


def _require_scale_out(settings: Settings) -> None:
    """The replica and Redis are checked at start-up: a typo should not surface as slow 503s later."""
    if settings.database_replica_url is not None:
        # The replica gets the schema by replication: behind the head means it lags or is not one.
        _require_migrated_at(settings.database_replica_url, "BOOKING_DATABASE_REPLICA_URL")
    if settings.redis_url is not None:
        from entrypoints.http.shared_counters import check_reachable  # only deployments with Redis

        if (problem := check_reachable(settings.redis_url)) is not None:
            raise _Exit(f"BOOKING_REDIS_URL: {problem}")


def _first_line(exc: SQLAlchemyError) -> str:
    return str(getattr(exc, "orig", None) or exc).splitlines()[0]


def _services() -> Services:
    settings = load_settings()
    _require_migrated(settings)
    return bootstrap(settings)


def _load(services: Services, spec: CatalogSpec, source: str) -> None:
    resources = sum(len(venue.resources) for venue in spec.venues)
    _say(
        f"{source}: valid ({len(spec.venues)} venues, {resources} resources, {len(spec.users)} users, "
        f"{len(spec.clients)} clients); writing ..."
    )
    deps = services.deps
    files = SqlaCatalogFiles(deps.currencies, deps.passwords)
    with deps.uow() as uow:  # the audit entries of its venues and resources commit with it
        report = files.upsert_file(uow, spec, deps.clock.now())
        record_catalog_changes(deps, uow, None, report.changes, report.lines())
        uow.commit()
    for line in report.lines():
        print(line)


# --------------------------------------------------------------------------- commands


def _serve(_: argparse.Namespace) -> int:
    settings = load_settings()
    with_secret_key(settings)  # made once here, before the workers start, and read by each of them
    _require_migrated(settings)
    _require_scale_out(settings)
    bootstrap(settings).close()  # fail here, in one line, on configuration the app would refuse
    from entrypoints.server import ServeError, ensure_port_free, serve  # only serve needs these

    try:
        ensure_port_free(settings.host, settings.port)
        _say(f"serving on http://{settings.host}:{settings.port} with {settings.workers} worker process(es)")
        serve(settings.host, settings.port, settings.workers, settings.forwarded_allow_ips)
    except ServeError as exc:
        raise _Exit(str(exc), 1) from None
    return 0


def _db_upgrade(_: argparse.Namespace) -> int:
    settings = load_settings()
    _say(f"migrating {settings.database_url} ...")
    try:
        upgrade(settings.database_url)
    except SQLAlchemyError as exc:
        raise _Exit(f"cannot migrate {settings.database_url}: {_first_line(exc)}") from None
    print(f"database is up to date (revision {head_revision()})")
    return 0


def _catalog_load(args: argparse.Namespace) -> int:
    path: Path = args.file
    _say(f"reading {path} ...")
    spec = read_catalog(path, charging_currencies())  # validates everything before the database is touched
    services = _services()
    try:
        _load(services, spec, str(path))
    finally:
        services.close()
    return 0


def _demo(_: argparse.Namespace) -> int:
    spec = read_catalog(DEMO_CATALOG, charging_currencies())
    services = _services()
    try:
        _load(services, spec, "demo catalog")
    finally:
        services.close()
    print("\ndemo tokens:")
    for user in spec.users:
        if user.token:
            print(f"  user {user.email}: {user.token}")
    for client in spec.clients:
        if client.token:
            print(f"  client {client.name}: {client.token}")
    settings = services.settings
    host = "127.0.0.1" if settings.host in {"0.0.0.0", "::", ""} else settings.host  # noqa: S104
    base = f"http://{host}:{settings.port}/api/v1"
    user_token = next((user.token for user in spec.users if user.token), None)
    print("\ntry:")
    print(f"  curl {base}/resources/")
    if user_token:
        print(f"  curl -H 'Authorization: Token {user_token}' {base}/bookings/")
    if settings.payment_provider == "sandbox":
        print("\nto pay a booking without a provider account (the sandbox provider), open its intent with")
        print("POST /api/v1/bookings/<id>/create-payment-intent/, then settle it from another terminal:")
        print("  .venv/bin/booking sandbox pay <id>")
    return 0


def _tokens_create(args: argparse.Namespace) -> int:
    services = _services()
    try:
        token = services.deps.ids.new_token()
        owner = issue_token(
            services.engine, token, services.deps.clock.now(), user_email=args.user, client_name=args.client
        )
    finally:
        services.close()
    _say(f"token for {owner} (stored hashed; it is shown only this once):")
    print(token)
    return 0


def _mappings_list(args: argparse.Namespace) -> int:
    services = _services()
    try:
        mappings = operator.list_venue_mappings(services.deps, args.status)
    finally:
        services.close()
    if not mappings:
        _say("no venue mappings" + (f" with status {args.status}" if args.status else ""))
        return 0
    print(f"{'ID':36}  {'CLIENT':>6}  {'VENUE':>5}  {'STATUS':8}  {'CREATED':25}  EXTERNAL ID")
    for m in mappings:
        created = m.created_at.isoformat(timespec="seconds")
        status = m.approval_status.value
        print(f"{m.id:36}  {m.client_id:>6}  {m.venue_id:>5}  {status:8}  {created:25}  {m.external_id}")
    return 0


def _mappings_decide(args: argparse.Namespace) -> int:
    services = _services()
    try:
        mapping = operator.decide_venue_mapping(services.deps, args.mapping_id, args.status)
    finally:
        services.close()
    print(f"venue mapping {mapping.id} is {mapping.approval_status}")
    return 0


def _bookings_confirm(args: argparse.Namespace) -> int:
    services = _services()
    try:
        booking = operator.confirm_booking(services.deps, args.ref)
    finally:
        services.close()
    print(f"booking {booking.reference_code} is {booking.status}")
    return 0


def _bookings_no_show(args: argparse.Namespace) -> int:
    services = _services()
    try:
        booking = operator.mark_no_show(services.deps, args.ref)
    finally:
        services.close()
    print(f"booking {booking.reference_code} is {booking.status}")
    return 0


def _bookings_complete(_: argparse.Namespace) -> int:
    services = _services()
    try:
        count = operator.complete_past_bookings(services.deps)
    finally:
        services.close()
    print(f"completed {count} booking(s)")
    return 0


def _outbox_dispatch(_: argparse.Namespace) -> int:
    services = _services()
    try:
        total = outbox.DispatchResult()
        while True:  # passes of one batch each, until one comes back short
            result = outbox.dispatch_outbox(services.deps, services.notifiers())
            total += result
            if result.total < outbox.BATCH:
                break
            _say(f"... {total}")
    finally:
        services.close()
    print(total)
    return 0


def _outbox_list(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise _Exit("--limit: must be a positive number", 2)
    services = _services()
    try:
        status = OutboxStatus(args.status) if args.status else None
        entries = outbox.list_outbox(services.deps, status, limit=args.limit)
    finally:
        services.close()
    if not entries:
        _say("no messages" + (f" with status {args.status}" if args.status else ""))
        return 0
    header = ("ID", "STATUS", "TRIES", "TEMPLATE", "BOOKING", "DUE OR SENT", "LAST ERROR")
    print("{:36}  {:7}  {:>5}  {:22}  {:36}  {:25}  {}".format(*header))
    for e in entries:
        when = (e.sent_at or e.due_at).isoformat(timespec="seconds")
        error = " ".join((e.last_error or "").split())[:120]
        name = e.template or e.kind
        print(f"{e.id:36}  {e.status:7}  {e.attempts:>5}  {name:22}  {e.booking_id:36}  {when:25}  {error}")
    return 0


def _outbox_retry(args: argparse.Namespace) -> int:
    services = _services()
    try:
        count = outbox.retry_failed(services.deps, None if args.all else args.ids)
    finally:
        services.close()
    if count == 0 and not args.all:
        raise _Exit("none of these messages has failed (see `booking outbox list --status failed`)")
    print(f"{count} failed message(s) will be sent again on the worker's next pass")
    return 0


def _sandbox_pay(args: argparse.Namespace) -> int:
    settings = load_settings()
    if settings.payment_provider != "sandbox":
        raise _Exit(
            "booking sandbox pay works with BOOKING_PAYMENT_PROVIDER=sandbox only "
            f"(it is {settings.payment_provider}: real payments are settled by the provider)",
            2,
        )
    services = _services()
    try:
        try:
            booking, payment = sandbox.open_intent(services.deps, args.booking_id)
        except NoOpenPaymentIntent as exc:
            path = f"POST /api/v1/bookings/{exc.booking_id}/create-payment-intent/"
            raise _Exit(f"{exc.message.removesuffix('.')} ({path}).") from None
        base = service_url(settings.host, settings.port)
        try:
            secret = settings.stripe_webhook_secret
            unit = services.deps.currencies.unit(payment.currency)
            delivery = post_payment(booking, payment, unit, base_url=base, webhook_secret=secret)
        except DeliveryFailed as exc:
            raise _Exit(str(exc)) from None
        with services.deps.read() as uow:
            now = uow.bookings.get(booking.id)
    finally:
        services.close()
    status = now.status if now else "unknown"
    print(
        f"posted {delivery.event_id} (payment_intent.succeeded for {payment.payment_intent_id}, "
        f"{payment.amount} {payment.currency}) to {delivery.url}; "
        f"booking {booking.reference_code} is {status}"
    )
    return 0


def _worker(args: argparse.Namespace) -> int:
    if args.interval <= 0:
        raise _Exit("--interval: must be a positive number of seconds", 2)
    services = _services()
    try:
        if args.once:
            print(worker.run_once(services))
            return 0
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        _say(f"worker running every {args.interval:g} s; Ctrl-C stops it")
        try:
            worker.run_forever(services, stop, args.interval)
        except KeyboardInterrupt:
            stop.set()
        return 0
    finally:
        services.close()
