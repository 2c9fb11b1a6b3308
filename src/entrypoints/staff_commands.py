"""``booking staff add|list|remove`` (CONTRACT 7.1).

Results go to stdout, notes to stderr; errors end in ``entrypoints.cli.main`` as one line. The
command line acts as the platform's operator: its audit entries have no actor.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from booking_core.errors import ValidationFailed
from booking_core.staff import Role
from booking_core.usecases.operator_venues import venue_ids_by_slug
from booking_core.usecases.staff import NewStaff, generated_password, grant_staff, list_staff, remove_staff
from entrypoints.bootstrap import Services


def add_staff_commands(
    actions: Any, command: Callable[..., argparse.ArgumentParser], services: Callable[[], Services]
) -> None:
    """Add ``add``, ``list`` and ``remove`` to the ``staff`` group's ``actions``."""
    add = command("add", lambda args: _add(args, services), "grant a staff role (creating the user)", actions)
    add.add_argument("email", metavar="EMAIL")
    add.add_argument("--role", required=True, choices=[r.value for r in Role])
    add.add_argument("--venue", action="append", default=[], metavar="SLUG", help="for manager and desk")
    add.add_argument("--first-name", default="")
    add.add_argument("--last-name", default="")
    add.add_argument("--language", choices=("de", "en"))
    add.add_argument("--password-stdin", action="store_true", help="read a new user's password from stdin")
    command("list", lambda args: _list(services), "print email, role and venue per line", actions)
    remove = command(
        "remove", lambda args: _remove(args, services), "take roles away (all, or one venue's)", actions
    )
    remove.add_argument("email", metavar="EMAIL")
    remove.add_argument("--venue", metavar="SLUG")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _add(args: argparse.Namespace, services: Callable[[], Services]) -> int:
    password = sys.stdin.readline().rstrip("\r\n") if args.password_stdin else None
    if args.password_stdin and not password:
        raise ValidationFailed("no password on stdin", field="password")
    running = services()
    try:
        venue_ids = venue_ids_by_slug(running.deps, args.venue)
        generated = None
        if password is None:
            generated = password = generated_password()
        new = NewStaff(
            email=args.email,
            role=Role(args.role),
            venue_ids=venue_ids,
            first_name=args.first_name,
            last_name=args.last_name,
            language=args.language,
            password=password,
        )
        granted = grant_staff(running.deps, None, new)
    finally:
        running.close()
    where = ", ".join(args.venue) or "every venue"
    if granted.created:
        _say(f"created user {granted.user.email}")
        if generated is not None:
            _say("its password (shown only this once):")
            print(generated)
    news = "granted" if granted.granted else "already held"
    _say(f"{granted.user.email}: {args.role} at {where} ({news})")
    return 0


def _list(services: Callable[[], Services]) -> int:
    running = services()
    try:
        roles = list_staff(running.deps, None)
        slugs = {v: s for s, v in _slugs(running).items()}
    finally:
        running.close()
    if not roles:
        _say("no staff")
    for user, role in roles:
        venue = slugs.get(role.venue_id, str(role.venue_id)) if role.venue_id is not None else "-"
        print(f"{user.email}\t{role.role.value}\t{venue}")
    return 0


def _slugs(running: Services) -> dict[str, int]:
    with running.deps.read() as uow:
        return {v.slug: v.id for v in uow.resources.venues()}


def _remove(args: argparse.Namespace, services: Callable[[], Services]) -> int:
    running = services()
    try:
        venue_id = venue_ids_by_slug(running.deps, [args.venue])[0] if args.venue else None
        with running.deps.read() as uow:
            user = uow.users.get_by_email(args.email.strip().lower())
        if user is None:
            raise ValidationFailed(f"no user with email {args.email}", field="email")
        taken = remove_staff(running.deps, None, user.id, venue_id)
    finally:
        running.close()
    _say(f"{args.email}: {len(taken)} role(s) taken away" if taken else f"{args.email}: held no such role")
    return 0
