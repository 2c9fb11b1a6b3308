"""Read a catalog file as YAML, JSON or TOML, chosen by its extension."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import yaml

from adapters.catalog._spec import CatalogError, CatalogSpec
from adapters.catalog._validate import validate_catalog

FORMATS = {".yaml": "YAML", ".yml": "YAML", ".json": "JSON", ".toml": "TOML"}


def read_catalog(path: Path) -> CatalogSpec:
    """Parse and validate the catalog at ``path``; raise :class:`CatalogError` when it is unusable."""
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise CatalogError(f"{path}: unknown catalog format {path.suffix!r}; use .yaml, .yml, .json or .toml")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot read: {exc}") from None
    return validate_catalog(parse_document(text, kind, str(path)))


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
