"""Bounds on everything a caller sends (CONTRACT section 4.8), and the strict parsers of dates.

The HTTP edge declares its input types from these numbers (``entrypoints.http.structs.fields``);
the use cases parse dates and date-times with the functions below (months:
``booking_core.commission.parse_month``, which the command line shares). Anything
outside the bounds is refused with a 4xx before it reaches storage, so no value can overflow a
datetime computation or a database integer.

===========================  ==========================================================
notes (booking, cancel)      at most 1,000 characters
names (first, last)          at most 150 characters
email                        at most 254 characters
external ids                 1 to 255 characters
passwords                    10 to 1,024 characters (at login: at most 1,024)
Idempotency-Key              1 to 255 printable ASCII characters, never cut
integers                     -2**63 to 2**63 - 1 (both databases' BIGINT)
page size (``limit``)        1 to 1,000, default 100; ``offset`` 0 to 2**63 - 1
dates, date-times, months    years 2000 to 2100; offsets -12:00 to +14:00
request body                 at most 1 MiB of UTF-8 JSON, nested at most 32 deep
control characters           none in one-line strings (names, emails, ids, references);
                             notes and descriptions may break lines (LF, CR), nothing else
===========================  ==========================================================
"""

from __future__ import annotations

import re
from datetime import date, datetime

MAX_NOTES = 1000
MAX_NAME = 150
MAX_EMAIL = 254
MAX_EXTERNAL_ID = 255
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
MAX_IDEMPOTENCY_KEY = 255
MAX_BODY_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 32
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000

#: The calendar the service supports: far enough for any booking, near enough that no date
#: arithmetic (a day's margin, a timezone's offset) can leave ``datetime``'s range.
FIRST_YEAR = 2000
LAST_YEAR = 2100
EARLIEST_DATE = date(FIRST_YEAR, 1, 1)
LATEST_DATE = date(LAST_YEAR, 12, 31)

# Patterns in the dialect both Python and OpenAPI (ECMA-262) read; ASCII digits only.
_YEAR = "(20[0-9]{2}|2100)"
_MONTH = "(0[1-9]|1[0-2])"
_DAY = "(0[1-9]|[12][0-9]|3[01])"
_TIME = "([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?"
# Real UTC offsets run from -12:00 to +14:00.
_OFFSET = "(Z|\\+((0[0-9]|1[0-3]):[0-5][0-9]|14:00)|-((0[0-9]|1[01]):[0-5][0-9]|12:00))"

DATE_PATTERN = f"^{_YEAR}-{_MONTH}-{_DAY}$"
DATETIME_PATTERN = f"^{_YEAR}-{_MONTH}-{_DAY}T{_TIME}{_OFFSET}$"
#: Printable ASCII, starting and ending with a visible character.
IDEMPOTENCY_KEY_PATTERN = "^[!-~]([ -~]*[!-~])?$"

# Unicode's control characters (category Cc): C0, DEL and C1; line breaks are LF and CR.
_CONTROL = "\\x00-\\x1f\\x7f-\\x9f"
_CONTROL_BUT_LINE_BREAKS = "\\x00-\\x09\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f"
#: A one-line string: no control character. ``(?!\n)`` because Python's ``$`` also matches before
#: a final line break, which ECMA-262's does not; the two dialects then agree.
ONE_LINE_PATTERN = f"^[^{_CONTROL}]*(?!\\n)$"
#: Text of several lines (notes, descriptions): line breaks, but no other control character.
MULTI_LINE_PATTERN = f"^[^{_CONTROL_BUT_LINE_BREAKS}]*$"
CONTROL_CHARACTERS = "Control characters are not allowed."
#: An integer in a path or a query: ASCII digits, no sign, no leading zero.
_DIGITS = re.compile("0|[1-9][0-9]*")

DATE_FORMAT = f"a date YYYY-MM-DD from {EARLIEST_DATE} to {LATEST_DATE}"
DATETIME_FORMAT = (
    "an ISO 8601 date-time with a UTC offset, e.g. 2026-06-03T10:00:00+02:00 or 2026-06-03T08:00:00Z "
    f"(years {FIRST_YEAR} to {LAST_YEAR}, offsets -12:00 to +14:00)"
)


_FIRST_CONTROL = re.compile(f"[{_CONTROL}]")
_FIRST_CONTROL_BUT_LINE_BREAKS = re.compile(f"[{_CONTROL_BUT_LINE_BREAKS}]")


def control_character(text: str, *, line_breaks: bool = False) -> str | None:
    """The first control character in ``text`` that is not allowed there, or None.

    The rule of every string a caller or the catalog gives (CONTRACT section 4.8): a one-line string
    (a name, an email, an id, a reference) has none; with ``line_breaks`` (notes, descriptions) LF and
    CR are allowed. The HTTP edge states the same rule as ``ONE_LINE_PATTERN`` and
    ``MULTI_LINE_PATTERN``.
    """
    found = (_FIRST_CONTROL_BUT_LINE_BREAKS if line_breaks else _FIRST_CONTROL).search(text)
    return found[0] if found else None


def parse_digits(text: str, low: int = 0, high: int = INT64_MAX) -> int:
    """The integer ``text`` writes in ASCII digits alone, from ``low`` to ``high``; ValueError otherwise.

    The one way a path or a query may write an integer (CONTRACT section 4.8): ``+1``, ``01``,
    ``1e3``, `` 1`` and other scripts' digits (Arabic-Indic, full-width) are refused, which
    Python's ``int()`` would take.
    """
    if not _DIGITS.fullmatch(text):
        raise ValueError("A valid integer is required.")
    # the length first: int() of thousands of digits is slow, and refused beyond 4,300
    if len(text) > len(str(high)) or int(text) > high:
        raise ValueError(f"Ensure this value is less than or equal to {high}.")
    number = int(text)
    if number < low:
        raise ValueError(f"Ensure this value is greater than or equal to {low}.")
    return number


def _matches(pattern: str, text: str) -> bool:
    # fullmatch: "$" alone would also accept a trailing newline
    return re.fullmatch(pattern.strip("^$"), text) is not None


def parse_date(text: str) -> date:
    """A ``YYYY-MM-DD`` date in the supported years; ValueError (saying what is expected) otherwise."""
    if not _matches(DATE_PATTERN, text):
        raise ValueError(f"must be {DATE_FORMAT}")
    try:
        return date.fromisoformat(text)
    except ValueError:  # 2026-02-30
        raise ValueError(f"must be {DATE_FORMAT}") from None


def parse_datetime(text: str) -> datetime:
    """An aware datetime from strict ISO 8601 text with an offset; ValueError otherwise."""
    if not _matches(DATETIME_PATTERN, text):
        raise ValueError(f"must be {DATETIME_FORMAT}")
    try:
        return datetime.fromisoformat(text)
    except ValueError:  # a day the month does not have
        raise ValueError(f"must be {DATETIME_FORMAT}") from None
