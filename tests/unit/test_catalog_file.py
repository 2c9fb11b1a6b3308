"""The catalog file: the first bad key is named, and YAML, JSON and TOML mean the same."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.catalog import DEMO_CATALOG, CatalogError, read_catalog, validate_catalog
from booking_core.accounts import Language
from booking_core.catalog import PriceUnit

BASE: dict[str, Any] = {
    "venues": [
        {
            "slug": "center-court",
            "name": "Center Court Club",
            "venue_type": "tennis_club",
            "street_address": "Hauptstrasse 1",
            "city": "Berlin",
            "postal_code": "10115",
            "country": "DE",
            "latitude": "52.520008",
            "longitude": "13.404954",
            "timezone": "Europe/Berlin",
            "operator_email": "ops@center-court.example",
            "resources": [
                {
                    "name": "Court 1",
                    "capacity": 4,
                    "base_price": "20.00",
                    "currency": "EUR",
                    "price_unit": "hour",
                    "booking_interval_minutes": 30,
                    "min_booking_duration_minutes": 60,
                    "max_booking_duration_minutes": 180,
                    "prevent_unbookable_gaps": True,
                    "activity_types": ["tennis"],
                    "attributes": {"surface": "clay"},
                    "dynamic_pricing": {"enabled": True, "min_price": "15.00", "max_price": "45.00"},
                    "schedules": [
                        {
                            "day_of_week": 1,
                            "priority": 0,
                            "time_slots": [
                                {"start_time": "08:00:00", "end_time": "17:00:00", "price_per_unit": "20.00"},
                                {
                                    "start_time": "17:00:00",
                                    "end_time": "00:00:00",
                                    "price_per_unit": "30.00",
                                    "label": "Peak",
                                },
                            ],
                        },
                        {"specific_date": "2026-12-24", "time_slots": []},
                    ],
                    "unavailable_periods": [
                        {
                            "start_datetime": "2026-12-01T08:00:00+01:00",
                            "end_datetime": "2026-12-01T12:00:00+01:00",
                            "reason": "maintenance",
                        }
                    ],
                },
                {
                    "name": "Court 2",
                    "capacity": 2,
                    "base_price": "18.50",
                    "currency": "EUR",
                    "price_unit": "person_hour",
                    "booking_interval_minutes": 60,
                    "min_booking_duration_minutes": 60,
                    "prevent_unbookable_gaps": False,
                    "schedules": [],
                },
            ],
        }
    ],
    "users": [
        {
            "email": "Anna@Example.com",
            "first_name": "Anna",
            "last_name": "Schmidt",
            "language": "en",
            "password": "a-long-passphrase",
            "token": "user-token-anna",
        }
    ],
    "clients": [
        {
            "name": "PartnerApp",
            "commission_percent": "10.00",
            "contact_email": "finance@partner.example",
            "iban": "DE89 3704 0044 0532 0130 00",
            "token": "client-token-partner",
        }
    ],
}

TOML = """
[[venues]]
slug = "center-court"
name = "Center Court Club"
venue_type = "tennis_club"
street_address = "Hauptstrasse 1"
city = "Berlin"
postal_code = "10115"
country = "DE"
latitude = "52.520008"
longitude = "13.404954"
timezone = "Europe/Berlin"
operator_email = "ops@center-court.example"

[[venues.resources]]
name = "Court 1"
capacity = 4
base_price = "20.00"
currency = "EUR"
price_unit = "hour"
booking_interval_minutes = 30
min_booking_duration_minutes = 60
max_booking_duration_minutes = 180
prevent_unbookable_gaps = true
activity_types = ["tennis"]
attributes = { surface = "clay" }
dynamic_pricing = { enabled = true, min_price = "15.00", max_price = "45.00" }

[[venues.resources.schedules]]
day_of_week = 1
priority = 0
time_slots = [
  { start_time = 08:00:00, end_time = "17:00:00", price_per_unit = "20.00" },
  { start_time = "17:00:00", end_time = "00:00:00", price_per_unit = "30.00", label = "Peak" },
]

[[venues.resources.schedules]]
specific_date = 2026-12-24
time_slots = []

[[venues.resources.unavailable_periods]]
start_datetime = 2026-12-01T08:00:00+01:00
end_datetime = "2026-12-01T12:00:00+01:00"
reason = "maintenance"

