"""Storage on SQLAlchemy 2: SQLite (embedded) and PostgreSQL (psycopg 3).

Entry points build ``make_engine(url)``, run ``upgrade(url)`` / check ``is_up_to_date(url)``, and
hand ``SqlaUnitOfWork.factories(engine)`` (writing and read-only) to the use cases.
"""

from adapters.sqla.engine import make_engine, ping
from adapters.sqla.migrate import current_revision, head_revision, is_up_to_date, upgrade
from adapters.sqla.unit_of_work import SqlaUnitOfWork

__all__ = [
    "SqlaUnitOfWork",
    "current_revision",
    "head_revision",
    "is_up_to_date",
    "make_engine",
    "ping",
    "upgrade",
]
