"""Write a validated catalog in one transaction through the SQLAlchemy models.

Upsert semantics (simplest that is correct and idempotent):

- venues match by ``slug``, resources by (venue slug, ``name``), users by ``email`` (case-insensitive),
  clients by ``name``, activity types by ``name``. A match gets every field from the file; an
  optional key left out sets its default (so the file is the truth for what it names).
- A resource's schedules (with their time slots) and its unavailable periods are replaced by the
  file's as a whole, but only when they differ, so reloading an unchanged file rewrites nothing and
  keeps their ids. Only the periods the catalog put there are replaced: blocks staff placed
  (``source`` ``staff``) stay. A period's reason that is not one of maintenance, holiday, event,
  weather, other is stored as ``other`` with the file's words as its note.
- Nothing is ever deleted that the file does not name: a venue, resource, user or client missing from
  the file stays as it is (set ``is_active: false`` to retire one).
- A user's ``password`` is (re)hashed only when it does not match the stored hash; a user without one
  in the file keeps theirs. A ``token`` is stored as its SHA-256 hash; loading it again is a no-op,
  and a token already issued to someone else is refused.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from msgspec.structs import fields
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from adapters.catalog._spec import (
    CatalogError,
    CatalogSpec,
    ClientSpec,
    ResourceSpec,
    ScheduleSpec,
    StaffSpec,
    UserSpec,
    VenueSpec,
)
from adapters.sqla.errors import translated
from adapters.sqla.models import (
    ActivityTypeRow,
    ClientRow,
    ResourceRow,
    ScheduleRow,
    StaffRoleRow,
    TimeSlotRow,
    TokenRow,
    UnavailablePeriodRow,
    UserRow,
    VenueRow,
)
from booking_core.catalog import BlockReason, BlockSource
from booking_core.ports import CatalogChange, PasswordHasher
from booking_core.usecases.auth import hash_token

KINDS = (
    "venues",
    "resources",
    "schedules",
    "unavailable periods",
    "activity types",
    "users",
    "clients",
    "tokens",
    "staff roles",
)


@dataclass
class LoadReport:
    """What a load did, counted per kind of object."""

    created: Counter[str] = field(default_factory=Counter)
    updated: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    removed: Counter[str] = field(default_factory=Counter)
    #: The venues and resources created or updated, in the order written.
    changes: list[CatalogChange] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per kind that the file mentions, e.g. ``venues: 1 created, 0 updated, 0 unchanged``."""
        out = []
        for kind in KINDS:
            counts = (self.created[kind], self.updated[kind], self.unchanged[kind], self.removed[kind])
            if any(counts):
                line = f"{kind}: {counts[0]} created, {counts[1]} updated, {counts[2]} unchanged"
                out.append(line + (f", {counts[3]} removed" if counts[3] else ""))
        return out or ["nothing to load"]


def write_catalog(
    engine: Engine, spec: CatalogSpec, passwords: PasswordHasher, *, now: datetime | None = None
) -> LoadReport:
    """Upsert ``spec`` in one transaction; on any error nothing is written."""
    # Rows are flushed explicitly once complete; an autoflush would insert half-filled ones.
    session = Session(engine, expire_on_commit=False, autoflush=False)
    with translated(), session, session.begin():
        return upsert_catalog(session, spec, passwords, now=now)


def upsert_catalog(
    session: Session, spec: CatalogSpec, passwords: PasswordHasher, *, now: datetime | None = None
) -> LoadReport:
    """Upsert ``spec`` in ``session``'s transaction, committing nothing (the operator API's catalog
    writes it in its unit of work, beside the audit entries)."""
    writer = _Writer(passwords, now or datetime.now(UTC))
    writer.session = session
    with session.no_autoflush:
        for venue in spec.venues:
            writer.venue(venue)
        for index, user in enumerate(spec.users):
            writer.user(user, f"users[{index}]")
        for index, client in enumerate(spec.clients):
            writer.client(client, f"clients[{index}]")
        for index, staff in enumerate(spec.staff):
            writer.staff(staff, f"staff[{index}]")
        session.flush()
    writer.report.changes.extend(
        CatalogChange(
            venue_id=row.id if kind == "venue" else row.venue.id,
            kind=kind,
            name=name,
            object_id=row.id,
            created=created,
        )
        for kind, name, row, created in writer.changed
    )
    return writer.report


