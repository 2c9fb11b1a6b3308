"""The bounds of ``booking_core.limits``, the page type and the HTTP edge's JSON depth check."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking_core import limits
from booking_core.commission import parse_month
from booking_core.errors import BadRequest, ValidationFailed
from booking_core.limits import LAST_YEAR, parse_date, parse_datetime
from booking_core.paging import Page, fetch_page
from entrypoints.http.inputs import nested_too_deep

SUPPORTED = st.datetimes(min_value=datetime(2000, 1, 2), max_value=datetime(LAST_YEAR, 12, 30))
# real offsets, in quarter hours from -12:00 to +14:00
OFFSETS = st.integers(-48, 56).map(lambda quarters: timezone(timedelta(minutes=15 * quarters)))


@given(SUPPORTED, OFFSETS)
def test_every_supported_datetime_reads_back_as_written(moment: datetime, offset: timezone) -> None:
    aware = moment.replace(tzinfo=offset)
    assert parse_datetime(aware.isoformat()) == aware
    assert parse_datetime(aware.astimezone(UTC).isoformat().replace("+00:00", "Z")) == aware


@given(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(1999, 12, 31))
    | st.datetimes(min_value=datetime(LAST_YEAR + 1, 1, 1), max_value=datetime(9999, 12, 30)),
    OFFSETS,
)
def test_datetimes_outside_the_supported_years_are_refused(moment: datetime, offset: timezone) -> None:
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_datetime(moment.replace(tzinfo=offset).isoformat())


@pytest.mark.parametrize(
    "text",
    ["2026-06-03T10:00:00+14:15", "2026-06-03T10:00:00-12:15", "2026-06-03T10:00:00+01:00:30",
     "2026-W23-3T10:00:00Z", "20260603T100000Z", "2026-06-03T10:00:00", "2026-06-03t10:00:00z",
     "2026-06-03T24:00:00Z", "2026-06-03T10:00:00.1234567Z", "\uff12\uff10\uff12\uff16-06-03T10:00:00Z"],
)  # fmt: skip
def test_loose_datetimes_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_datetime(text)


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(LAST_YEAR, 12, 31)))
def test_supported_dates_and_months(day: date) -> None:
    assert parse_date(day.isoformat()) == day
    assert parse_month(day.isoformat()[:7]) == day.isoformat()[:7]


@pytest.mark.parametrize(
    "text", ["0001-01-01", "1999-12-31", "2101-01-01", "9999-12-31", "20261201", "2026-W48-2"]
)
def test_dates_outside_or_loose_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        parse_date(text)


@pytest.mark.parametrize(
    "text",
    ["0000-01", "1999-12", "2101-01", "9999-12", "2026-00", "2026-13", "2026-1", "202606", "2026-06-01"],
)
def test_loose_months_are_refused(text: str) -> None:
    with pytest.raises(BadRequest, match="YYYY-MM"):
        parse_month(text)


# --------------------------------------------------------------------------- pages


@pytest.mark.parametrize(
    ("limit", "offset", "field"),
    [(0, 0, "limit"), (1001, 0, "limit"), (1, -1, "offset"), (1, 2**63, "offset")],
)
def test_pages_out_of_bounds_are_field_errors(limit: int, offset: int, field: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        Page(limit=limit, offset=offset)
    assert list(refused.value.errors) == [field]


@given(st.integers(0, 30), st.integers(1, 10), st.integers(0, 35))
def test_a_page_is_its_slice_and_knows_whether_more_follow(total: int, limit: int, offset: int) -> None:
    items = list(range(total))
    asked: list[tuple[int, int]] = []

    def fetch(n: int, skip: int) -> list[int]:
        asked.append((n, skip))
        return items[skip : skip + n]

    page = fetch_page(Page(limit=limit, offset=offset), fetch)
    assert asked == [(limit + 1, offset)]  # storage is asked for the page and one more, no more
    assert page.items == items[offset : offset + limit]
    assert page.next_offset == (offset + limit if total > offset + limit else None)


# --------------------------------------------------------------------------- JSON depth

_TEXT = st.text(st.sampled_from('[]{}"\\ax,:'), max_size=6)
_JSON = st.recursive(
    st.none() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=40,
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


@given(_JSON, st.integers(0, 6), st.booleans())
def test_depth_check_agrees_with_the_decoded_depth(value: Any, limit: int, ascii_only: bool) -> None:
    body = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert nested_too_deep(body, limit) == (_depth(value) > limit)


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000, b"[" * 50_000 + b"]" * 50_000, b'{"a":' * 40 + b"1" + b"}" * 40, b"[" * 33 + b"]" * 33],
)
def test_deep_bodies_are_too_deep_for_32(body: bytes) -> None:
    assert nested_too_deep(body)
    assert not nested_too_deep(b"[" * 32 + b"]" * 32)


# --------------------------------------------------------------------------- digits and control characters


@pytest.mark.parametrize(
    "text", ["+1", "01", "00", "-1", "-0", "1e3", "1.0", " 1", "1 ", "1_0", "\u0661", "\uff11", ""]
)
def test_an_integer_of_a_path_or_query_is_ascii_digits_only(text: str) -> None:
    with pytest.raises(ValueError, match="A valid integer is required"):
        limits.parse_digits(text)


def test_digits_are_read_within_their_bounds() -> None:
    assert limits.parse_digits("0") == 0
    assert limits.parse_digits(str(2**63 - 1)) == 2**63 - 1
    for beyond in (str(2**63), "9" * 5000):
        with pytest.raises(ValueError, match="less than or equal to 9223372036854775807"):
            limits.parse_digits(beyond)
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        limits.parse_digits("0", low=1)


@pytest.mark.parametrize("character", ["\x00", "\x01", "\t", "\n", "\r", "\x1f", "\x7f", "\x85", "\x9f"])
def test_one_line_strings_hold_no_control_character(character: str) -> None:
    assert limits.control_character(f"Partner{character} GmbH") == character
    assert re.search(limits.ONE_LINE_PATTERN, f"Partner{character} GmbH") is None


def test_multi_line_text_may_break_lines_only() -> None:
    assert limits.control_character("one\ntwo\r\n", line_breaks=True) is None
    assert re.search(limits.MULTI_LINE_PATTERN, "one\ntwo\r\n")
    assert limits.control_character("one\ttwo", line_breaks=True) == "\t"
    assert limits.control_character("Café 東京 ü", line_breaks=False) is None
    assert re.search(limits.ONE_LINE_PATTERN, "Café 東京 ü")
    assert re.search(limits.ONE_LINE_PATTERN, "a name\n") is None  # Python's "$" alone would take it
