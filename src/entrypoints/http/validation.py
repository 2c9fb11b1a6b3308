"""Litestar's and msgspec's validation failures as the interface's bodies, keyed by field.

msgspec reports ``Expected `str` of length <= 1000 - at `$.notes```; callers read
``{"notes": ["Ensure this field has no more than 1000 characters."]}``. The bounds themselves are
declared once, on the input types (``structs.fields``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from litestar.exceptions import ValidationException

from entrypoints.http.structs.fields import MESSAGES as PATTERN_MESSAGES

# msgspec's messages, reworded for API callers; the first matching pattern wins.
_REWORDED: Sequence[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^Expected `str` of length <= (\d+)"), "Ensure this field has no more than {} characters."),
    (re.compile(r"^Expected `str` of length >= 1\b"), "This field may not be blank."),
    (re.compile(r"^Expected `str` of length >= (\d+)"), "Ensure this field has at least {} characters."),
    (re.compile(r"^Expected `int` <= (-?\d+)"), "Ensure this value is less than or equal to {}."),
    (re.compile(r"^Expected `int` >= (-?\d+)"), "Ensure this value is greater than or equal to {}."),
    (re.compile(r"^Expected `int"), "A valid integer is required."),
    (re.compile(r"^Expected `float"), "A valid number is required."),
    (re.compile(r"^Expected `bool"), "Must be a valid boolean."),
    (re.compile(r"^Expected `str"), "Not a valid string."),
    (re.compile(r"^Expected `object`"), "Invalid data. Expected a JSON object."),
]
_NOT_MATCHING = re.compile(r"^Expected `str` matching regex '(.*)'")
_MISSING_FIELD = re.compile(r"^Object missing required field `([^`]+)`")
_MISSING_PARAM = re.compile(r"^Missing required \w+ parameter '([^']+)'")
_MISSING_QUERY_PARAM = re.compile(r"^Missing required query parameter '([^']+)'")


def _reworded(message: str) -> str:
    if found := _NOT_MATCHING.search(message):  # shown as a repr: backslashes doubled
        return PATTERN_MESSAGES.get(found[1].replace("\\\\", "\\"), "Invalid format.")
    for pattern, text in _REWORDED:
        if found := pattern.search(message):
            return text.format(*found.groups())
    return message


def _items(exc: ValidationException) -> list[dict[str, Any]]:
    """Litestar's validation failures: ``{"message", "key", "source"}`` each."""
    extra = exc.extra if isinstance(exc.extra, list) and exc.extra else [{"message": exc.detail}]
    return [item if isinstance(item, dict) else {"message": str(item)} for item in extra]


def query_error(exc: ValidationException) -> str | None:
    """The message of a bad query parameter, naming it (``limit: A valid integer is required.``);
    None when no query parameter is at fault. CONTRACT 4.8: such a 400 reads ``{"error": ...}``."""
    messages = []
    for item in _items(exc):
        message, key = str(item.get("message", "")), str(item.get("key") or "")
        if missing := _MISSING_QUERY_PARAM.match(message):
            messages.append(f"{missing.group(1)}: This field is required.")
        elif item.get("source") == "query":
            messages.append(f"{key}: {_reworded(message)}")
    return "; ".join(messages) or None


def field_errors(exc: ValidationException) -> dict[str, list[str]]:
    """Litestar's validation messages keyed by field name, like ``{"start_datetime": [...]}``."""
    errors: dict[str, list[str]] = {}
    for item in _items(exc):
        message = str(item.get("message", ""))
        key = str(item.get("key") or "")
        if item.get("source") == "header":  # the handler's argument name, spelled as the header
            key = key.replace("_", "-").title()
        if missing := _MISSING_FIELD.match(message) or _MISSING_PARAM.match(message):
            key, message = missing.group(1), "This field is required."
        elif key == "data":
            key = "non_field_errors"
            message = "No data provided" if message == "'data'" else message
        errors.setdefault(key or "non_field_errors", []).append(_reworded(message))
    return errors


def names_nothing(exc: ValidationException) -> bool:
    """True when a path parameter is out of range: such a path names no object (404, not 400)."""
    return any(item.get("source") == "path" for item in _items(exc))
