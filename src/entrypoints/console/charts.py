"""The report's pictures as geometry (CONTRACT 8): the occupancy of local weekdays and hours as a heat
map, and the money per month as bars. Pure functions of the report's figures, in SVG user units; the
template (``report.html``) draws the shapes, and labels and formats every figure in the page's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from booking_core.report import HourOccupancy, MonthRevenue

#: A heat map cell, and the room left of the rows and above the columns for their labels.
CELL_WIDTH, CELL_HEIGHT = 36, 28
HEAT_LEFT, HEAT_TOP = 44, 22
#: Below the cells: the legend's row of swatches.
LEGEND_GAP, LEGEND_HEIGHT = 14, 34
#: The colours of an empty and a full hour (a light and a dark blue; white text is never drawn on them).
EMPTY_RGB, FULL_RGB = (234, 242, 251), (8, 48, 107)
LEGEND_STEPS = (Decimal("0"), Decimal("0.25"), Decimal("0.5"), Decimal("0.75"), Decimal("1"))

#: The bar chart: the amounts' axis on the left, months below, a group of two bars per month.
BAR_LEFT, BAR_TOP, PLOT_HEIGHT, BAR_BOTTOM = 96, 12, 180, 40
GROUP_WIDTH, BAR_WIDTH, BAR_RIGHT = 60, 22, 12
TICKS = 4
_NICE = (Decimal(1), Decimal(2), Decimal("2.5"), Decimal(5), Decimal(10))


@dataclass(frozen=True, slots=True, kw_only=True)
class HeatCell:
    """One weekday and hour that has open time, with its place and colour."""

    weekday: int
    hour: int
    occupancy: Decimal
    x: int
    y: int
    fill: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Swatch:
    """A step of the legend: the colour of ``occupancy``."""

    occupancy: Decimal
    x: int
    fill: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HeatMap:
    """Weekdays 1-7 as rows, the hours from the first to the last with open time as columns."""

    width: int
    height: int
    #: (weekday, y of the row's middle)
    rows: list[tuple[int, int]]
    #: (hour, x of the column's middle)
    columns: list[tuple[int, int]]
    cells: list[HeatCell]
    legend_y: int
    legend: list[Swatch]
    left: int = HEAT_LEFT
    top: int = HEAT_TOP
    cell_width: int = CELL_WIDTH
    cell_height: int = CELL_HEIGHT

    @property
    def hours(self) -> list[int]:
        """The hours of the columns."""
        return [hour for hour, _x in self.columns]

    def occupancy(self, weekday: int, hour: int) -> Decimal | None:
        """The occupancy of ``weekday`` at ``hour``; None when it had no open time."""
        for cell in self.cells:
            if (cell.weekday, cell.hour) == (weekday, hour):
                return cell.occupancy
        return None


def colour(occupancy: Decimal) -> str:
    """The heat map's colour of ``occupancy`` (0 to 1): from light to dark blue, as ``#rrggbb``."""
    share = min(max(float(occupancy), 0.0), 1.0)
    mixed = (round(low + (high - low) * share) for low, high in zip(EMPTY_RGB, FULL_RGB, strict=True))
    return "#" + "".join(f"{part:02x}" for part in mixed)


def heat_map(by_hour: list[HourOccupancy]) -> HeatMap:
    """The heat map of the report's ``by_hour``: every weekday a row, so that the days stay in place;
    the columns run without a gap from the earliest to the latest open hour."""
    hours = sorted({h.hour for h in by_hour})
    first = hours[0] if hours else 0
    count = hours[-1] - first + 1 if hours else 0
    width = HEAT_LEFT + max(count, len(LEGEND_STEPS)) * CELL_WIDTH
    legend_y = HEAT_TOP + 7 * CELL_HEIGHT + LEGEND_GAP
    return HeatMap(
        width=width,
        height=legend_y + LEGEND_HEIGHT,
        rows=[(day, HEAT_TOP + (day - 1) * CELL_HEIGHT + CELL_HEIGHT // 2) for day in range(1, 8)],
        columns=[(first + n, HEAT_LEFT + n * CELL_WIDTH + CELL_WIDTH // 2) for n in range(count)],
        cells=[
            HeatCell(
                weekday=h.weekday,
                hour=h.hour,
                occupancy=h.occupancy,
                x=HEAT_LEFT + (h.hour - first) * CELL_WIDTH,
                y=HEAT_TOP + (h.weekday - 1) * CELL_HEIGHT,
                fill=colour(h.occupancy),
            )
            for h in sorted(by_hour, key=lambda h: (h.weekday, h.hour))
        ],
        legend_y=legend_y,
        legend=[
            Swatch(occupancy=step, x=HEAT_LEFT + n * CELL_WIDTH, fill=colour(step))
            for n, step in enumerate(LEGEND_STEPS)
        ],
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Bar:
    """A bar standing on the axis: ``y`` is its top."""

    x: int
    y: float
    height: float
    amount: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class MonthBars:
    """A month's pair of bars, and the middle of the group for its label."""

    month: MonthRevenue
    middle: int
    paid: Bar
    refunded: Bar


@dataclass(frozen=True, slots=True, kw_only=True)
class Tick:
    """A line across the plot at ``amount``."""

    amount: Decimal
    y: float


@dataclass(frozen=True, slots=True, kw_only=True)
class BarChart:
    """Paid and refunded money per month, on one scale from nothing to ``top``."""

    width: int
    height: int
    left: int
    right: int
    #: the y of the axis the bars stand on
    base: int
    top: Decimal
    ticks: list[Tick]
    months: list[MonthBars]
    bar_width: int = BAR_WIDTH


def scale_top(largest: Decimal) -> Decimal:
    """The top of the amounts' axis: the least of 1, 2, 2.5 and 5 times a power of ten that is at
    least ``largest``, so that a quarter of it is a round amount too (1 for nothing at all)."""
    if largest <= 0:
        return Decimal(1)
    power = Decimal(10) ** (largest.adjusted())
    return next(step * power for step in _NICE if step * power >= largest)


def bar_chart(by_month: list[MonthRevenue]) -> BarChart:
    """The bars of ``by_month``, the months left to right, paid before refunded in each group."""
    top = scale_top(
        max((a for m in by_month for a in (m.revenue_paid, m.revenue_refunded)), default=Decimal(0))
    )
    base = BAR_TOP + PLOT_HEIGHT

    def bar(x: int, amount: Decimal) -> Bar:
        height = float(amount / top) * PLOT_HEIGHT
        return Bar(x=x, y=round(base - height, 2), height=round(height, 2), amount=amount)

    months = []
    for n, month in enumerate(by_month):
        left = BAR_LEFT + n * GROUP_WIDTH + (GROUP_WIDTH - 2 * BAR_WIDTH) // 2
        months.append(
            MonthBars(
                month=month,
                middle=BAR_LEFT + n * GROUP_WIDTH + GROUP_WIDTH // 2,
                paid=bar(left, month.revenue_paid),
                refunded=bar(left + BAR_WIDTH, month.revenue_refunded),
            )
        )
    right = BAR_LEFT + max(len(by_month), 1) * GROUP_WIDTH
    return BarChart(
        width=right + BAR_RIGHT,
        height=base + BAR_BOTTOM,
        left=BAR_LEFT,
        right=right,
        base=base,
        top=top,
        ticks=[
            Tick(amount=top * n / TICKS, y=round(base - PLOT_HEIGHT * n / TICKS, 2)) for n in range(TICKS + 1)
        ],
        months=months,
    )
