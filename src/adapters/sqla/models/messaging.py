"""Messages to send after commit (the outbox) and stored responses for idempotent retries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from adapters.sqla.models.base import Base
from adapters.sqla.types import UtcDateTime


class OutboxRow(Base):
    """One message; ``status`` pending -> sent | failed (see ``booking_core.outbox``)."""

    __tablename__ = "outbox"
    __table_args__ = (Index(None, "status", "due_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    kind: Mapped[str] = mapped_column(String(50))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    status: Mapped[str] = mapped_column(String(20), server_default="pending")
    due_at: Mapped[datetime] = mapped_column(UtcDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    message_id: Mapped[str | None] = mapped_column(String(255))


class IdempotencyRecordRow(Base):
    __tablename__ = "idempotency_records"

    scope: Mapped[str] = mapped_column(String(255), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(128))
    status_code: Mapped[int] = mapped_column(Integer)
    body: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
