"""The settings page's form and the catalog document (``entrypoints.console.settings_form`` and
``settings_document``): only the
resource's weekly windows and booking rules change, written as the catalog writes them; everything else
of the document stays; a refusal's path is placed back on its field."""

from __future__ import annotations

import copy
from typing import Any

from entrypoints.console.settings_document import locate, with_settings
from entrypoints.console.settings_form import kept_schedules, posted_settings, stored_settings


def _slot(start: str, end: str, price: str, **more: Any) -> dict[str, Any]:
    return {"start_time": start, "end_time": end, "price_per_unit": price, "label": "", **more}


def _document() -> dict[str, Any]:
    court = {
        "name": "Court 1",
        "capacity": 4,
        "base_price": "20.00",
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 180,
        "prevent_unbookable_gaps": True,
        "min_advance_booking_minutes": 0,
        "max_advance_booking_days": 90,
        "cancellation_deadline_hours": 0,
        "schedules": [
            {
                "day_of_week": 1,
                "priority": 0,
                "start_date": None,
                "end_date": None,
                "is_active": True,
                "time_slots": [
                    _slot("08:00:00", "17:00:00", "20.00", slot_duration_minutes=30, capacity_override=2),
                    _slot("17:00:00", "22:00:00", "30.00", slot_duration_minutes=60, label="Peak"),
                ],
            },
            {"specific_date": "2026-12-24", "time_slots": []},
            {"day_of_week": 1, "start_date": "2026-07-01", "end_date": "2026-08-31", "time_slots": []},
        ],
    }
    return {"slug": "center-court", "resources": [{"name": "Annex", "schedules": []}, court]}


def _form(document: dict[str, Any], **changes: str) -> dict[str, str]:
    """The form as the page shows the stored values (times and rules as its fields write them)."""
    settings = stored_settings(document["resources"][1])
    form = dict(settings.rules)
    form["prevent_unbookable_gaps"] = "true" if settings.gaps else ""
    for day, windows in settings.days.items():
        for row, w in enumerate(windows):
            prefix = f"d{day}w{row}_"
            form |= {f"{prefix}start": w.start, f"{prefix}end": w.end, f"{prefix}price": w.price}
            form |= {f"{prefix}label": w.label, f"{prefix}bookable": "true" if w.bookable else ""}
    return form | changes


def test_the_page_shows_the_standing_windows_with_an_empty_row_and_counts_the_other_schedules() -> None:
    court = _document()["resources"][1]
    settings = stored_settings(court)

    assert [(w.start, w.end, w.price, w.label) for w in settings.days[1]] == [
        ("08:00", "17:00", "20.00", ""),
        ("17:00", "22:00", "30.00", "Peak"),
        ("", "", "", ""),
    ]
    assert [w.blank for w in settings.days[2]] == [True]  # closed: only the row for a new window
    assert settings.rules["max_booking_duration_minutes"] == "180"
    assert kept_schedules(court) == 2  # the date override and the summer's Mondays


def test_a_posted_form_changes_the_resources_windows_and_rules_and_nothing_else() -> None:
    document = _document()
    before = copy.deepcopy(document)
    form = _form(
        document,
        d1w0_start="",
        d1w0_end="",
        d1w0_price="",
        d1w1_price="22,50",
        d3w0_start="09:00",
        d3w0_end="12:00",
        d3w0_price="18",
        booking_interval_minutes="15",
        max_booking_duration_minutes="",
        prevent_unbookable_gaps="",
    )

    changed, _fields = with_settings(document, "Court 1", posted_settings(form))

    assert document == before  # the caller's document is left alone
    court = changed["resources"][1]
    monday, christmas, summer, wednesday = court["schedules"]
    # the evening keeps its own interval and label; the first window, taken away, is gone
    assert monday["time_slots"] == [
        _slot("17:00:00", "22:00:00", "22.50", slot_duration_minutes=60, label="Peak", is_bookable=True),
    ]
    new_window = _slot("09:00:00", "12:00:00", "18", is_bookable=True)
    assert wednesday == {"day_of_week": 3, "time_slots": [new_window]}
    assert (christmas, summer) == tuple(before["resources"][1]["schedules"][1:])
    assert court["booking_interval_minutes"] == 15
    assert court["max_booking_duration_minutes"] is None  # empty: no limit
    assert court["prevent_unbookable_gaps"] is False
    assert court["capacity"] == 4
    assert changed["resources"][0] == before["resources"][0]


def test_a_window_that_followed_the_resources_interval_follows_the_new_one() -> None:
    document = _document()
    form = _form(document, booking_interval_minutes="15")

    changed, _fields = with_settings(document, "Court 1", posted_settings(form))

    morning, evening = changed["resources"][1]["schedules"][0]["time_slots"]
    assert "slot_duration_minutes" not in morning  # it was the resource's 30: now the resource's 15
    assert evening["slot_duration_minutes"] == 60  # its own
    assert morning["capacity_override"] == 2


def test_what_is_not_a_number_goes_to_the_catalogs_check_as_typed() -> None:
    form = _form(_document(), min_booking_duration_minutes="ten", d1w0_end="25:00")

    changed, _fields = with_settings(_document(), "Court 1", posted_settings(form))

    court = changed["resources"][1]
    assert court["min_booking_duration_minutes"] == "ten"
    assert court["schedules"][0]["time_slots"][0]["end_time"] == "25:00:00"


def test_a_refusals_path_is_placed_on_its_field() -> None:
    document = _document()
    _changed, fields = with_settings(document, "Court 1", posted_settings(_form(document)))

    window = locate("resources[1].schedules[0].time_slots[1].end_time: must be after start_time", fields)
    assert (window.field, window.day, window.row, window.column) == ("d1w1_end", 1, 1, "end")
    assert window.message == "must be after start_time"
    rule = locate("resources[1].booking_interval_minutes: must be a positive integer", fields)
    assert (rule.field, rule.day, rule.message) == (
        "booking_interval_minutes",
        None,
        "must be a positive integer",
    )
    elsewhere = locate("resources[0].capacity: must be a positive integer", fields)
    assert elsewhere.field is None
    assert elsewhere.message == "resources[0].capacity: must be a positive integer"  # not on the page
