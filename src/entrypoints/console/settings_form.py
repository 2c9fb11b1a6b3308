"""The settings page's values (CONTRACT 8): a resource's weekly windows and booking rules, read from its
part of the venue's catalog document (CONTRACT 3) or from a posted form.

A weekday's windows are its standing schedule: the active one without a validity range, the highest
priority first. Date overrides, seasons and inactive schedules are not on the page
(``settings_document`` keeps them as they are).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from booking_core.errors import NotFound

#: The booking rules on the page, by their key in the catalog file (plus ``prevent_unbookable_gaps``).
RULES = (
    "base_price",
    "booking_interval_minutes",
    "min_booking_duration_minutes",
    "max_booking_duration_minutes",
    "min_advance_booking_minutes",
    "max_advance_booking_days",
    "cancellation_deadline_hours",
)
GAPS = "prevent_unbookable_gaps"
WEEKDAYS = tuple(range(1, 8))  # 1 = Monday ... 7 = Sunday, as the catalog counts
#: A window's columns on the page and their keys in a time slot.
COLUMNS = {"start": "start_time", "end": "end_time", "price": "price_per_unit", "label": "label"}
BOOKABLE = "bookable"
FIELD = re.compile(r"^d(?P<day>[1-7])w(?P<row>\d{1,2})_(?P<column>\w+)$")


@dataclass(frozen=True, slots=True)
class Window:
    """One row of a weekday: the values as the form writes them."""

    start: str = ""
    end: str = ""
    price: str = ""
    label: str = ""
    bookable: bool = True

    @property
    def blank(self) -> bool:
        """Nothing typed: the row is the empty one offered for a new window, or a window taken away."""
        return not (self.start or self.end or self.price or self.label)


@dataclass(frozen=True, slots=True)
class Settings:
    """The page's values: the rules (``prevent_unbookable_gaps`` apart) and each weekday's windows."""

    rules: dict[str, str]
    gaps: bool
    days: dict[int, list[Window]]


def field(day: int, row: int, column: str) -> str:
    """The form's name (and the input's id) of a window's column."""
    return f"d{day}w{row}_{column}"


def resource_in(document: Mapping[str, Any], name: str) -> tuple[int, Mapping[str, Any]]:
    """The position and the entry of the resource called ``name`` in the venue's document."""
    for index, resource in enumerate(document.get("resources", [])):
        if resource.get("name") == name:
            return index, resource
    raise NotFound("Resource not found.")


def standing_schedules(resource: Mapping[str, Any]) -> dict[int, int]:
    """Each weekday's standing schedule, by its position in the resource's ``schedules``."""
    found: dict[int, int] = {}
    for index, schedule in enumerate(resource.get("schedules", [])):
        day = schedule.get("day_of_week")
        undated = schedule.get("start_date") is None and schedule.get("end_date") is None
        if day is None or not undated or schedule.get("is_active") is False:
            continue
        held = found.get(day)
        if held is None or schedule.get("priority", 0) > resource["schedules"][held].get("priority", 0):
            found[day] = index
    return found


def kept_schedules(resource: Mapping[str, Any]) -> int:
    """How many schedules the page leaves as they are (date overrides, seasons, inactive ones)."""
    return len(resource.get("schedules", [])) - len(standing_schedules(resource))


def stored_settings(resource: Mapping[str, Any]) -> Settings:
    """The page's values for the resource as stored, each weekday with one empty row to add a window."""
    schedules = resource.get("schedules", [])
    standing = standing_schedules(resource)
    days: dict[int, list[Window]] = {}
    for day in WEEKDAYS:
        slots = schedules[standing[day]]["time_slots"] if day in standing else []
        days[day] = [*(_window(slot) for slot in slots), Window()]
    rules = {key: "" if resource.get(key) is None else str(resource[key]) for key in RULES}
    return Settings(rules=rules, gaps=bool(resource.get(GAPS)), days=days)


def written_as(settings: Settings, decimal: Callable[[str], str]) -> Settings:
    """``settings`` with their prices written by ``decimal`` (the staff member's decimal comma)."""
    days = {
        day: [replace(w, price=decimal(w.price)) for w in windows] for day, windows in settings.days.items()
    }
    rules = {**settings.rules, "base_price": decimal(settings.rules.get("base_price", ""))}
    return replace(settings, rules=rules, days=days)


def _window(slot: Mapping[str, Any]) -> Window:
    return Window(
        start=_short_time(str(slot["start_time"])),
        end=_short_time(str(slot["end_time"])),
        price=str(slot["price_per_unit"]),
        label=str(slot.get("label") or ""),
        bookable=slot.get("is_bookable", True) is not False,
    )


def posted_settings(form: Mapping[str, Any]) -> Settings:
    """The page's values as posted (every row, blank ones included, in the order of the page)."""
    rows: dict[tuple[int, int], dict[str, str]] = {}
    for name, value in form.items():
        if found := FIELD.match(name):
            cell = rows.setdefault((int(found["day"]), int(found["row"])), {})
            cell[found["column"]] = value if isinstance(value, str) else value[0]
    days: dict[int, list[Window]] = {day: [] for day in WEEKDAYS}
    for (day, _row), cell in sorted(rows.items()):
        days[day].append(
            Window(
                start=cell.get("start", "").strip(),
                end=cell.get("end", "").strip(),
                price=cell.get("price", "").strip(),
                label=cell.get("label", "").strip(),
                bookable=cell.get(BOOKABLE) == "true",
            )
        )
    rules = {key: str(form.get(key, "")).strip() for key in RULES}
    return Settings(rules=rules, gaps=form.get(GAPS) == "true", days=days)


def _short_time(stored: str) -> str:
    """The catalog's ``17:30:00`` as a time field shows it (``17:30``)."""
    return stored[:5] if re.fullmatch(r"\d{2}:\d{2}:00", stored) else stored
