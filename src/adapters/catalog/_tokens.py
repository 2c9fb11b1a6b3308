"""Operator-issued API tokens (``booking tokens create``), stored only as hashes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from adapters.sqla.errors import translated
from adapters.sqla.models import ClientRow, TokenRow, UserRow
from booking_core.errors import NotFound
from booking_core.usecases.auth import hash_token


def issue_token(
    engine: Engine,
    token: str,
    now: datetime,
    *,
    user_email: str | None = None,
    client_name: str | None = None,
) -> str:
    """Store ``token`` for the user with ``user_email`` or the client named ``client_name``.

    Returns a description of the owner; raises :class:`NotFound` when there is no such owner.
    """
    if (user_email is None) == (client_name is None):
        raise ValueError("give exactly one of user_email or client_name")
    with translated(), Session(engine) as session, session.begin():
        if user_email is not None:
            user = session.scalar(
                select(UserRow).where(func.lower(UserRow.email) == user_email.strip().lower())
            )
            if user is None:
                raise NotFound(f"No user with email {user_email}.")
            # The operator hands this token out, and so vouches for the address (CONTRACT 4.5).
            user.email_confirmed = True
            row = TokenRow(token_hash=hash_token(token), user_id=user.id, created_at=now)
            owner = f"user {user.email}"
        else:
            client = session.scalar(select(ClientRow).where(ClientRow.name == client_name))
            if client is None:
                raise NotFound(f"No client named {client_name}.")
            row = TokenRow(token_hash=hash_token(token), client_id=client.id, created_at=now)
            owner = f"client {client.name}"
        session.add(row)
    return owner