[[venues.resources]]
name = "Court 2"
capacity = 2
base_price = "18.50"
currency = "EUR"
price_unit = "person_hour"
booking_interval_minutes = 60
min_booking_duration_minutes = 60
prevent_unbookable_gaps = false
schedules = []

[[users]]
email = "Anna@Example.com"
first_name = "Anna"
last_name = "Schmidt"
language = "en"
password = "a-long-passphrase"
token = "user-token-anna"

[[clients]]
name = "PartnerApp"
commission_percent = "10.00"
contact_email = "finance@partner.example"
iban = "DE89 3704 0044 0532 0130 00"
token = "client-token-partner"
"""


def catalog(change: Callable[[dict[str, Any]], object] | None = None) -> dict[str, Any]:
    """A deep copy of BASE, changed by ``change``."""
    data = copy.deepcopy(BASE)
    if change is not None:
        change(data)
    return data


def court(data: dict[str, Any], index: int = 0) -> dict[str, Any]:
    resource: dict[str, Any] = data["venues"][0]["resources"][index]
    return resource


def slot(data: dict[str, Any], index: int = 0) -> dict[str, Any]:
    time_slot: dict[str, Any] = court(data)["schedules"][0]["time_slots"][index]
    return time_slot


def test_the_base_catalog_is_valid_with_typed_values() -> None:
    spec = validate_catalog(catalog())

    venue = spec.venues[0]
    assert venue.latitude == Decimal("52.520008")
    court1, court2 = venue.resources
    assert court1.price_unit is PriceUnit.HOUR
    assert court1.dynamic_pricing.max_price == Decimal("45.00")
    assert court1.schedules[0].time_slots[1].end_time == time(0)
    assert court1.schedules[0].time_slots[0].slot_duration_minutes == 30  # the resource's interval
    assert court1.schedules[0].time_slots[0].pricing_unit is PriceUnit.HOUR
    assert court1.schedules[1].specific_date == date(2026, 12, 24)
    assert court1.unavailable_periods[0].start_datetime.astimezone(UTC) == datetime(
        2026, 12, 1, 7, tzinfo=UTC
    )
    assert court2.max_booking_duration_minutes is None
    assert (court2.min_advance_booking_minutes, court2.max_advance_booking_days) == (0, 90)
    assert court2.is_active
    assert court2.is_bookable
    assert spec.users[0].email == "anna@example.com"
    assert spec.users[0].language is Language.EN
    assert spec.clients[0].iban == "DE89370400440532013000"


def test_the_demo_catalog_is_valid() -> None:
    spec = read_catalog(DEMO_CATALOG)

    resources = [r for v in spec.venues for r in v.resources]
    assert len(resources) == 3
    assert {v.timezone for v in spec.venues} == {"Europe/Berlin"}
    assert any(r.dynamic_pricing.enabled for r in resources)
    assert any(r.prevent_unbookable_gaps for r in resources)
    for resource in resources:
        weekly = [s for s in resource.schedules if s.day_of_week is not None]
        assert sorted(s.day_of_week for s in weekly) == [1, 2, 3, 4, 5, 6, 7]
        for schedule in weekly:
            peak = [s for s in schedule.time_slots if s.label == "Peak"]
            assert [(p.start_time, p.end_time) for p in peak] == [(time(17), time(22))]
            assert min(s.start_time for s in schedule.time_slots) == time(8)
    assert [(u.email, u.token) for u in spec.users] == [("anna@example.com", "demo-user-token")]
    assert [(c.name, c.commission_percent, c.token) for c in spec.clients] == [
        ("PartnerApp", Decimal("10.00"), "demo-client-token")
    ]


def test_yaml_json_and_toml_mean_the_same(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(catalog(), sort_keys=False), encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps(catalog()), encoding="utf-8")
    (tmp_path / "c.toml").write_text(TOML, encoding="utf-8")

    from_yaml = read_catalog(tmp_path / "c.yaml")

    assert from_yaml == validate_catalog(catalog())
    assert read_catalog(tmp_path / "c.json") == from_yaml
    assert read_catalog(tmp_path / "c.toml") == from_yaml


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """A change that sets the dotted ``path`` (list indexes as numbers) to ``value``."""

    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[last] = value

    return change


def _delete(path: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        del node[last]

    return change


R0 = "venues.0.resources.0"
R1 = "venues.0.resources.1"
P0 = "venues[0].resources[0]"
P1 = "venues[0].resources[1]"
VENUE_KEYS = [
    "slug",
    "name",
    "description",
    "short_description",
    "venue_type",
    "street_address",
    "city",
    "postal_code",
    "country",
    "latitude",
    "longitude",
    "timezone",
    "operator_email",
    "provider_account_id",
    "is_active",
    "is_published",
    "resources",
]


CASES: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (_set(f"{R1}.booking_interval_minutes", 0), f"{P1}.booking_interval_minutes: must be a positive integer"),
    (
        _set(f"{R1}.booking_interval_minutes", "30"),
        f"{P1}.booking_interval_minutes: must be a positive integer",
    ),
    (_set(f"{R0}.capacity", True), f"{P0}.capacity: must be a positive integer"),
    (_delete("venues.0.slug"), "venues[0].slug: is required"),
    (
        _set("venues.0.slug", "Center Court"),
        "venues[0].slug: must be a slug of lower-case letters, digits and dashes, such as center-court",
    ),
    (
        _set("venues.0.timezone", "Europe/Atlantis"),
        "venues[0].timezone: unknown IANA timezone 'Europe/Atlantis'",
    ),
    (
        _set("venues.0.country", "Germany"),
        "venues[0].country: must be a two-letter ISO country code such as DE",
    ),
    (
        _set("venues.0.latitude", 52.52),
        'venues[0].latitude: must be a decimal string from -90 to 90 such as "52.520008"',
    ),
    (_set("venues.0.operator_email", "ops"), "venues[0].operator_email: must be an email address"),
    (
        _set("venues.0.capcity", 3),
        "venues[0].capcity: unknown key (expected one of: " + ", ".join(VENUE_KEYS) + ")",
    ),
    (
        _set(f"{R0}.base_price", "20.001"),
        f"{P0}.base_price: must have at most 2 decimal places: the minor unit of EUR (ISO 4217)",
    ),
    (_set(f"{R0}.base_price", "-1.00"), f"{P0}.base_price: must be a decimal string that is not negative"),
    (_set(f"{R0}.currency", "eur"), f"{P0}.currency: must be a three-letter currency code such as EUR"),
    (_set(f"{R0}.price_unit", "day"), f"{P0}.price_unit: must be one of hour, booking, person_hour"),
    (
        _set(f"{R0}.max_booking_duration_minutes", 30),
        f"{P0}.max_booking_duration_minutes: must not be less than min_booking_duration_minutes (60)",
    ),
    (_set(f"{R0}.prevent_unbookable_gaps", "yes"), f"{P0}.prevent_unbookable_gaps: must be true or false"),
    (
        _set(f"{R0}.dynamic_pricing", {"enabled": True, "min_price": "15.00"}),
        f"{P0}.dynamic_pricing.max_price: is required when dynamic pricing is enabled",
    ),
    (
        _set(f"{R0}.schedules.0.day_of_week", 8),
        f"{P0}.schedules[0].day_of_week: must be an integer from 1 to 7",
    ),
    (
        _set(f"{R0}.schedules.1.day_of_week", 3),
        f"{P0}.schedules[1].day_of_week: give exactly one of day_of_week (1 = Monday ... 7 = Sunday) "
        "or specific_date",
    ),
    (
        _set(f"{R0}.schedules.1.specific_date", "2026-02-30"),
        f'{P0}.schedules[1].specific_date: must be a date "YYYY-MM-DD"',
    ),
    (
        _set(f"{R0}.schedules.0.time_slots.1.start_time", "5pm"),
        f'{P0}.schedules[0].time_slots[1].start_time: must be a time "HH:MM:SS"',
    ),
    (
        _set(f"{R0}.schedules.0.time_slots.1.start_time", 61200),
        f'{P0}.schedules[0].time_slots[1].start_time: must be a time "HH:MM:SS" in quotes',
    ),
    (
        _set(f"{R0}.schedules.0.time_slots.0.end_time", "07:00:00"),
        f"{P0}.schedules[0].time_slots[0].end_time: must be after start_time (08:00:00); "
        "00:00:00 means midnight",
    ),
    (
        _set(f"{R0}.schedules.0.time_slots.1.start_time", "16:00:00"),
        f"{P0}.schedules[0].time_slots[1].start_time: overlaps another time slot",
    ),
    (
        _delete(f"{R0}.schedules.0.time_slots.0.price_per_unit"),
        f"{P0}.schedules[0].time_slots[0].price_per_unit: is required",
    ),
    (
        _set(f"{R0}.unavailable_periods.0.end_datetime", "2026-12-01T12:00:00"),
        f"{P0}.unavailable_periods[0].end_datetime: must be an ISO 8601 datetime with offset "
        'such as "2026-12-01T08:00:00+01:00"',
    ),
    (
        _set(f"{R0}.unavailable_periods.0.end_datetime", "2026-12-01T07:00:00+01:00"),
        f"{P0}.unavailable_periods[0].end_datetime: must be after start_datetime",
    ),
    (_set(f"{R1}.name", "Court 1"), f"{P1}.name: 'Court 1' appears twice (also {P0})"),
    (_set(f"{R0}.schedules", {"day_of_week": 1}), f"{P0}.schedules: must be a list"),
    (_set("users.0.language", "fr"), "users[0].language: must be one of de, en"),
    (_set("users.0.email", "anna"), "users[0].email: must be an email address"),
    (_set("users.0.password", "short"), "users[0].password: must be a string of at least 10 characters"),
    (
        _set("clients.0.commission_percent", "150.00"),
        "clients[0].commission_percent: must be a decimal string from 0 to 100",
    ),
    (
        _set("clients.0.iban", "DE00370400440532013000"),
        "clients[0].iban: is not a valid IBAN (check digits do not match)",
    ),
    (_set("clients.0.token", "user-token-anna"), "clients[0].token: the same token is given to users[0]"),
    (_set("venues", {"slug": "x"}), "venues: must be a list"),
    (
        _set("venues.0.slug", None),
        "venues[0].slug: must be a slug of lower-case letters, digits and dashes, such as center-court",
    ),
    (_set(f"{R0}.name", "   "), f"{P0}.name: must be a non-empty string of at most 200 characters"),
    (_set(f"{R0}.activity_types", ["tennis", "tennis"]), f"{P0}.activity_types: must not repeat a name"),
    (_set(f"{R0}.attributes", {1: "x"}), f"{P0}.attributes: must be a mapping with string keys"),
    (
        _set(f"{R0}.attributes", {"opened": date(2020, 1, 1)}),
        f"{P0}.attributes: must hold only JSON values (strings, numbers, booleans, lists, mappings)",
    ),
    (
        _set(f"{R0}.schedules.0.time_slots.0.start_time", "08:00:00.5"),
        f'{P0}.schedules[0].time_slots[0].start_time: must be a time "HH:MM:SS"',
    ),
    (
        _set(f"{R0}.schedules.0.time_slots.0.start_time", "08:00:00+01:00"),
        f'{P0}.schedules[0].time_slots[0].start_time: must be a time "HH:MM:SS"',
    ),
    (_set("clients.0.iban", "DE89"), "clients[0].iban: must be an IBAN such as DE89370400440532013000"),
    (_set("extra", 1), "extra: unknown key (expected one of: venues, users, clients, staff)"),
]


@pytest.mark.parametrize(("change", "message"), CASES)
def test_a_bad_catalog_names_the_first_bad_key(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(CatalogError) as excinfo:
        validate_catalog(catalog(change))

    assert str(excinfo.value) == message


def priced_in(currency: str, price: str) -> Callable[[dict[str, Any]], None]:
    """A change that prices the first resource in ``currency``, every price ``price``."""

    def change(data: dict[str, Any]) -> None:
        resource = court(data)
        resource.update(currency=currency, base_price=price, dynamic_pricing={"enabled": False})
        for time_slot in resource["schedules"][0]["time_slots"]:
            time_slot["price_per_unit"] = price

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            priced_in("JPY", "20.50"),
            f"{P0}.base_price: must be a whole amount: JPY has no decimals (ISO 4217)",
        ),
        (priced_in("XYZ", "20.50"), f"{P0}.currency: 'XYZ' is not an ISO 4217 currency code"),
        (priced_in("XAU", "20"), f"{P0}.currency: XAU has no minor unit in ISO 4217 and cannot be charged"),
        (
            priced_in("KWD", "20.5005"),
            f"{P0}.base_price: must have at most 3 decimal places: the minor unit of KWD (ISO 4217)",
        ),
        (
            priced_in("KWD", "20.505"),
            f"{P0}.base_price: must be a multiple of 0.010 KWD, the smallest amount the payment provider "
            "charges in it",
        ),
        (
            priced_in("MGA", "20.50"),
            f"{P0}.base_price: must be a multiple of 1.00 MGA, the smallest amount the payment provider "
            "charges in it",
        ),
        (
            _set(f"{R0}.schedules.0.time_slots.1.price_per_unit", "30.005"),
            f"{P0}.schedules[0].time_slots[1].price_per_unit: must have at most 2 decimal places: the minor "
            "unit of EUR (ISO 4217)",
        ),
        (
            _set(f"{R0}.dynamic_pricing.max_price", "45.001"),
            f"{P0}.dynamic_pricing.max_price: must have at most 2 decimal places: the minor unit of EUR "
            "(ISO 4217)",
        ),
    ],
)
def test_a_price_its_currency_or_the_provider_cannot_hold_is_refused_at_its_key(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(CatalogError) as excinfo:
        validate_catalog(catalog(change))

    assert str(excinfo.value) == message


@pytest.mark.parametrize(
    ("currency", "price"), [("JPY", "20"), ("EUR", "20.50"), ("KWD", "20.500"), ("ISK", "20")]
)
def test_a_price_in_the_currencys_own_decimals_is_accepted(currency: str, price: str) -> None:
    spec = validate_catalog(catalog(priced_in(currency, price)))

    resource = spec.venues[0].resources[0]
    assert (resource.currency, resource.base_price) == (currency, Decimal(price))
    assert resource.schedules[0].time_slots[0].price_per_unit == Decimal(price)


def test_the_first_bad_key_in_document_order_is_reported() -> None:
    def two_errors(data: dict[str, Any]) -> None:
        court(data, 1)["capacity"] = 0
        data["users"][0]["language"] = "fr"

    with pytest.raises(CatalogError, match=r"^venues\[0\]\.resources\[1\]\.capacity: "):
        validate_catalog(catalog(two_errors))


def test_a_null_optional_key_counts_as_absent() -> None:
    def nulls(data: dict[str, Any]) -> None:
        court(data, 1).update(
            description=None, is_active=None, unavailable_periods=None, dynamic_pricing=None
        )
        data["clients"] = None

    spec = validate_catalog(catalog(nulls))

    court2 = spec.venues[0].resources[1]
    assert (court2.description, court2.is_active, court2.unavailable_periods) == ("", True, ())
    assert not court2.dynamic_pricing.enabled
    assert spec.clients == ()


def test_text_is_trimmed_and_emails_are_lower_case() -> None:
    def spaced(data: dict[str, Any]) -> None:
        court(data)["name"] = "  Court 1\n"
        court(data)["description"] = "Clay court\n"
        data["users"][0]["email"] = " Anna@Example.COM "

    spec = validate_catalog(catalog(spaced))

    assert spec == validate_catalog(catalog(lambda d: court(d).update(description="Clay court")))
    assert spec.users[0].email == "anna@example.com"


def test_a_time_slot_keeps_its_own_pricing_unit_and_duration() -> None:
    spec = validate_catalog(catalog(_set(f"{R0}.schedules.0.time_slots.0.pricing_unit", "booking")))
    first, second = spec.venues[0].resources[0].schedules[0].time_slots

    assert (first.pricing_unit, second.pricing_unit) == (PriceUnit.BOOKING, PriceUnit.HOUR)

    spec = validate_catalog(catalog(_set(f"{R0}.schedules.0.time_slots.0.slot_duration_minutes", 90)))

    assert spec.venues[0].resources[0].schedules[0].time_slots[0].slot_duration_minutes == 90


def test_top_level_extension_keys_are_ignored() -> None:
    assert validate_catalog(catalog(_set("x-anchors", [1, 2]))) == validate_catalog(catalog())


def test_an_empty_file_is_an_empty_catalog(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("", encoding="utf-8")

    spec = read_catalog(path)

    assert (spec.venues, spec.users, spec.clients) == ((), (), ())


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("c.yaml", "venues: [\n", "invalid YAML at line"),
        ("c.json", "{", "invalid JSON at line 1, column 2"),
        ("c.toml", "venues = ", "invalid TOML"),
        ("c.txt", "", "unknown catalog format '.txt'; use .yaml, .yml, .json or .toml"),
        ("c.yaml", "- 1\n", "catalog: must be a mapping"),
    ],
)
def test_unreadable_files_are_refused_in_one_line(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")

    with pytest.raises(CatalogError) as excinfo:
        read_catalog(path)

    assert message in str(excinfo.value)
    assert "\n" not in str(excinfo.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match=r"missing\.yaml: no such file$"):
        read_catalog(tmp_path / "missing.yaml")


def test_an_unquoted_yaml_time_gets_a_hint(tmp_path: Path) -> None:
    text = yaml.safe_dump(catalog(), sort_keys=False).replace("'17:00:00'", "17:00:00")
    path = tmp_path / "c.yml"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(
        CatalogError, match=r'time_slots\[0\]\.end_time: must be a time "HH:MM:SS" in quotes$'
    ):
        read_catalog(path)


# --------------------------------------------------------------------------- control characters
# CONTRACT 4.8: one-line strings hold no control character (C0, DEL, C1); a description may break
# lines. Once "Partner\x01 GmbH" was loaded, and crashed the commission payout later.
CONTROL_CASES = [
    ("clients.0.name", "Partner\x01 GmbH", "clients[0].name", "U+0001"),
    ("clients.0.token", "client-\x1btoken-partner", "clients[0].token", "U+001B"),
    ("users.0.first_name", "An\nna", "users[0].first_name", "U+000A"),
    ("users.0.last_name", "Schmidt\x7f", "users[0].last_name", "U+007F"),
    ("venues.0.name", "Center\x85Court", "venues[0].name", "U+0085"),
    ("venues.0.city", "Ber\rlin", "venues[0].city", "U+000D"),
    ("venues.0.short_description", "Clay\ncourts", "venues[0].short_description", "U+000A"),
    ("venues.0.provider_account_id", "acct\t123", "venues[0].provider_account_id", "U+0009"),
    ("venues.0.description", "Clay\tcourts", "venues[0].description", "U+0009"),
    (f"{R0}.name", "Court\x0b1", f"{P0}.name", "U+000B"),
    (f"{R0}.description", "Clay\x0ccourt", f"{P0}.description", "U+000C"),
    (f"{R0}.activity_types", ["tennis", "pa\x9fdel"], f"{P0}.activity_types[1]", "U+009F"),
    (f"{R0}.schedules.0.time_slots.0.label", "Pe\x07ak", f"{P0}.schedules[0].time_slots[0].label", "U+0007"),
]


def test_an_email_with_a_control_character_is_no_email_address() -> None:
    # the address's own pattern refuses it before the character rule is asked
    with pytest.raises(CatalogError, match=r"^clients\[0\]\.contact_email: must be an email address"):
        validate_catalog(catalog(_set("clients.0.contact_email", "fin\x00ance@partner.example")))


@pytest.mark.parametrize(("path", "value", "key", "character"), CONTROL_CASES)
def test_control_characters_are_refused_with_the_path_of_the_key(
    path: str, value: object, key: str, character: str
) -> None:
    with pytest.raises(CatalogError) as excinfo:
        validate_catalog(catalog(_set(path, value)))

    assert str(excinfo.value) == f"{key}: must not contain control characters (found {character})"


def test_descriptions_may_break_lines_and_one_line_text_may_end_in_layout() -> None:
    def multi_line(data: dict[str, Any]) -> None:
        data["venues"][0]["description"] = "Clay courts\nand a clubhouse\r\nsince 1920"
        court(data)["description"] = "Clay court\n\nfloodlit\n"
        data["clients"][0]["name"] = "Partner GmbH\n"  # a YAML block scalar's last line break
        data["venues"][0]["name"] = "Café Court ü ß 東京"

    spec = validate_catalog(catalog(multi_line))

    assert spec.venues[0].description == "Clay courts\nand a clubhouse\r\nsince 1920"
    assert spec.clients[0].name == "Partner GmbH"
    assert spec.venues[0].name == "Café Court ü ß 東京"
