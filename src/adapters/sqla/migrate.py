"""Schema migrations run from code: ``booking db upgrade`` and the start-up check of ``booking serve``."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from adapters.sqla.engine import make_engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    """An Alembic configuration for ``url`` built in code, without an ini file."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Apply every migration up to ``revision`` to the database at ``url``."""
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            config = alembic_config(url)
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        engine.dispose()


def head_revision() -> str | None:
    """The newest revision this code knows."""
    return ScriptDirectory(str(MIGRATIONS)).get_current_head()


def current_revision(url: str) -> str | None:
    """The revision the database at ``url`` is at, or None when it was never migrated."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def is_up_to_date(url: str) -> bool:
    """True when the database at ``url`` has every migration applied."""
    return current_revision(url) == head_revision()
