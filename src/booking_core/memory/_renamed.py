"""The names the fakes had before they were all called ``InMemory*``, kept for one release."""

from __future__ import annotations

import warnings
from collections.abc import Mapping


def old_name(module: str, name: str, renamed: Mapping[str, type]) -> type:
    """The class ``module.name`` is now called, with a DeprecationWarning; AttributeError for any
    other name (for a module's ``__getattr__``)."""
    if name not in renamed:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new = renamed[name]
    warnings.warn(
        f"{module}.{name} is deprecated: use {new.__name__}; the old name goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )
    return new
