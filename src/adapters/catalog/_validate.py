"""Turn a parsed catalog document into a :class:`CatalogSpec`, or name the first bad key.

Keys are checked in the order of CONTRACT section 3; unknown keys are refused (a typo would
otherwise silently fall back to a default). Optional keys may be absent or null; nullable keys
(``max_booking_duration_minutes``, ``capacity_override``, ...) are optional so that TOML, which has
no null, can express every catalog. Top-level keys starting with ``x-`` are ignored (a place for
YAML anchors).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields
from datetime import time
from decimal import Decimal
from itertools import pairwise
from typing import Any, NoReturn, TypeVar

from adapters.catalog import _values as v
from adapters.catalog._spec import (
    CatalogError,
    CatalogSpec,
    ClientSpec,
    DynamicPricingSpec,
    ResourceSpec,
    ScheduleSpec,
    TimeSlotSpec,
    UnavailablePeriodSpec,
    UserSpec,
    VenueSpec,
)
from booking_core.accounts import Language
from booking_core.catalog import PriceUnit

T = TypeVar("T")
_MONEY = v.decimal(places=2)
_MIDNIGHT = time(0)


class _Map:
    """One mapping of the document at ``path``, with the keys it may have."""

    def __init__(self, raw: object, path: str, keys: tuple[str, ...]) -> None:
        self.path = path
        if not isinstance(raw, dict):
            raise CatalogError(f"{path or 'catalog'}: must be a mapping")
        self.raw: dict[Any, Any] = raw
        for key in raw:
            if key not in keys:
                raise CatalogError(f"{self.at(str(key))}: unknown key (expected one of: {', '.join(keys)})")

    def at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, message: str) -> NoReturn:
        raise CatalogError(f"{self.at(key)}: {message}")

    def req(self, key: str, check: Callable[[object], T]) -> T:
        if key not in self.raw:
            self.fail(key, "is required")
        return self._check(key, check)

    def opt(self, key: str, check: Callable[[object], T], default: T) -> T:
        if self.raw.get(key) is None:
            return default
        return self._check(key, check)

    def _check(self, key: str, check: Callable[[object], T]) -> T:
        try:
            return check(self.raw[key])
        except v.Bad as exc:
            self.fail(key, str(exc))

    def items(self, key: str, *, required: bool) -> Iterator[tuple[object, str]]:
        """The entries of a list value with their paths (``key[i]``)."""
        raw = self.raw.get(key)
        if raw is None:
            if required and key not in self.raw:
                self.fail(key, "is required")
            if required:
                self.fail(key, "must be a list")
            return
        if not isinstance(raw, list):
            self.fail(key, "must be a list")
        for index, item in enumerate(raw):
            yield item, f"{self.at(key)}[{index}]"


def validate_catalog(document: object) -> CatalogSpec:
    """Check the whole document; raise :class:`CatalogError` at the first bad key."""
    if document is None:
        document = {}
    if isinstance(document, dict):
        # Top-level "x-..." keys are free for YAML anchors shared by several resources.
        document = {k: val for k, val in document.items() if not (isinstance(k, str) and k.startswith("x-"))}
    top = _Map(document, "", ("venues", "users", "clients"))
    venues = tuple(_venue(raw, path) for raw, path in top.items("venues", required=False))
    _unique(venues, "slug", lambda venue: venue.slug, "venues")
    users = tuple(_user(raw, path) for raw, path in top.items("users", required=False))
    _unique(users, "email", lambda user: user.email, "users")
    clients = tuple(_client(raw, path) for raw, path in top.items("clients", required=False))
    _unique(clients, "name", lambda client: client.name, "clients")
    tokens = [("users", i, u.token) for i, u in enumerate(users)]
    tokens += [("clients", i, c.token) for i, c in enumerate(clients)]
    seen: dict[str, str] = {}
    for section, index, token in tokens:
        if token is None:
            continue
        if token in seen:
            raise CatalogError(f"{section}[{index}].token: the same token is given to {seen[token]}")
        seen[token] = f"{section}[{index}]"
    return CatalogSpec(venues=venues, users=users, clients=clients)


def _unique(items: tuple[T, ...], key: str, value: Callable[[T], str], path: str) -> None:
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        seen = first.setdefault(value(item).lower(), index)
        if seen != index:
            raise CatalogError(f"{path}[{index}].{key}: {value(item)!r} appears twice (also {path}[{seen}])")


_VENUE_KEYS = tuple(f.name for f in fields(VenueSpec))


def _venue(raw: object, path: str) -> VenueSpec:
    m = _Map(raw, path, _VENUE_KEYS)
    venue = VenueSpec(
        slug=m.req("slug", v.limited(100, v.slug)),
        name=m.req("name", v.limited(200)),
        description=m.opt("description", v.text, ""),
        short_description=m.opt("short_description", v.limited(255, v.text), ""),
        venue_type=m.req("venue_type", v.limited(50)),
        street_address=m.req("street_address", v.limited(255)),
        city=m.req("city", v.limited(100)),
        postal_code=m.req("postal_code", v.limited(20)),
        country=m.req("country", v.country),
        latitude=m.req("latitude", v.decimal(places=6, low=Decimal(-90), high=Decimal(90))),
        longitude=m.req("longitude", v.decimal(places=6, low=Decimal(-180), high=Decimal(180))),
        timezone=m.req("timezone", v.timezone),
        operator_email=m.req("operator_email", v.limited(254, v.email)),
        provider_account_id=m.opt("provider_account_id", v.limited(255), None),
        is_active=m.opt("is_active", v.boolean, True),
        is_published=m.opt("is_published", v.boolean, True),
        resources=tuple(_resource(r, p) for r, p in m.items("resources", required=True)),
    )
    _unique(venue.resources, "name", lambda resource: resource.name, m.at("resources"))
    return venue


_RESOURCE_KEYS = (
    "name",
    "description",
    "capacity",
    "base_price",
    "currency",
    "price_unit",
    "booking_interval_minutes",
    "min_booking_duration_minutes",
    "max_booking_duration_minutes",
    "prevent_unbookable_gaps",
    "min_advance_booking_minutes",
    "max_advance_booking_days",
    "cancellation_deadline_hours",
    "is_active",
    "is_bookable",
    "activity_types",
    "attributes",
    "dynamic_pricing",
    "schedules",
    "unavailable_periods",
)
_PRICE_UNITS = v.one_of(*(unit.value for unit in PriceUnit))


def _resource(raw: object, path: str) -> ResourceSpec:
    m = _Map(raw, path, _RESOURCE_KEYS)
    name = m.req("name", v.limited(200))
    description = m.opt("description", v.text, "")
    capacity = m.req("capacity", v.positive_int)
    base_price = m.req("base_price", _MONEY)
    currency = m.req("currency", v.currency)
    price_unit = PriceUnit(m.req("price_unit", _PRICE_UNITS))
    interval = m.req("booking_interval_minutes", v.positive_int)
    min_duration = m.req("min_booking_duration_minutes", v.positive_int)
    max_duration = m.opt("max_booking_duration_minutes", v.positive_int, None)
    if max_duration is not None and max_duration < min_duration:
        m.fail(
            "max_booking_duration_minutes",
            f"must not be less than min_booking_duration_minutes ({min_duration})",
        )
    return ResourceSpec(
        name=name,
        description=description,
        capacity=capacity,
        base_price=base_price,
        currency=currency,
        price_unit=price_unit,
        booking_interval_minutes=interval,
        min_booking_duration_minutes=min_duration,
        max_booking_duration_minutes=max_duration,
        prevent_unbookable_gaps=m.req("prevent_unbookable_gaps", v.boolean),
        min_advance_booking_minutes=m.opt("min_advance_booking_minutes", v.non_negative_int, 0),
        max_advance_booking_days=m.opt("max_advance_booking_days", v.positive_int, 90),
        cancellation_deadline_hours=m.opt("cancellation_deadline_hours", v.non_negative_int, 0),
        is_active=m.opt("is_active", v.boolean, True),
        is_bookable=m.opt("is_bookable", v.boolean, True),
        activity_types=m.opt("activity_types", v.string_list, ()),
        attributes=m.opt("attributes", v.json_object, {}),
        dynamic_pricing=_dynamic_pricing(m.raw.get("dynamic_pricing"), m.at("dynamic_pricing")),
        schedules=tuple(
            _schedule(s, p, price_unit, interval) for s, p in m.items("schedules", required=True)
        ),
        unavailable_periods=tuple(
            _unavailable(u, p) for u, p in m.items("unavailable_periods", required=False)
        ),
    )


def _dynamic_pricing(raw: object, path: str) -> DynamicPricingSpec:
    if raw is None:
        return DynamicPricingSpec()
    m = _Map(raw, path, ("enabled", "min_price", "max_price"))
    enabled = m.req("enabled", v.boolean)
    min_price = m.opt("min_price", _MONEY, None)
    max_price = m.opt("max_price", _MONEY, None)
    if enabled and min_price is None:
        m.fail("min_price", "is required when dynamic pricing is enabled")
    if enabled and max_price is None:
        m.fail("max_price", "is required when dynamic pricing is enabled")
    if min_price is not None and max_price is not None and max_price < min_price:
        m.fail("max_price", f"must not be less than min_price ({min_price})")
    return DynamicPricingSpec(enabled=enabled, min_price=min_price, max_price=max_price)


_SCHEDULE_KEYS = (
    "day_of_week",
    "specific_date",
    "priority",
    "start_date",
    "end_date",
    "is_active",
    "time_slots",
)


def _schedule(raw: object, path: str, price_unit: PriceUnit, interval: int) -> ScheduleSpec:
    m = _Map(raw, path, _SCHEDULE_KEYS)
    day_of_week = m.opt("day_of_week", v.int_range(1, 7), None)
    specific_date = m.opt("specific_date", v.day, None)
    if (day_of_week is None) == (specific_date is None):
        m.fail("day_of_week", "give exactly one of day_of_week (1 = Monday ... 7 = Sunday) or specific_date")
    priority = m.opt("priority", v.integer, 0)
    start_date = m.opt("start_date", v.day, None)
    end_date = m.opt("end_date", v.day, None)
    if start_date is not None and end_date is not None and end_date < start_date:
        m.fail("end_date", f"must not be before start_date ({start_date})")
    is_active = m.opt("is_active", v.boolean, True)
    slots = tuple(_time_slot(s, p, price_unit, interval) for s, p in m.items("time_slots", required=True))
    ordered = sorted(enumerate(slots), key=lambda pair: pair[1].start_time)
    for (_, earlier), (index, later) in pairwise(ordered):
        if earlier.end_time == _MIDNIGHT or later.start_time < earlier.end_time:
            raise CatalogError(f"{m.at('time_slots')}[{index}].start_time: overlaps another time slot")
    return ScheduleSpec(
        day_of_week=day_of_week,
        specific_date=specific_date,
        priority=priority,
        start_date=start_date,
        end_date=end_date,
        is_active=is_active,
        time_slots=slots,
    )


_SLOT_KEYS = (
    "start_time",
    "end_time",
    "price_per_unit",
    "label",
    "pricing_unit",
    "slot_duration_minutes",
    "capacity_override",
    "is_bookable",
)


def _time_slot(raw: object, path: str, price_unit: PriceUnit, interval: int) -> TimeSlotSpec:
    m = _Map(raw, path, _SLOT_KEYS)
    start = m.req("start_time", v.time_of_day)
    end = m.req("end_time", v.time_of_day)
    if end != _MIDNIGHT and end <= start:
        m.fail("end_time", f"must be after start_time ({start.isoformat()}); 00:00:00 means midnight")
    return TimeSlotSpec(
        start_time=start,
        end_time=end,
        price_per_unit=m.req("price_per_unit", _MONEY),
        label=m.opt("label", v.limited(100, v.text), ""),
        pricing_unit=PriceUnit(m.opt("pricing_unit", _PRICE_UNITS, price_unit.value)),
        slot_duration_minutes=m.opt("slot_duration_minutes", v.positive_int, interval),
        capacity_override=m.opt("capacity_override", v.positive_int, None),
        is_bookable=m.opt("is_bookable", v.boolean, True),
    )


def _unavailable(raw: object, path: str) -> UnavailablePeriodSpec:
    m = _Map(raw, path, ("start_datetime", "end_datetime", "reason"))
    start = m.req("start_datetime", v.aware_datetime)
    end = m.req("end_datetime", v.aware_datetime)
    if end <= start:
        m.fail("end_datetime", "must be after start_datetime")
    return UnavailablePeriodSpec(
        start_datetime=start, end_datetime=end, reason=m.req("reason", v.limited(50))
    )


def _user(raw: object, path: str) -> UserSpec:
    m = _Map(raw, path, ("email", "first_name", "last_name", "language", "password", "token"))
    return UserSpec(
        email=m.req("email", v.limited(254, v.email)).lower(),
        first_name=m.req("first_name", v.limited(150, v.text)),
        last_name=m.req("last_name", v.limited(150, v.text)),
        language=Language(m.opt("language", v.one_of(*(lang.value for lang in Language)), "de")),
        password=m.opt("password", v.password, None),
        token=m.opt("token", v.token, None),
    )


def _client(raw: object, path: str) -> ClientSpec:
    m = _Map(raw, path, ("name", "commission_percent", "contact_email", "iban", "token"))
    return ClientSpec(
        name=m.req("name", v.limited(200)),
        commission_percent=m.req(
            "commission_percent", v.decimal(places=2, low=Decimal(0), high=Decimal(100))
        ),
        contact_email=m.req("contact_email", v.limited(254, v.email)),
        iban=m.opt("iban", v.iban, None),
        token=m.opt("token", v.token, None),
    )
