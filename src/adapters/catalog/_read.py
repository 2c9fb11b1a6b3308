"""Read a catalog file as YAML, JSON or TOML, chosen by its extension, and check it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import yaml
from msgspec import inspect

from adapters.catalog._errors import catalog_error
from adapters.catalog._prices import check_prices
from adapters.catalog._spec import CatalogError, CatalogSpec
from adapters.catalog._types import decode_value
from adapters.payments import stripe_currencies
from booking_core.ports import Currencies

FORMATS = {".yaml": "YAML", ".yml": "YAML", ".json": "JSON", ".toml": "TOML"}


def read_catalog(path: Path, currencies: Currencies | None = None) -> CatalogSpec:
    """Parse and validate the catalog at ``path``; raise :class:`CatalogError` when it is unusable.

    ``currencies`` judges currency codes and prices (:func:`validate_catalog`).
    """
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise CatalogError(f"{path}: unknown catalog format {path.suffix!r}; use .yaml, .yml, .json or .toml")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot read: {exc}") from None
    return validate_catalog(parse_document(text, kind, str(path)), currencies)


def parse_document(text: str, kind: str, name: str = "catalog") -> object:
    """The data in ``text`` (``kind`` is YAML, JSON or TOML); syntax errors name line and column."""
    try:
        if kind == "JSON":
            return json.loads(text)
        if kind == "TOML":
            return tomllib.loads(text)
        return yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            f"{name}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{name}: invalid TOML: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise CatalogError(f"{name}: invalid YAML{where}: {problem}") from None


def validate_catalog(document: object, currencies: Currencies | None = None) -> CatalogSpec:
    """The checked catalog in a parsed ``document``; raise :class:`CatalogError` at the first bad key.

    Top-level keys starting with ``x-`` are ignored (a place for YAML anchors). An optional key given
    as null counts as absent, so a section whose entries are all commented out is simply empty.
    Currencies must be ISO 4217 and prices chargeable exactly in them, as ``currencies`` says (by
    default: Stripe's amounts, which the sandbox provider takes too). Prices are checked once every
    key has its type, so a bad key anywhere is reported before a bad price.
    """
    if document is None:
        document = {}
    if isinstance(document, dict):
        document = {k: v for k, v in document.items() if not (isinstance(k, str) and k.startswith("x-"))}
    try:
        spec = msgspec.convert(
            _without_nulls(document, inspect.type_info(CatalogSpec)), CatalogSpec, dec_hook=decode_value
        )
    except msgspec.ValidationError as error:
        raise catalog_error(error, CatalogSpec) from None
    check_prices(spec, currencies or stripe_currencies())
    return spec


def _without_nulls(value: Any, type_: inspect.Type) -> Any:
    """``value`` without the null values of optional keys, following the schema ``type_``."""
    if isinstance(type_, inspect.Metadata):
        return _without_nulls(value, type_.type)
    if isinstance(type_, inspect.UnionType):
        inner = next(t for t in type_.types if not isinstance(t, inspect.NoneType))
        return _without_nulls(value, inner)
    if isinstance(type_, inspect.StructType) and isinstance(value, dict):
        fields = {field.encode_name: field for field in type_.fields}
        return {
            key: _without_nulls(item, fields[key].type) if key in fields else item
            for key, item in value.items()
            if not (item is None and key in fields and not fields[key].required)
        }
    if isinstance(type_, inspect.VarTupleType) and isinstance(value, list):
        return [_without_nulls(item, type_.item_type) for item in value]
    return value
