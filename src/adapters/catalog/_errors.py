"""msgspec's validation errors as the catalog's one-line messages (CONTRACT section 3).

msgspec says ``Expected `int` >= 1 - at `$.venues[0].resources[1].booking_interval_minutes```; the
operator reads ``venues[0].resources[1].booking_interval_minutes: must be a positive integer``. The
path locates the key's type in the schema, and the type's ``Meta`` holds the message.
"""

from __future__ import annotations

import re

import msgspec
from msgspec import inspect

from adapters.catalog._spec import CatalogError, Invalid

_PATH = re.compile(r"`\$(?P<path>[^`]*)`$")
_STEP = re.compile(r"\.(?P<key>\w+)|\[(?P<index>\d+)\]|\[[^\]]*\]")
_MISSING = re.compile(r"Object missing required field `(?P<key>[^`]+)`")
_UNKNOWN = re.compile(r"Object contains unknown field `(?P<key>[^`]+)`")


def catalog_error(error: msgspec.ValidationError, schema: type) -> CatalogError:
    """The message for ``error`` raised while converting a document to ``schema``."""
    text = str(error)
    found = _PATH.search(text)
    path = found["path"] if found else ""
    where = path.lstrip(".")  # "$.venues[0].name" reads "venues[0].name"
    at = _type_at(inspect.type_info(schema), path)
    cause = error.__cause__
    if isinstance(cause, Invalid):
        other = _join(where, cause.other) if cause.other else ""
        return CatalogError(f"{_join(where, cause.key)}: {cause.message.format(other=other)}")
    if missing := _MISSING.match(text):
        return CatalogError(f"{_join(where, missing['key'])}: is required")
    if unknown := _UNKNOWN.match(text):
        keys = (
            ", ".join(field.encode_name for field in at.fields) if isinstance(at, inspect.StructType) else ""
        )
        return CatalogError(f"{_join(where, unknown['key'])}: unknown key (expected one of: {keys})")
    # a ValueError of a value type's parser (_types.decode_value) says what is wrong already
    message = str(cause) if isinstance(cause, ValueError) else _expected(at, text)
    return CatalogError(f"{where or 'catalog'}: {message}")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _type_at(root: inspect.Type, path: str) -> inspect.Type:
    """The schema's type at msgspec's ``path`` (``.venues[0].resources``)."""
    current = root
    for step in _STEP.finditer(path):
        current = _unwrap(current)
        if step["key"] is not None and isinstance(current, inspect.StructType):
            current = next(f.type for f in current.fields if f.encode_name == step["key"])
        elif isinstance(current, inspect.VarTupleType | inspect.ListType):
            current = current.item_type
        elif isinstance(current, inspect.DictType):
            current = current.value_type
    return current


def _unwrap(type_: inspect.Type) -> inspect.Type:
    """The type itself, without an optional ``| None`` or its metadata."""
    if isinstance(type_, inspect.UnionType):
        type_ = next(t for t in type_.types if not isinstance(t, inspect.NoneType))
    if isinstance(type_, inspect.Metadata):
        type_ = type_.type
    return type_


def _expected(type_: inspect.Type, text: str) -> str:
    """What a value of ``type_`` must look like, from its metadata or its kind."""
    if isinstance(type_, inspect.UnionType):
        type_ = next(t for t in type_.types if not isinstance(t, inspect.NoneType))
    if isinstance(type_, inspect.Metadata) and type_.extra and "error" in type_.extra:
        message = str(type_.extra["error"])
        if isinstance(type_.type, inspect.TimeType) and "got `int`" in text:
            # YAML 1.1 reads an unquoted 17:00:00 as the sexagesimal number 61200
            message += " in quotes"
        return message
    if isinstance(type_, inspect.VarTupleType | inspect.ListType):
        return "must be a list"
    if isinstance(type_, inspect.DictType) and " - at `key` in " in text:
        return "must be a mapping with string keys"
    if isinstance(type_, inspect.StructType | inspect.DictType):
        return "must be a mapping"
    return text.split(" - at ", 1)[0]
