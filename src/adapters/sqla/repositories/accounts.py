"""Users, clients and API tokens."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session

from adapters.sqla import driver
from adapters.sqla.errors import translate_errors
from adapters.sqla.models import ClientRow, TokenRow, UserRow
from booking_core.accounts import Client, Language, Principal, User


def user_to_domain(row: UserRow) -> User:
    return User(
        id=row.id,
        email=row.email,
        first_name=row.first_name,
        last_name=row.last_name,
        language=Language(row.language),
        password_hash=row.password_hash,
        is_active=row.is_active,
        email_confirmed=row.email_confirmed,
        created_at=row.created_at,
    )


def user_from_domain(user: User) -> UserRow:
    return UserRow(
        id=user.id,
        email=user.email,
        first_name=user.first_name,
        last_name=user.last_name,
        language=user.language.value,
        password_hash=user.password_hash,
        is_active=user.is_active,
        email_confirmed=user.email_confirmed,
        created_at=user.created_at,
    )


def client_to_domain(row: ClientRow) -> Client:
    return Client(
        id=row.id,
        name=row.name,
        commission_percent=row.commission_percent,
        contact_email=row.contact_email,
        iban=row.iban,
        is_active=row.is_active,
        created_at=row.created_at,
    )


#: What ``SqlaUsers.update`` may change: everything but the id and the creation time.
_USER_FIELDS = (
    "email",
    "first_name",
    "last_name",
    "language",
    "password_hash",
    "is_active",
    "email_confirmed",
)


@translate_errors
class SqlaUsers:
    """People who book; emails compare case-insensitively (and are unique that way)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, user_id: str) -> User | None:
        row = self._session.get(UserRow, user_id)
        return user_to_domain(row) if row else None

    def get_many(self, user_ids: Collection[str]) -> dict[str, User]:
        if not user_ids:
            return {}
        rows = self._session.scalars(select(UserRow).where(UserRow.id.in_(user_ids)))
        return {row.id: user_to_domain(row) for row in rows}

    def get_by_email(self, email: str) -> User | None:
        stmt = select(UserRow).where(func.lower(UserRow.email) == email.strip().lower())
        row = self._session.scalars(stmt).one_or_none()
        return user_to_domain(row) if row else None

    def add(self, user: User) -> None:
        self._session.add(user_from_domain(user))
        self._session.flush()

    def update(self, user: User) -> None:
        row = self._session.get(UserRow, user.id)
        if row is None:
            return
        changed = user_from_domain(user)
        for column in _USER_FIELDS:
            setattr(row, column, getattr(changed, column))
        self._session.flush()


@translate_errors
class SqlaClients:
    """Partner applications."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, client_id: int) -> Client | None:
        row = self._session.get(ClientRow, client_id)
        return client_to_domain(row) if row else None

    def get_many(self, client_ids: Collection[int]) -> dict[int, Client]:
        if not client_ids:
            return {}
        rows = self._session.scalars(select(ClientRow).where(ClientRow.id.in_(set(client_ids))))
        return {row.id: client_to_domain(row) for row in rows}


@translate_errors
class SqlaTokens:
    """API tokens by hash; a revoked token, or one of an inactive user or client, has no principal."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, token_hash: str, principal: Principal, created_at: datetime) -> None:
        row = TokenRow(
            token_hash=token_hash,
            user_id=principal.user_id,
            client_id=principal.client_id,
            created_at=created_at,
        )
        self._session.add(row)
        self._session.flush()

    def principal(self, token_hash: str) -> Principal | None:
        rows = driver.execute(self._session, PRINCIPAL, {"token_hash": token_hash})
        if not rows:
            return None
        user_id, client_id, user_active, confirmed, client_active = rows[0]
        if (user_id is not None and not user_active) or (client_id is not None and not client_active):
            return None
        confirmed = user_id is None or bool(confirmed)  # a client's token has no user to confirm
        return Principal(user_id=user_id, client_id=client_id, email_confirmed=confirmed)

    def revoke(self, token_hash: str) -> None:
        stmt = (
            update(TokenRow)
            .where(TokenRow.token_hash == token_hash, TokenRow.revoked_at.is_(None))
            .values(revoked_at=datetime.now(UTC))
        )
        self._session.execute(stmt)

    def revoke_all(self, user_id: str, now: datetime) -> None:
        stmt = (
            update(TokenRow)
            .where(TokenRow.user_id == user_id, TokenRow.revoked_at.is_(None))
            .values(revoked_at=now)
        )
        self._session.execute(stmt)


# Built once on the tables: every authenticated request runs it (the benchmark's booking floor too).
_TOKENS, _USERS, _CLIENTS = TokenRow.__table__, UserRow.__table__, ClientRow.__table__
PRINCIPAL = driver.DriverStatement(
    select(
        _TOKENS.c.user_id,
        _TOKENS.c.client_id,
        _USERS.c.is_active,
        _USERS.c.email_confirmed,
        _CLIENTS.c.is_active,
    )
    .select_from(_TOKENS)
    .outerjoin(_USERS, _USERS.c.id == _TOKENS.c.user_id)
    .outerjoin(_CLIENTS, _CLIENTS.c.id == _TOKENS.c.client_id)
    .where(_TOKENS.c.token_hash == bindparam("token_hash"), _TOKENS.c.revoked_at.is_(None))
)