class _Writer:
    def __init__(self, passwords: PasswordHasher, now: datetime) -> None:
        self.passwords = passwords
        self.now = now
        self.report = LoadReport()
        self.session: Session
        self._activity_types: dict[str, ActivityTypeRow] = {}
        #: (kind, name, row, created) of each venue and resource created or updated
        self.changed: list[tuple[str, str, Any, bool]] = []

    def _apply(
        self, kind: str, row: Any, values: dict[str, Any], *, created: bool, children_changed: bool = False
    ) -> bool:
        """Set ``values`` on ``row`` and count it; ``updated_at`` moves only when something changed.
        True when the row is new or changed."""
        changed = [key for key, value in values.items() if getattr(row, key) != value]
        for key in changed:
            setattr(row, key, values[key])
        changed += ["children"] if children_changed else []
        if created:
            self.report.created[kind] += 1
        elif changed:
            self.report.updated[kind] += 1
        else:
            self.report.unchanged[kind] += 1
        if (created or changed) and hasattr(row, "updated_at"):
            row.updated_at = self.now
        return created or bool(changed)

    def venue(self, spec: VenueSpec) -> None:
        row = self.session.scalar(select(VenueRow).where(VenueRow.slug == spec.slug))
        created = row is None
        if row is None:
            row = VenueRow(slug=spec.slug, created_at=self.now)
            self.session.add(row)
        # every field of the file's venue except its key and its children
        values = {f.name: getattr(spec, f.name) for f in fields(spec) if f.name not in {"slug", "resources"}}
        if self._apply("venues", row, values, created=created):
            self.changed.append(("venue", spec.slug, row, created))
        self.session.flush()
        for resource in spec.resources:
            self.resource(row, resource)

    def resource(self, venue: VenueRow, spec: ResourceSpec) -> None:
        row = None
        if venue.id is not None:
            row = self.session.scalar(
                select(ResourceRow).where(ResourceRow.venue_id == venue.id, ResourceRow.name == spec.name)
            )
        created = row is None
        if row is None:
            row = ResourceRow(
                venue=venue, name=spec.name, created_at=self.now, schedules=[], activity_types=[]
            )
            row.unavailable_periods = []
            self.session.add(row)
        values: dict[str, Any] = {
            key: getattr(spec, key)
            for key in (
                "description",
                "capacity",
                "base_price",
                "currency",
                "booking_interval_minutes",
                "min_booking_duration_minutes",
                "max_booking_duration_minutes",
                "prevent_unbookable_gaps",
                "min_advance_booking_minutes",
                "max_advance_booking_days",
                "cancellation_deadline_hours",
                "is_active",
                "is_bookable",
                "attributes",
            )
        }
        values["price_unit"] = spec.price_unit.value
        values["dynamic_pricing_enabled"] = spec.dynamic_pricing.enabled
        values["min_price"] = spec.dynamic_pricing.min_price
        values["max_price"] = spec.dynamic_pricing.max_price
        types = [self._activity_type(name) for name in spec.activity_types]
        children_changed = self._schedules(row, spec) | self._unavailable(row, spec)
        if sorted(t.name for t in row.activity_types) != sorted(spec.activity_types):
            row.activity_types = types
            children_changed = True
        if self._apply("resources", row, values, created=created, children_changed=children_changed):
            self.changed.append(("resource", spec.name, row, created))

    def _activity_type(self, name: str) -> ActivityTypeRow:
        if name not in self._activity_types:
            row = self.session.scalar(select(ActivityTypeRow).where(ActivityTypeRow.name == name))
            if row is None:
                row = ActivityTypeRow(name=name)
                self.session.add(row)
                self.report.created["activity types"] += 1
            else:
                self.report.unchanged["activity types"] += 1
            self._activity_types[name] = row
        return self._activity_types[name]

    def _schedules(self, row: ResourceRow, spec: ResourceSpec) -> bool:
        stored = sorted(map(_schedule_key, row.schedules), key=repr)
        wanted = sorted(map(_spec_schedule_key, spec.schedules), key=repr)
        if stored == wanted:
            self.report.unchanged["schedules"] += len(stored)
            return False
        self.report.removed["schedules"] += len(row.schedules)
        self.report.created["schedules"] += len(spec.schedules)
        row.schedules = [_schedule_row(schedule) for schedule in spec.schedules]
        return True

    def _unavailable(self, row: ResourceRow, spec: ResourceSpec) -> bool:
        """The file's periods replace the resource's catalog periods; blocks staff placed stay."""
        catalog = BlockSource.CATALOG.value
        kept = [p for p in row.unavailable_periods if p.source != catalog]
        stored = sorted(
            (p.start_at, p.end_at, p.reason, p.note) for p in row.unavailable_periods if p.source == catalog
        )
        wanted = sorted(
            (p.start_datetime.astimezone(UTC), p.end_datetime.astimezone(UTC), *_reason_and_note(p.reason))
            for p in spec.unavailable_periods
        )
        kind = "unavailable periods"
        if stored == wanted:
            self.report.unchanged[kind] += len(stored)
            return False
        self.report.removed[kind] += len(stored)
        self.report.created[kind] += len(wanted)
        row.unavailable_periods = kept + [
            UnavailablePeriodRow(
                start_at=start, end_at=end, reason=reason, note=note, source=catalog, created_at=self.now
            )
            for start, end, reason, note in wanted
        ]
        return True

    def user(self, spec: UserSpec, path: str) -> None:
        row = self.session.scalar(select(UserRow).where(func.lower(UserRow.email) == spec.email))
        created = row is None
        if row is None:
            row = UserRow(id=str(uuid.uuid4()), email=spec.email, is_active=True, created_at=self.now)
            self.session.add(row)
        values: dict[str, Any] = {
            "first_name": spec.first_name,
            "last_name": spec.last_name,
            "language": spec.language.value,
        }
        if spec.password is not None and (
            row.password_hash is None or not self.passwords.verify(row.password_hash, spec.password)
        ):
            values["password_hash"] = self.passwords.hash(spec.password)
        self._apply("users", row, values, created=created)
        if spec.token is not None:
            self.session.flush()
            self._token(spec.token, f"{path}.token", user_id=row.id, client_id=None)

    def client(self, spec: ClientSpec, path: str) -> None:
        row = self.session.scalar(select(ClientRow).where(ClientRow.name == spec.name))
        created = row is None
        if row is None:
            row = ClientRow(name=spec.name, is_active=True, created_at=self.now)
            self.session.add(row)
        values = {
            "commission_percent": spec.commission_percent,
            "contact_email": spec.contact_email,
            "iban": spec.iban,
        }
        self._apply("clients", row, values, created=created)
        if spec.token is not None:
            self.session.flush()
            self._token(spec.token, f"{path}.token", user_id=None, client_id=row.id)

    def staff(self, spec: StaffSpec, path: str) -> None:
        """Grant the roles of ``spec`` (never taking others away); a missing user is created without
        a password (they set one through the password reset)."""
        self.session.flush()
        user = self.session.scalar(select(UserRow).where(func.lower(UserRow.email) == spec.email))
        if user is None:
            user = UserRow(id=str(uuid.uuid4()), email=spec.email, is_active=True, created_at=self.now)
            self.session.add(user)
            self.session.flush()
            self.report.created["users"] += 1
        venue_ids: list[int | None] = []
        for index, slug in enumerate(spec.venues):
            venue_id = self.session.scalar(select(VenueRow.id).where(VenueRow.slug == slug))
            if venue_id is None:
                raise CatalogError(f"{path}.venues[{index}]: no venue with slug {slug}")
            venue_ids.append(venue_id)
        for venue_id in venue_ids or [None]:
            held = self.session.scalar(
                select(StaffRoleRow.id).where(
                    StaffRoleRow.user_id == user.id,
                    StaffRoleRow.role == spec.role.value,
                    func.coalesce(StaffRoleRow.venue_id, 0) == (venue_id or 0),
                )
            )
            if held is None:
                self.session.add(
                    StaffRoleRow(
                        user_id=user.id, role=spec.role.value, venue_id=venue_id, created_at=self.now
                    )
                )
                self.report.created["staff roles"] += 1
            else:
                self.report.unchanged["staff roles"] += 1

    def _token(self, token: str, path: str, *, user_id: str | None, client_id: int | None) -> None:
        token_hash = hash_token(token)
        row = self.session.scalar(select(TokenRow).where(TokenRow.token_hash == token_hash))
        if row is None:
            self.session.add(
                TokenRow(token_hash=token_hash, user_id=user_id, client_id=client_id, created_at=self.now)
            )
            self.report.created["tokens"] += 1
        elif (row.user_id, row.client_id) != (user_id, client_id):
            raise CatalogError(f"{path}: this token is already issued to another user or client")
        elif row.revoked_at is not None:
            row.revoked_at = None
            self.report.updated["tokens"] += 1
        else:
            self.report.unchanged["tokens"] += 1


