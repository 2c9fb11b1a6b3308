"""Checks of single values in a catalog file. Each raises ``Bad`` with a message without the path."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_DECIMAL = re.compile(r"^-?\d+(\.\d+)?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_SLUG = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_TIME = re.compile(r"^\d{2}:\d{2}:\d{2}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Bad(Exception):
    """A value is wrong; the caller adds the key's path."""


def boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise Bad("must be true or false")
    return value


def text(value: object) -> str:
    if not isinstance(value, str):
        raise Bad("must be a string")
    return value.strip()


def name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Bad("must be a non-empty string")
    return value.strip()


def limited(limit: int, check: Callable[[object], str] = name) -> Callable[[object], str]:
    """``check`` plus a maximum length (the column's)."""

    def wrapped(value: object) -> str:
        result = check(value)
        if len(result) > limit:
            raise Bad(f"must be at most {limit} characters long")
        return result

    return wrapped


def _int(value: object) -> int | None:
    """``value`` when it is a real integer (booleans are not), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def integer(value: object) -> int:
    number = _int(value)
    if number is None:
        raise Bad("must be an integer")
    return number


def positive_int(value: object) -> int:
    number = _int(value)
    if number is None or number <= 0:
        raise Bad("must be a positive integer")
    return number


def non_negative_int(value: object) -> int:
    number = _int(value)
    if number is None or number < 0:
        raise Bad("must be a non-negative integer")
    return number


def int_range(low: int, high: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        number = _int(value)
        if number is None or not low <= number <= high:
            raise Bad(f"must be an integer from {low} to {high}")
        return number

    return check


def decimal(
    *, places: int | None = 2, low: Decimal | None = Decimal(0), high: Decimal | None = None
) -> Callable[[object], Decimal]:
    """A decimal string (or an integer); floats are refused because they are inexact."""
    example = '"20.00"' if places == 2 else '"52.520008"'
    bounds = f" from {low} to {high}" if low is not None and high is not None else ""
    if low is not None and high is None:
        bounds = " that is not negative" if low == 0 else f" of at least {low}"

    def check(value: object) -> Decimal:
        if _int(value) is not None:
            value = str(value)
        if not isinstance(value, str) or not _DECIMAL.match(value.strip()):
            raise Bad(f"must be a decimal string{bounds} such as {example}")
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            raise Bad(f"must be a decimal string such as {example}") from None
        exponent = number.as_tuple().exponent
        if places is not None and isinstance(exponent, int) and -exponent > places:
            raise Bad(f"must have at most {places} decimal places")
        if (low is not None and number < low) or (high is not None and number > high):
            raise Bad(f"must be a decimal string{bounds}")
        return number.quantize(Decimal(1).scaleb(-places)) if places is not None else number

    return check


def one_of(*choices: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        if value not in choices:
            raise Bad(f"must be one of {', '.join(choices)}")
        return str(value)

    return check


def slug(value: object) -> str:
    if not isinstance(value, str) or not _SLUG.match(value):
        raise Bad("must be a slug of lower-case letters, digits and dashes, such as center-court")
    return value


def email(value: object) -> str:
    if not isinstance(value, str) or not _EMAIL.match(value.strip()):
        raise Bad("must be an email address")
    return value.strip()


def country(value: object) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Z]{2}", value):
        raise Bad("must be a two-letter ISO country code such as DE")
    return value


def currency(value: object) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Z]{3}", value):
        raise Bad("must be a three-letter currency code such as EUR")
    return value


def timezone(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise Bad("must be an IANA timezone name such as Europe/Berlin")
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise Bad(f"unknown IANA timezone {value!r}") from None
    return value


def time_of_day(value: object) -> time:
    """``"HH:MM:SS"``; TOML's native local time is accepted too."""
    if isinstance(value, time) and value.tzinfo is None:
        return value
    if _int(value) is not None:
        # YAML 1.1 reads an unquoted 17:00:00 as the number 61200.
        raise Bad('must be a time "HH:MM:SS" in quotes')
    if isinstance(value, str) and _TIME.match(value):
        try:
            return time.fromisoformat(value)
        except ValueError:
            pass
    raise Bad('must be a time "HH:MM:SS"')


def day(value: object) -> date:
    """``"YYYY-MM-DD"``; YAML and TOML dates are accepted too."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and _DATE.match(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise Bad('must be a date "YYYY-MM-DD"')


def aware_datetime(value: object) -> datetime:
    """An ISO 8601 datetime with a UTC offset."""
    moment: datetime | None = value if isinstance(value, datetime) else None
    if isinstance(value, str) and "T" in value:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = None
    if moment is None or moment.utcoffset() is None:
        raise Bad('must be an ISO 8601 datetime with offset such as "2026-12-01T08:00:00+01:00"')
    return moment


def string_list(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, str) and 0 < len(v.strip()) <= 100 for v in value
    ):
        raise Bad("must be a list of non-empty strings of at most 100 characters")
    items = tuple(v.strip() for v in value)
    if len(set(items)) != len(items):
        raise Bad("must not repeat a name")
    return items


def json_object(value: object) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise Bad("must be a mapping with string keys")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        raise Bad("must hold only JSON values (strings, numbers, booleans, lists, mappings)") from None
    return dict(value)


def token(value: object) -> str:
    if not isinstance(value, str) or len(value.strip()) < 8 or value != value.strip():
        raise Bad("must be a string of at least 8 characters without surrounding spaces")
    return value


def password(value: object) -> str:
    if not isinstance(value, str) or len(value) < 10:
        raise Bad("must be a string of at least 10 characters")
    return value


def iban(value: object) -> str:
    """An IBAN with a valid check sum (spaces allowed, stored without)."""
    if not isinstance(value, str):
        raise Bad("must be an IBAN such as DE89370400440532013000")
    compact = value.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", compact):
        raise Bad("must be an IBAN such as DE89370400440532013000")
    digits = "".join(str(int(c, 36)) for c in compact[4:] + compact[:4])
    if int(digits) % 97 != 1:
        raise Bad("is not a valid IBAN (check digits do not match)")
    return compact
