"""Tables of the catalog: venues, resources, activity types, schedules, time slots, closures."""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Date,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    Table,
    Text,
    Time,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from adapters.sqla.models.base import Base
from adapters.sqla.types import Money, UtcDateTime

resource_activity_types = Table(
    "resource_activity_types",
    Base.metadata,
    Column("resource_id", ForeignKey("resources.id", ondelete="CASCADE"), primary_key=True),
    Column("activity_type_id", ForeignKey("activity_types.id", ondelete="CASCADE"), primary_key=True),
)


class ActivityTypeRow(Base):
    __tablename__ = "activity_types"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)


class VenueRow(Base):
    __tablename__ = "venues"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(100), unique=True)
    # the resource list is ordered by venue name first: read in this order, a page stops at its end
    name: Mapped[str] = mapped_column(String(200), index=True)
    description: Mapped[str] = mapped_column(Text, default="")
    short_description: Mapped[str] = mapped_column(String(255), default="")
    venue_type: Mapped[str] = mapped_column(String(50), default="")
    street_address: Mapped[str] = mapped_column(String(255), default="")
    city: Mapped[str] = mapped_column(String(100), default="")
    postal_code: Mapped[str] = mapped_column(String(20), default="")
    country: Mapped[str] = mapped_column(String(100), default="")
    latitude: Mapped[Decimal | None] = mapped_column(Numeric(9, 6))
    longitude: Mapped[Decimal | None] = mapped_column(Numeric(9, 6))
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    operator_email: Mapped[str] = mapped_column(String(254), default="")
    provider_account_id: Mapped[str | None] = mapped_column(String(255))
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    is_published: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)

    resources: Mapped[list[ResourceRow]] = relationship(back_populates="venue")


class ResourceRow(Base):
    __tablename__ = "resources"
    __table_args__ = (UniqueConstraint("venue_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    capacity: Mapped[int] = mapped_column(Integer, default=1)
    base_price: Mapped[Decimal] = mapped_column(Money())
    currency: Mapped[str] = mapped_column(String(3), default="EUR")
    price_unit: Mapped[str] = mapped_column(String(20), default="hour")
    booking_interval_minutes: Mapped[int] = mapped_column(Integer, default=30)
    min_booking_duration_minutes: Mapped[int] = mapped_column(Integer, default=60)
    max_booking_duration_minutes: Mapped[int | None] = mapped_column(Integer)
    prevent_unbookable_gaps: Mapped[bool] = mapped_column(Boolean, default=False)
    min_advance_booking_minutes: Mapped[int] = mapped_column(Integer, default=0)
    max_advance_booking_days: Mapped[int] = mapped_column(Integer, default=90)
    cancellation_deadline_hours: Mapped[int] = mapped_column(Integer, default=0)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    is_bookable: Mapped[bool] = mapped_column(Boolean, default=True)
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    dynamic_pricing_enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    min_price: Mapped[Decimal | None] = mapped_column(Money())
    max_price: Mapped[Decimal | None] = mapped_column(Money())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)

    venue: Mapped[VenueRow] = relationship(back_populates="resources")
    activity_types: Mapped[list[ActivityTypeRow]] = relationship(
        secondary=resource_activity_types, order_by=ActivityTypeRow.name
    )
    schedules: Mapped[list[ScheduleRow]] = relationship(
        cascade="all, delete-orphan", order_by=lambda: ScheduleRow.id
    )
    unavailable_periods: Mapped[list[UnavailablePeriodRow]] = relationship(
        cascade="all, delete-orphan", order_by=lambda: UnavailablePeriodRow.start_at
    )


class ScheduleRow(Base):
    __tablename__ = "schedules"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("resources.id", ondelete="CASCADE"), index=True)
    day_of_week: Mapped[int | None] = mapped_column(Integer)
    specific_date: Mapped[date | None] = mapped_column(Date)
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    priority: Mapped[int] = mapped_column(Integer, default=0)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)

    time_slots: Mapped[list[TimeSlotRow]] = relationship(
        cascade="all, delete-orphan", order_by=lambda: TimeSlotRow.start_time
    )


class TimeSlotRow(Base):
    __tablename__ = "time_slots"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    schedule_id: Mapped[int] = mapped_column(ForeignKey("schedules.id", ondelete="CASCADE"), index=True)
    start_time: Mapped[time] = mapped_column(Time)
    end_time: Mapped[time] = mapped_column(Time)
    price_per_unit: Mapped[Decimal] = mapped_column(Money())
    pricing_unit: Mapped[str] = mapped_column(String(20), default="hour")
    slot_duration_minutes: Mapped[int] = mapped_column(Integer, default=60)
    capacity_override: Mapped[int | None] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(100), default="")
    is_bookable: Mapped[bool] = mapped_column(Boolean, default=True)


class UnavailablePeriodRow(Base):
    """Closed time of a resource: the catalog's unavailable periods and the blocks staff place.

    A booking in a blocking state never overlaps one: triggers on ``bookings`` (migration 0018)
    refuse it as the exclusion constraint refuses an overlap of bookings."""

    __tablename__ = "unavailable_periods"
    __table_args__ = (Index(None, "resource_id", "start_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("resources.id", ondelete="CASCADE"))
    start_at: Mapped[datetime] = mapped_column(UtcDateTime)
    end_at: Mapped[datetime] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(String(50), default="maintenance")
    # catalog (replaced by the next load) or staff (kept until deleted); migration 0018 adds these
    source: Mapped[str] = mapped_column(String(10), server_default="catalog", default="catalog")
    note: Mapped[str] = mapped_column(Text, server_default="", default="")
    created_by: Mapped[str | None] = mapped_column(String(36), ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class CatalogRevisionRow(Base):
    """One row counting changes to the catalog tables; caches of the catalog compare against it."""

    __tablename__ = "catalog_revision"

    id: Mapped[int] = mapped_column(primary_key=True)
    revision: Mapped[int] = mapped_column(default=0)
