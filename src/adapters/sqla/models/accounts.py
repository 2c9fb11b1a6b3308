"""Tables of callers: users, clients, their tokens and the clients' id mappings."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    func,
    literal_column,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column

from adapters.sqla.models.base import Base, trigram_index
from adapters.sqla.types import Percent, UtcDateTime


class UserRow(Base):
    __tablename__ = "users"
    # The staff's search finds customers by any part of their email or name (migration 0019).
    __table_args__ = (
        trigram_index("ix_users_email_trgm", "email"),
        trigram_index("ix_users_name_trgm", "(first_name || ' ') || last_name"),  # FULL_NAME
    )
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    email: Mapped[str] = mapped_column(String(254))
    first_name: Mapped[str] = mapped_column(String(150), default="")
    last_name: Mapped[str] = mapped_column(String(150), default="")
    language: Mapped[str] = mapped_column(String(2), default="de")
    password_hash: Mapped[str | None] = mapped_column(String(255))
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    # False only for a self-registered account until its owner confirms the address (CONTRACT 4.5).
    email_confirmed: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


# Emails are unique regardless of case; lookups compare lower(email).
Index("uq_users_email_lower", func.lower(UserRow.email), unique=True)

#: The customer's name as the staff's search matches it: "first last" (its index: ``UserRow``).
FULL_NAME = UserRow.first_name + literal_column("' '") + UserRow.last_name


class ClientRow(Base):
    """A partner application; its tokens (``tokens.client_id``) act as its service account."""

    __tablename__ = "clients"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    commission_percent: Mapped[Decimal] = mapped_column(Percent())
    contact_email: Mapped[str] = mapped_column(String(254), default="")
    iban: Mapped[str | None] = mapped_column(String(34))
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class TokenRow(Base):
    __tablename__ = "tokens"
    __table_args__ = (CheckConstraint("user_id IS NOT NULL OR client_id IS NOT NULL", name="has_owner"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(128), unique=True)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    client_id: Mapped[int | None] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class AccountCodeRow(Base):
    """A one-time code mailed to a user, by its hash; at most one per user and purpose."""

    __tablename__ = "account_codes"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(20), primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class UserMappingRow(Base):
    __tablename__ = "user_mappings"
    __table_args__ = (
        UniqueConstraint("client_id", "external_id"),
        Index(None, "client_id", "user_id"),
        Index(None, "client_id", "created_at", "id"),  # the client's list, in its order
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ResourceMappingRow(Base):
    __tablename__ = "resource_mappings"
    __table_args__ = (
        UniqueConstraint("client_id", "external_id"),
        Index(None, "client_id", "created_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(255))
    resource_id: Mapped[int] = mapped_column(ForeignKey("resources.id", ondelete="CASCADE"), index=True)
    external_data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class VenueMappingRow(Base):
    __tablename__ = "venue_mappings"
    __table_args__ = (
        UniqueConstraint("client_id", "external_id"),
        Index(None, "client_id", "created_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(255))
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id", ondelete="CASCADE"), index=True)
    external_data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    approval_status: Mapped[str] = mapped_column(String(20), default="pending", index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
