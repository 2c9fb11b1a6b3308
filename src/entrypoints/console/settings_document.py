"""The settings page's values written into the venue's catalog document, and a refusal of it placed back
on the form.

The page checks none of the values: they are only turned from the form's writing into the document's
(``17:30`` into ``17:30:00``, ``22,50`` into ``22.50``, ``60`` into an integer), and the whole venue goes
to the catalog's use case, which refuses a bad key by its path; :func:`locate` turns that path back into
the form's field. The keys of a window the page does not show (its capacity, its pricing unit) stay
with its row, and so does every schedule the page does not edit.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from entrypoints.console.settings_form import (
    BOOKABLE,
    COLUMNS,
    FIELD,
    GAPS,
    RULES,
    WEEKDAYS,
    Settings,
    Window,
    field,
    resource_in,
    standing_schedules,
)

#: The one rule that may be left empty: no longest booking.
_NO_LIMIT = "max_booking_duration_minutes"


@dataclass(frozen=True, slots=True)
class Problem:
    """The use case's refusal, placed on the form: the field (None: not one of the page's) and why."""

    message: str
    field: str | None = None
    day: int | None = None
    row: int | None = None
    column: str | None = None


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
    if found := FIELD.match(name):
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
