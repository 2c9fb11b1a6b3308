"""Integers of paths and queries in digits alone, JSON bodies of exactly their types (CONTRACT 4.8).

Litestar converts parameters and bodies leniently (msgspec's ``strict=False``): a query's ``1e3``
reads as 1000, a body's ``"5"`` or ``2.0`` as an integer, and a path's ``{id:int}`` goes through
``int()``, which takes ``+1``, ``01`` and Arabic-Indic digits. So before it does, every API request is checked
against its handler's own signature: an ``int`` parameter must be written as
:func:`booking_core.limits.parse_digits` reads it, and the body must decode strictly into its
declared type. The types stay the single declaration (and the OpenAPI document); the bounds and
the messages of both libraries still apply after this check.
"""

from __future__ import annotations

import re
import types
import weakref
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

import msgspec
from litestar import Request
from litestar.exceptions import ValidationException
from litestar.handlers import BaseRouteHandler
from litestar.params import ParameterKwarg

from booking_core.limits import parse_digits

#: The JSON path of msgspec's message: ``... - at `$.participant_count```.
_AT = re.compile(r" - at `\$\.?(?P<key>[^`]*)`$")


@dataclass(frozen=True, slots=True)
class _Expected:
    """What one handler takes: its ``int`` parameters (name, where) and the decoder of its body."""

    integers: tuple[tuple[str, Literal["path", "query"]], ...]
    body: msgspec.json.Decoder[Any] | None


def _is_int(annotation: Any) -> bool:
    """``int`` or ``int | None`` (not ``bool``, which is an ``int`` to ``issubclass``)."""
    if get_origin(annotation) in {Union, types.UnionType}:
        return {arg for arg in get_args(annotation) if arg is not type(None)} == {int}
    return annotation is int


#: What each handler takes, worked out on its first request. Weakly keyed: an application that is
#: gone (tests make hundreds) takes its handlers' entries with it instead of being kept alive here.
_EXPECTED: weakref.WeakKeyDictionary[BaseRouteHandler, _Expected] = weakref.WeakKeyDictionary()


def _expected(handler: BaseRouteHandler, path_names: frozenset[str]) -> _Expected:
    """What ``handler`` takes (its path's parameter names never change, so the handler is the key)."""
    found = _EXPECTED.get(handler)
    if found is None:
        found = _EXPECTED[handler] = _read_expected(handler, path_names)
    return found


def _read_expected(handler: BaseRouteHandler, path_names: frozenset[str]) -> _Expected:
    integers: list[tuple[str, Literal["path", "query"]]] = []
    body = None
    for name, field in handler.parsed_fn_signature.parameters.items():
        given = field.kwarg_definition
        if name == "data":
            body = msgspec.json.Decoder(field.annotation, strict=True)
        elif not _is_int(field.annotation) or (isinstance(given, ParameterKwarg) and given.header):
            continue
        elif name in path_names:
            integers.append((name, "path"))
        elif given is None or isinstance(given, ParameterKwarg):  # not a dependency
            integers.append(((given.query if given is not None else None) or name, "query"))
    return _Expected(integers=tuple(integers), body=body)


def _refuse(message: str, key: str, source: str) -> ValidationException:
    """The error Litestar itself would raise for this field (``validation.py`` words it)."""
    return ValidationException(message, extra=[{"message": message, "key": key, "source": source}])


def check_parameters(request: Request[Any, Any, Any]) -> None:
    """Integers in the path (404 when refused) and the query (400) written in ASCII digits only."""
    expected = _expected(request.route_handler, frozenset(request.path_params))
    for name, source in expected.integers:
        written = [request.path_params[name]] if source == "path" else request.query_params.getall(name, [])
        for text in written:
            try:
                parse_digits(str(text))
            except ValueError as refused:
                raise _refuse(str(refused), name, source) from None


def check_body(request: Request[Any, Any, Any], body: bytes) -> None:
    """A JSON body decodes into its declared type without conversions: an integer field takes a JSON
    integer only, a string field a string only. Malformed JSON is left to Litestar's own message."""
    decoder = _expected(request.route_handler, frozenset(request.path_params)).body
    if decoder is None or not body.strip():
        return
    try:
        decoder.decode(body)
    except msgspec.ValidationError as refused:
        message = str(refused)
        found = _AT.search(message)
        key = found["key"] if found and found["key"] else "data"
        raise _refuse(message[: found.start()] if found else message, key, "body") from None
    except msgspec.DecodeError:
        return
