"""The value types of a catalog file, as msgspec reads them.

Each type carries the message for a wrong value in ``Meta(extra={"error": ...})``; the error
translation (``_errors``) finds it by the path msgspec reports. Three checks msgspec cannot state as
constraints are small classes parsed by :func:`decode_value`, msgspec's hook for unknown types:
decimal strings with places and bounds (msgspec would take a float, which is inexact), IANA
timezone names and IBAN check digits.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, ClassVar, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from msgspec import Meta

from booking_core.accounts import Language
from booking_core.catalog import PriceUnit
from booking_core.iban import parse_iban
from booking_core.staff import Role

_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _meta(error: str, **constraints: Any) -> Meta:
    return Meta(**constraints, extra={"error": error})


def _name(limit: int) -> Any:
    """A non-blank string of at most ``limit`` characters (surrounding spaces are dropped later)."""
    return Annotated[
        str,
        _meta(f"must be a non-empty string of at most {limit} characters", pattern=r"\S", max_length=limit),
    ]


def _text(limit: int | None = None) -> Any:
    """Any string, possibly empty; at most ``limit`` characters."""
    error = "must be a string" + (f" of at most {limit} characters" if limit else "")
    return Annotated[str, _meta(error, max_length=limit)]


Name20, Name50, Name100, Name200, Name255 = (_name(n) for n in (20, 50, 100, 200, 255))
Text, Text100, Text150, Text255 = _text(), _text(100), _text(150), _text(255)
Flag = Annotated[bool, _meta("must be true or false")]
Integer = Annotated[int, _meta("must be an integer")]
PositiveInt = Annotated[int, _meta("must be a positive integer", ge=1)]
NonNegativeInt = Annotated[int, _meta("must be a non-negative integer", ge=0)]
Weekday = Annotated[int, _meta("must be an integer from 1 to 7", ge=1, le=7)]
Slug = Annotated[
    str,
    _meta(
        "must be a slug of lower-case letters, digits and dashes, such as center-court",
        pattern=r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$",
        max_length=100,
    ),
]
# As the API checks it (``booking_core.usecases.auth.normalize_email``): one "@", a domain with a dot and
# no empty label (no trailing dot), no white space or control characters.
_ADDRESS = r"[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f.]+(?:\.[^@\s\x00-\x1f\x7f-\x9f.]+)+"
Email = Annotated[str, _meta("must be an email address", pattern=rf"^\s*{_ADDRESS}\s*$", max_length=254)]
Country = Annotated[str, _meta("must be a two-letter ISO country code such as DE", pattern=r"^[A-Z]{2}$")]
Currency = Annotated[str, _meta("must be a three-letter currency code such as EUR", pattern=r"^[A-Z]{3}$")]
Unit = Annotated[PriceUnit, _meta("must be one of " + ", ".join(unit.value for unit in PriceUnit))]
StaffRoleName = Annotated[Role, _meta("must be one of " + ", ".join(role.value for role in Role))]
Lang = Annotated[Language, _meta("must be one of " + ", ".join(lang.value for lang in Language))]
Day = Annotated[date, _meta('must be a date "YYYY-MM-DD"')]
# TOML's native local times are accepted too; YAML's unquoted 17:00:00 is a number (see _errors).
TimeOfDay = Annotated[time, _meta('must be a time "HH:MM:SS"', tz=False)]
Moment = Annotated[
    datetime,
    _meta('must be an ISO 8601 datetime with offset such as "2026-12-01T08:00:00+01:00"', tz=True),
]
Token = Annotated[
    str,
    _meta(
        "must be a string of at least 8 characters without surrounding spaces",
        pattern=r"^\S(?:.*\S)?$",
        min_length=8,
    ),
]
Password = Annotated[str, _meta("must be a string of at least 10 characters", min_length=10)]


class DecimalText(Decimal):
    """A decimal written as a string (or an integer), with at most ``places`` decimals."""

    places: ClassVar[int] = 2
    low: ClassVar[Decimal | None] = Decimal(0)
    high: ClassVar[Decimal | None] = None
    example: ClassVar[str] = '"20.00"'

    @classmethod
    def from_catalog(cls, raw: object) -> Self:
        if isinstance(raw, int) and not isinstance(raw, bool):
            raw = str(raw)
        bounds = f" from {cls.low} to {cls.high}" if cls.high is not None else " that is not negative"
        if not isinstance(raw, str) or not _DECIMAL.fullmatch(raw.strip()):
            raise ValueError(f"must be a decimal string{bounds} such as {cls.example}")
        try:
            number = Decimal(raw.strip())
        except InvalidOperation:
            raise ValueError(f"must be a decimal string such as {cls.example}") from None
        exponent = number.as_tuple().exponent
        if isinstance(exponent, int) and -exponent > cls.places:
            raise ValueError(f"must have at most {cls.places} decimal places")
        if (cls.low is not None and number < cls.low) or (cls.high is not None and number > cls.high):
            raise ValueError(f"must be a decimal string{bounds}")
        return cls(number.quantize(Decimal(1).scaleb(-cls.places)))


class Money(DecimalText):
    """An amount, not negative, with at most the four decimals of any ISO 4217 currency; the
    resource's currency then decides how many it may have (``_prices``)."""

    places = 4


class Percent(DecimalText):
    """A percentage from 0 to 100 with two decimals."""

    high = Decimal(100)


class Latitude(DecimalText):
    places, low, high, example = 6, Decimal(-90), Decimal(90), '"52.520008"'


class Longitude(DecimalText):
    places, low, high, example = 6, Decimal(-180), Decimal(180), '"13.404954"'


class TimeZoneName(str):
    """An IANA timezone name this machine knows."""

    __slots__ = ()

    @classmethod
    def from_catalog(cls, raw: object) -> Self:
        if not isinstance(raw, str) or not raw:
            raise ValueError("must be an IANA timezone name such as Europe/Berlin")
        try:
            ZoneInfo(raw)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown IANA timezone {raw!r}") from None
        return cls(raw)


class Iban(str):
    """An IBAN with valid check digits, kept without spaces."""

    __slots__ = ()

    @classmethod
    def from_catalog(cls, raw: object) -> Self:
        if not isinstance(raw, str):
            raise ValueError("must be an IBAN such as DE89370400440532013000")
        return cls(parse_iban(raw))


def decode_value(type_: type, raw: object) -> object:
    """msgspec's ``dec_hook``: build the types above; a ValueError names what is wrong."""
    parse = getattr(type_, "from_catalog", None)
    if parse is None:
        raise NotImplementedError(type_)
    return parse(raw)