def _reason_and_note(text: str) -> tuple[str, str]:
    """A catalog period's reason as stored: one of :class:`BlockReason`, or ``other`` with the
    file's own words as the note."""
    word = text.strip().lower()
    if word in set(BlockReason):
        return word, ""
    return BlockReason.OTHER.value, text


def _schedule_key(row: ScheduleRow) -> tuple[object, ...]:
    slots = sorted(
        (
            s.start_time,
            s.end_time,
            s.price_per_unit,
            s.pricing_unit,
            s.slot_duration_minutes,
            s.capacity_override,
            s.label,
            s.is_bookable,
        )
        for s in row.time_slots
    )
    day = None if row.specific_date is not None else row.day_of_week
    return (day, row.specific_date, row.start_date, row.end_date, row.priority, row.is_active, slots)


def _spec_schedule_key(spec: ScheduleSpec) -> tuple[object, ...]:
    slots = sorted(
        (
            s.start_time,
            s.end_time,
            s.price_per_unit,
            s.pricing_unit.value,
            s.slot_duration_minutes,
            s.capacity_override,
            s.label,
            s.is_bookable,
        )
        for s in spec.time_slots
    )
    return (
        spec.day_of_week,
        spec.specific_date,
        spec.start_date,
        spec.end_date,
        spec.priority,
        spec.is_active,
        slots,
    )


def _schedule_row(spec: ScheduleSpec) -> ScheduleRow:
    # A date override also records its weekday (CONTRACT 4.1: "its day_of_week is that date's weekday").
    day_of_week = spec.specific_date.isoweekday() if spec.specific_date is not None else spec.day_of_week
    return ScheduleRow(
        day_of_week=day_of_week,
        specific_date=spec.specific_date,
        start_date=spec.start_date,
        end_date=spec.end_date,
        priority=spec.priority,
        is_active=spec.is_active,
        time_slots=[
            TimeSlotRow(
                start_time=slot.start_time,
                end_time=slot.end_time,
                price_per_unit=slot.price_per_unit,
                pricing_unit=slot.pricing_unit.value,
                slot_duration_minutes=slot.slot_duration_minutes,
                capacity_override=slot.capacity_override,
                label=slot.label,
                is_bookable=slot.is_bookable,
            )
            for slot in spec.time_slots
        ],
    )
