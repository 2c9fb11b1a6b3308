"""The catalog file's schema (CONTRACT section 3) as msgspec Structs; a converted file is checked.

msgspec checks every key and value (unknown keys are refused: a typo would otherwise fall back to a
default silently). What involves more than one value is checked here by hand, in ``__post_init__``,
which msgspec runs as it builds each object, so the first bad key in document order is reported.
Such a check raises :class:`Invalid` with the key relative to its object.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import time
from itertools import pairwise
from typing import Any

from msgspec import Struct
from msgspec.structs import force_setattr, replace

from adapters.catalog import _types as t
from booking_core.accounts import Language
from booking_core.limits import control_character
from booking_core.staff import Role

_MIDNIGHT = time(0)


class CatalogError(Exception):
    """A catalog that cannot be loaded; the message starts with the path of the first bad key."""


class Invalid(ValueError):
    """A cross-field check failed at ``key`` (relative to the object checking); ``{other}`` in the
    message stands for the path of another key, relative to the same object."""

    def __init__(self, key: str, message: str, *, other: str | None = None) -> None:
        super().__init__(f"{key}: {message}")
        self.key, self.message, self.other = key, message, other


#: Keys whose text may run over several lines; every other string is one line (CONTRACT 4.8).
_MULTI_LINE = frozenset({"description"})


def _check_characters(key: str, value: str) -> None:
    """No control characters in a string the catalog gives (line breaks in a description)."""
    found = control_character(value, line_breaks=key in _MULTI_LINE)
    if found is not None:
        raise Invalid(key, f"must not contain control characters (found U+{ord(found):04X})")


class _Entry(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if name == "password":  # a secret: taken as given
                continue
            if isinstance(value, str):
                # Surrounding white space is layout (a YAML block scalar ends in a newline), not content.
                if value != value.strip():
                    value = type(value)(value.strip())
                    force_setattr(self, name, value)
                _check_characters(name, value)
            elif isinstance(value, tuple):
                for index, item in enumerate(value):
                    if isinstance(item, str):
                        _check_characters(f"{name}[{index}]", item.strip())


def _unique(items: Sequence[Any], key: str, of: Callable[[Any], str], where: str) -> None:
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        seen = first.setdefault(of(item).lower(), index)
        if seen != index:
            raise Invalid(
                f"{where}[{index}].{key}",
                f"{of(item)!r} appears twice (also {{other}})",
                other=f"{where}[{seen}]",
            )


class TimeSlotSpec(_Entry, frozen=True, kw_only=True):
    start_time: t.TimeOfDay
    end_time: t.TimeOfDay  # 00:00:00 means midnight at the end of the day
    price_per_unit: t.Money
    label: t.Text100 = ""
    # None until the resource fills in its own price_unit and booking_interval_minutes
    pricing_unit: t.Unit | None = None
    slot_duration_minutes: t.PositiveInt | None = None
    capacity_override: t.PositiveInt | None = None
    is_bookable: t.Flag = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.start_time.microsecond or self.end_time.microsecond:
            raise Invalid("start_time", 'must be a time "HH:MM:SS"')
        if self.end_time != _MIDNIGHT and self.end_time <= self.start_time:
            raise Invalid(
                "end_time",
                f"must be after start_time ({self.start_time.isoformat()}); 00:00:00 means midnight",
            )


class ScheduleSpec(_Entry, frozen=True, kw_only=True):
    day_of_week: t.Weekday | None = None
    specific_date: t.Day | None = None
    priority: t.Integer = 0
    start_date: t.Day | None = None
    end_date: t.Day | None = None
    is_active: t.Flag = True
    time_slots: tuple[TimeSlotSpec, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.day_of_week is None) == (self.specific_date is None):
            raise Invalid(
                "day_of_week", "give exactly one of day_of_week (1 = Monday ... 7 = Sunday) or specific_date"
            )
        if self.start_date is not None and self.end_date is not None and self.end_date < self.start_date:
            raise Invalid("end_date", f"must not be before start_date ({self.start_date})")
        ordered = sorted(enumerate(self.time_slots), key=lambda pair: pair[1].start_time)
        for (_, earlier), (index, later) in pairwise(ordered):
            if earlier.end_time == _MIDNIGHT or later.start_time < earlier.end_time:
                raise Invalid(f"time_slots[{index}].start_time", "overlaps another time slot")


class UnavailablePeriodSpec(_Entry, frozen=True, kw_only=True):
    start_datetime: t.Moment
    end_datetime: t.Moment
    reason: t.Name50

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.end_datetime <= self.start_datetime:
            raise Invalid("end_datetime", "must be after start_datetime")


class DynamicPricingSpec(_Entry, frozen=True, kw_only=True):
    enabled: t.Flag
    min_price: t.Money | None = None
    max_price: t.Money | None = None

    def __post_init__(self) -> None:
        for key in ("min_price", "max_price"):
            if self.enabled and getattr(self, key) is None:
                raise Invalid(key, "is required when dynamic pricing is enabled")
        if self.min_price is not None and self.max_price is not None and self.max_price < self.min_price:
            raise Invalid("max_price", f"must not be less than min_price ({self.min_price})")


class ResourceSpec(_Entry, frozen=True, kw_only=True):
    name: t.Name200
    description: t.Text = ""
    capacity: t.PositiveInt
    base_price: t.Money
    currency: t.Currency
    price_unit: t.Unit
    booking_interval_minutes: t.PositiveInt
    min_booking_duration_minutes: t.PositiveInt
    max_booking_duration_minutes: t.PositiveInt | None = None
    prevent_unbookable_gaps: t.Flag
    min_advance_booking_minutes: t.NonNegativeInt = 0
    max_advance_booking_days: t.PositiveInt = 90
    cancellation_deadline_hours: t.NonNegativeInt = 0
    is_active: t.Flag = True
    is_bookable: t.Flag = True
    activity_types: tuple[t.Name100, ...] = ()
    attributes: dict[str, Any] = {}
    dynamic_pricing: DynamicPricingSpec = DynamicPricingSpec(enabled=False)
    schedules: tuple[ScheduleSpec, ...]
    unavailable_periods: tuple[UnavailablePeriodSpec, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        low, high = self.min_booking_duration_minutes, self.max_booking_duration_minutes
        if high is not None and high < low:
            raise Invalid(
                "max_booking_duration_minutes", f"must not be less than min_booking_duration_minutes ({low})"
            )
        names = tuple(name.strip() for name in self.activity_types)
        if len(set(names)) != len(names):
            raise Invalid("activity_types", "must not repeat a name")
        try:
            json.dumps(self.attributes)
        except (TypeError, ValueError):
            raise Invalid(
                "attributes", "must hold only JSON values (strings, numbers, booleans, lists, mappings)"
            ) from None
        force_setattr(self, "activity_types", names)
        force_setattr(self, "schedules", tuple(self._with_slot_defaults(s) for s in self.schedules))

    def _with_slot_defaults(self, schedule: ScheduleSpec) -> ScheduleSpec:
        """A time slot without its own pricing unit or duration takes the resource's."""
        slots = tuple(
            replace(
                slot,
                pricing_unit=slot.pricing_unit or self.price_unit,
                slot_duration_minutes=slot.slot_duration_minutes or self.booking_interval_minutes,
            )
            for slot in schedule.time_slots
        )
        return replace(schedule, time_slots=slots)


