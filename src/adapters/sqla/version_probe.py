"""A resource's data version, read on the event loop through psycopg's async pool (PostgreSQL).

:class:`~booking_core.ports.DataVersions` on PostgreSQL. A cached availability read asks the
database one thing: the resource's data version
(:meth:`booking_core.ports.AvailabilityReads.version`). Through a unit of work that takes a handler
thread and a SQLAlchemy session, which cost more than the statement itself (docs/performance.md).
The HTTP layer's response cache asks this probe first, without leaving the event loop, and serves
the remembered answer when there is one; anything else (a miss, an unknown resource, a failure here)
goes the whole way through the use case, which reads the version again and reports errors as always.

The statement is the one the unit of work's availability reads run
(:data:`~adapters.sqla.data_version.DATA_VERSION`), so both paths read the same thing. Each
application owns one probe: :meth:`start` opens its pool on the running event loop, :meth:`stop`
closes it.
"""

from __future__ import annotations

from psycopg import AsyncConnection, Error
from psycopg_pool import AsyncConnectionPool

from adapters.sqla.data_version import DATA_VERSION, data_version_of
from adapters.sqla.engine import POSTGRES_CONNECT_TIMEOUT_S, driver_url
from booking_core.ports import DataVersion

#: Connections per probe at most: each holds one short autocommit statement at a time.
MAX_CONNECTIONS = 8
#: How the probe's connections show in ``pg_stat_activity``.
APPLICATION_NAME = "booking-data-versions"
#: How long a read waits for a pooled connection before the probe gives up (and the full read runs).
CHECKOUT_TIMEOUT_S = 2.0


class DataVersionProbe:
    """Reads :data:`DATA_VERSION` for one resource at a time; None whenever it cannot tell."""

    def __init__(self, url: str, *, max_connections: int = MAX_CONNECTIONS) -> None:
        target = driver_url(url)
        if target.get_backend_name() != "postgresql":
            raise ValueError(f"the data-version probe needs PostgreSQL, not {target.get_backend_name()}")
        self._conninfo = target.set(drivername="postgresql").render_as_string(hide_password=False)
        self._max_connections = max_connections
        self._pool: AsyncConnectionPool[AsyncConnection] | None = None

    async def start(self) -> None:
        """Open the pool on the running event loop; its connections are made when first needed."""
        pool: AsyncConnectionPool[AsyncConnection] = AsyncConnectionPool(
            self._conninfo,
            min_size=0,
            max_size=self._max_connections,
            timeout=CHECKOUT_TIMEOUT_S,
            kwargs={
                "autocommit": True,
                "connect_timeout": POSTGRES_CONNECT_TIMEOUT_S,
                "application_name": APPLICATION_NAME,
            },
            name="data-versions",
            open=False,
        )
        await pool.open()
        self._pool = pool

    async def stop(self) -> None:
        """Close the pool and its connections."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def version(self, resource_id: int) -> DataVersion | None:
        """The resource's data version; None when unknown, not started, or the database did not answer."""
        if self._pool is None:
            return None
        try:
            async with self._pool.connection() as connection:
                cursor = await connection.execute(
                    DATA_VERSION.sql, DATA_VERSION.params({"resource_id": resource_id})
                )
                row = await cursor.fetchone()
        except Error:  # the pool's timeout included: the full read then answers, or reports the failure
            return None
        return None if row is None else data_version_of(*row)
