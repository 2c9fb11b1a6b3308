"""The catalog file: venues, resources, users and clients declared in YAML, JSON or TOML.

:func:`read_catalog` checks the whole file (nothing is written when it fails);
:func:`write_catalog` upserts it in one transaction. ``DEMO_CATALOG`` is the built-in demo.
"""

from pathlib import Path

from adapters.catalog._read import FORMATS, parse_document, read_catalog, validate_catalog
from adapters.catalog._spec import CatalogError, CatalogSpec
from adapters.catalog._tokens import issue_token
from adapters.catalog._upsert import LoadReport, upsert_catalog, write_catalog
from adapters.catalog._venue import SqlaCatalogFiles

DEMO_CATALOG = Path(__file__).with_name("demo.yaml")

__all__ = [
    "DEMO_CATALOG",
    "FORMATS",
    "CatalogError",
    "CatalogSpec",
    "LoadReport",
    "SqlaCatalogFiles",
    "issue_token",
    "parse_document",
    "read_catalog",
    "upsert_catalog",
    "validate_catalog",
    "write_catalog",
]