class VenueSpec(_Entry, frozen=True, kw_only=True):
    slug: t.Slug
    name: t.Name200
    description: t.Text = ""
    short_description: t.Text255 = ""
    venue_type: t.Name50
    street_address: t.Name255
    city: t.Name100
    postal_code: t.Name20
    country: t.Country
    latitude: t.Latitude
    longitude: t.Longitude
    timezone: t.TimeZoneName
    operator_email: t.Email
    provider_account_id: t.Name255 | None = None
    is_active: t.Flag = True
    is_published: t.Flag = True
    resources: tuple[ResourceSpec, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        _unique(self.resources, "name", lambda resource: resource.name, "resources")


class UserSpec(_Entry, frozen=True, kw_only=True):
    email: t.Email  # kept trimmed and lower-case
    first_name: t.Text150
    last_name: t.Text150
    language: t.Lang = Language.DE
    password: t.Password | None = None
    token: t.Token | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        force_setattr(self, "email", self.email.lower())


class ClientSpec(_Entry, frozen=True, kw_only=True):
    name: t.Name200
    commission_percent: t.Percent
    contact_email: t.Email
    iban: t.Iban | None = None
    token: t.Token | None = None


class StaffSpec(_Entry, frozen=True, kw_only=True):
    """A staff role (CONTRACT 7.1): the user from ``users:``, or created without a password."""

    email: t.Email
    role: t.StaffRoleName
    venues: tuple[t.Slug, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        force_setattr(self, "email", self.email.lower())
        if self.role is Role.ADMIN and self.venues:
            raise Invalid("venues", "must be empty for admin, who holds for every venue")
        if self.role is not Role.ADMIN and not self.venues:
            raise Invalid("venues", "must name at least one venue for manager and desk")


class CatalogSpec(_Entry, frozen=True, kw_only=True):
    """The whole file, checked: every value has its domain type."""

    venues: tuple[VenueSpec, ...] = ()
    users: tuple[UserSpec, ...] = ()
    clients: tuple[ClientSpec, ...] = ()
    staff: tuple[StaffSpec, ...] = ()

    def __post_init__(self) -> None:
        _unique(self.venues, "slug", lambda venue: venue.slug, "venues")
        _unique(self.users, "email", lambda user: user.email, "users")
        _unique(self.clients, "name", lambda client: client.name, "clients")
        owners: dict[str, str] = {}
        tokens = [(f"users[{i}]", u.token) for i, u in enumerate(self.users)]
        tokens += [(f"clients[{i}]", c.token) for i, c in enumerate(self.clients)]
        for owner, token in tokens:
            if token is not None and token in owners:
                raise Invalid(f"{owner}.token", "the same token is given to {other}", other=owners[token])
            if token is not None:
                owners[token] = owner
