"""The report's pictures as geometry: where the heat map puts each weekday and hour and how dark, and
how tall the month's bars stand on a scale with round ticks."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from booking_core.report import HourOccupancy, MonthRevenue
from entrypoints.console.charts import (
    BAR_TOP,
    CELL_HEIGHT,
    CELL_WIDTH,
    HEAT_LEFT,
    HEAT_TOP,
    PLOT_HEIGHT,
    bar_chart,
    colour,
    heat_map,
    scale_top,
)


def _hour(weekday: int, hour: int, share: str) -> HourOccupancy:
    return HourOccupancy(weekday=weekday, hour=hour, occupancy=Decimal(share))


def _month(month: int, paid: str, refunded: str = "0.00") -> MonthRevenue:
    first = dt.date(2026, month, 1)
    return MonthRevenue(
        date_from=first, date_to=first, revenue_paid=Decimal(paid), revenue_refunded=Decimal(refunded)
    )


def test_the_heat_map_runs_its_columns_from_the_first_to_the_last_open_hour() -> None:
    # open 8-9 on Monday and 20-21 on Sunday only: the hours between are columns too, their cells blank
    found = heat_map([_hour(7, 20, "1.00"), _hour(1, 8, "0.50")])

    assert found.hours == list(range(8, 21))
    assert [day for day, _y in found.rows] == [1, 2, 3, 4, 5, 6, 7]
    monday, sunday = found.cells
    assert (monday.weekday, monday.x, monday.y) == (1, HEAT_LEFT, HEAT_TOP)
    assert (sunday.weekday, sunday.x, sunday.y) == (
        7,
        HEAT_LEFT + 12 * CELL_WIDTH,
        HEAT_TOP + 6 * CELL_HEIGHT,
    )
    assert found.width == HEAT_LEFT + 13 * CELL_WIDTH
    assert found.occupancy(1, 8) == Decimal("0.50")
    assert found.occupancy(1, 9) is None
    assert found.legend_y > sunday.y + CELL_HEIGHT


def test_the_heat_map_of_no_open_time_has_no_cells_but_its_legend() -> None:
    found = heat_map([])

    assert (found.cells, found.columns) == ([], [])
    assert len(found.legend) == 5
    assert found.width == HEAT_LEFT + 5 * CELL_WIDTH


def test_a_fuller_hour_is_darker() -> None:
    assert colour(Decimal(0)) == "#eaf2fb"
    assert colour(Decimal(1)) == "#08306b"
    shades = [colour(Decimal(n) / 10) for n in range(11)]
    assert [sum(int(s[i : i + 2], 16) for i in (1, 3, 5)) for s in shades] == sorted(
        (sum(int(s[i : i + 2], 16) for i in (1, 3, 5)) for s in shades), reverse=True
    )
    assert colour(Decimal(2)) == colour(Decimal(1))


@pytest.mark.parametrize(
    ("largest", "top"),
    [
        ("0", "1"),
        ("0.03", "0.05"),
        ("1", "1"),
        ("180.00", "200"),
        ("201", "250"),
        ("2600", "5000"),
        ("9001", "10000"),
    ],
)
def test_the_scale_ends_at_a_round_amount_at_least_the_largest(largest: str, top: str) -> None:
    assert scale_top(Decimal(largest)) == Decimal(top)


def test_bars_stand_on_the_axis_in_proportion_to_the_scale() -> None:
    chart = bar_chart([_month(5, "100.00"), _month(6, "200.00", "50.00")])

    assert chart.top == Decimal(200)
    assert chart.base == BAR_TOP + PLOT_HEIGHT
    may, june = chart.months
    assert (may.paid.height, june.paid.height, june.refunded.height) == (
        PLOT_HEIGHT / 2,
        PLOT_HEIGHT,
        PLOT_HEIGHT / 4,
    )
    assert june.paid.y == BAR_TOP
    assert may.refunded.height == 0
    assert may.paid.x < may.refunded.x < june.paid.x
    assert [t.amount for t in chart.ticks] == [0, 50, 100, 150, 200]
    assert [t.y for t in chart.ticks] == [chart.base - PLOT_HEIGHT * n / 4 for n in range(5)]
    assert chart.width > june.refunded.x + chart.bar_width
