"""A resource's part of the venue's catalog document (CONTRACT 3) as the settings page's form, and back.

The page edits what a manager changes from week to week: each weekday's opening windows with their
prices, and the resource's booking rules. It checks none of it: the posted values are only turned from
the form's writing into the document's (``17:30`` into ``17:30:00``, ``22,50`` into ``22.50``, ``60``
into an integer) and the whole venue goes to the catalog use case, which refuses a bad key by its path;
:func:`locate` turns that path back into the form's field.

A weekday's windows are its standing schedule: the active one without a validity range, the highest
priority first. Date overrides, seasons and inactive schedules are kept as they are, and so are the
keys of a window the page does not show (its capacity, its pricing unit).
"""

from __future__ import annotations

import copy
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
_FIELD = re.compile(r"^d(?P<day>[1-7])w(?P<row>\d{1,2})_(?P<column>\w+)$")
#: The one rule that may be left empty: no longest booking.
_NO_LIMIT = "max_booking_duration_minutes"


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


@dataclass(frozen=True, slots=True)
class Problem:
    """The use case's refusal, placed on the form: the field (None: not one of the page's) and why."""

    message: str
    field: str | None = None
    day: int | None = None
    row: int | None = None
    column: str | None = None


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
        if found := _FIELD.match(name):
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


def with_settings(
    document: Mapping[str, Any], name: str, settings: Settings
) -> tuple[dict[str, Any], dict[str, str]]:
    """The venue's document with ``settings`` in the resource called ``name``, and the form's field of
    each path the catalog's check may name (``resources[1].schedules[0].time_slots[2].start_time``)."""
    changed = copy.deepcopy(dict(document))
    index, resource = resource_in(changed, name)
    assert isinstance(resource, dict)  # noqa: S101 - a deep copy of plain JSON values
    prefix = f"resources[{index}]"
    fields = {f"{prefix}.{key}": key for key in (*RULES, GAPS)}
    old_interval = resource.get("booking_interval_minutes")
    for key in RULES:
        raw = settings.rules.get(key, "")
        resource[key] = _price(raw) if key == "base_price" else _integer(raw, nullable=key == _NO_LIMIT)
    resource[GAPS] = settings.gaps
    schedules: list[dict[str, Any]] = resource.setdefault("schedules", [])
    standing = standing_schedules(resource)
    for day in WEEKDAYS:
        rows = [(row, w) for row, w in enumerate(settings.days.get(day, [])) if not w.blank]
        if day not in standing:
            if not rows:
                continue  # closed that weekday, and still closed
            schedules.append({"day_of_week": day, "time_slots": []})
            standing[day] = len(schedules) - 1
        schedule = schedules[standing[day]]
        before = schedule.get("time_slots", [])
        slots = []
        for slot, (row, window) in enumerate(rows):
            kept = dict(before[row]) if row < len(before) else {}
            if kept.get("slot_duration_minutes") == old_interval:
                kept.pop("slot_duration_minutes")  # it followed the resource's interval: let it go on so
            slots.append({**kept, **_slot(window)})
            where = f"{prefix}.schedules[{standing[day]}].time_slots[{slot}]"
            fields.update({f"{where}.{key}": field(day, row, column) for column, key in COLUMNS.items()})
            fields[f"{where}.is_bookable"] = field(day, row, BOOKABLE)
        schedule["time_slots"] = slots
    return changed, fields


def _slot(window: Window) -> dict[str, Any]:
    return {
        "start_time": _long_time(window.start),
        "end_time": _long_time(window.end),
        "price_per_unit": _price(window.price),
        "label": window.label,
        "is_bookable": window.bookable,
    }


def locate(message: str, fields: Mapping[str, str]) -> Problem:
    """The use case's ``path: message`` placed on the field of the form the path names, if any."""
    path, colon, why = message.partition(": ")
    name = fields.get(path) if colon else None
    if name is None:
        return Problem(message=message)
    if found := _FIELD.match(name):
        day, row, column = int(found["day"]), int(found["row"]), found["column"]
        return Problem(message=why, field=name, day=day, row=row, column=column)
    return Problem(message=why, field=name)


def _integer(raw: str, *, nullable: bool) -> int | str | None:
    """An integer typed as digits; anything else as typed, for the catalog's check to name."""
    if nullable and not raw:
        return None  # the longest booking left empty: no limit
    return int(raw) if raw.isdigit() else raw


def _price(raw: str) -> str:
    """A price as the catalog writes it: a decimal comma (``22,50``) becomes a point."""
    return raw.replace(",", ".") if re.fullmatch(r"\d+,\d+", raw) else raw


def _long_time(raw: str) -> str:
    """A time field's ``17:30`` as the catalog's ``17:30:00``."""
    return f"{raw}:00" if re.fullmatch(r"\d{2}:\d{2}", raw) else raw


def _short_time(stored: str) -> str:
    """The catalog's ``17:30:00`` as a time field shows it (``17:30``)."""
    return stored[:5] if re.fullmatch(r"\d{2}:\d{2}:00", stored) else stored
