"""The unit of work over one SQLAlchemy session: one transaction, every repository."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from adapters.sqla.catalog_cache import ResourceCache, SqlaCatalogRevision
from adapters.sqla.engine import read_only_engine
from adapters.sqla.errors import translate, translated
from adapters.sqla.repositories import (
    SqlaAccountCodes,
    SqlaAuditLog,
    SqlaBlocks,
    SqlaClients,
    SqlaCommissions,
    SqlaIdempotencyRecords,
    SqlaOutbox,
    SqlaPayments,
    SqlaRefunds,
    SqlaResourceMappings,
    SqlaResources,
    SqlaStaffRoles,
    SqlaTokens,
    SqlaUserMappings,
    SqlaUsers,
    SqlaVenueMappings,
)
from adapters.sqla.repositories.availability import SqlaAvailabilityReads
from adapters.sqla.repositories.bookings import SqlaBookings, bookings_for
from adapters.sqla.repositories.reports import SqlaVenueReports
from booking_core.errors import StorageUnavailable
from booking_core.ports import (
    AccountCodes,
    AuditLog,
    AvailabilityReads,
    Blocks,
    Bookings,
    Clients,
    Commissions,
    IdempotencyRecords,
    Outbox,
    Payments,
    Refunds,
    ResourceMappings,
    Resources,
    StaffRoles,
    Tokens,
    UserMappings,
    Users,
    VenueMappings,
    VenueReports,
)

_OUTBOX_NAMES = ("outbox", "outbox_queue")
# The repositories on the session alone, by attribute name; ``resources`` also gets the shared cache
# and the catalog revision, ``availability`` the repositories it reads through, ``bookings`` is the
# strategy of the engine's database.
_ON_SESSION: dict[str, Callable[[Session], object]] = {
    "users": SqlaUsers,
    "tokens": SqlaTokens,
    "account_codes": SqlaAccountCodes,
    "clients": SqlaClients,
    "user_mappings": SqlaUserMappings,
    "resource_mappings": SqlaResourceMappings,
    "venue_mappings": SqlaVenueMappings,
    "commissions": SqlaCommissions,
    "payments": SqlaPayments,
    "refunds": SqlaRefunds,
    "outbox": SqlaOutbox,
    "outbox_queue": SqlaOutbox,
    "idempotency": SqlaIdempotencyRecords,
    "reports": SqlaVenueReports,
    "staff": SqlaStaffRoles,
    "audit": SqlaAuditLog,
    "blocks": SqlaBlocks,
}
_REPOSITORY_NAMES = ("resources", "availability", "bookings", *_ON_SESSION)


class SqlaUnitOfWork:
    """A transaction on a fresh session. Leaving the block without ``commit()`` rolls back.

    Database errors come out as domain errors: ``StorageUnavailable`` when the database cannot
    be reached or a lock was not granted within the engine's lock timeout, ``TransientConflict``
    when a concurrent transaction got in the way (deadlock, serialization failure: run the use case
    again), ``SlotUnavailable`` when the double-booking guard refuses a booking, and ``BadRequest``
    for other constraint violations. The order in which locks are taken is the port's
    (:class:`~booking_core.ports.UnitOfWork`).
    """

    # Typed as the ports: the UnitOfWork protocol's attributes are mutable, hence invariant.
    resources: Resources
    bookings: Bookings
    blocks: Blocks
    users: Users
    tokens: Tokens
    account_codes: AccountCodes
    clients: Clients
    user_mappings: UserMappings
    resource_mappings: ResourceMappings
    venue_mappings: VenueMappings
    commissions: Commissions
    payments: Payments
    refunds: Refunds
    outbox: Outbox
    idempotency: IdempotencyRecords
    staff: StaffRoles
    audit: AuditLog
    availability: AvailabilityReads
    reports: VenueReports
    #: The same outbox with the worker's side (``claim_due``, ``mark_sent``, ...: ``OutboxQueue``).
    outbox_queue: SqlaOutbox

    def __init__(
        self,
        session_factory: sessionmaker[Session],
        cache: ResourceCache | None = None,
        *,
        read_only: bool = False,
        bookings: type[SqlaBookings] | None = None,
    ) -> None:
        self._session_factory = session_factory
        # the engine's strategy (``factory`` chooses it once per engine; asked of the bind otherwise)
        self._bookings = bookings or bookings_for(session_factory.kw["bind"].dialect.name)
        self._cache = cache or ResourceCache()
        self._session: Session | None = None
        self._revision: SqlaCatalogRevision | None = None
        self._read_only = read_only

    @classmethod
    def factory(
        cls, engine: Engine, *, read_only: bool = False, cache: ResourceCache | None = None
    ) -> Callable[[], SqlaUnitOfWork]:
        """A callable that opens a new unit of work on ``engine`` per call (for ``Deps.uow``).

        With ``read_only`` (for ``Deps.reads``) PostgreSQL runs each statement on its own, without
        BEGIN and ROLLBACK (at READ COMMITTED a transaction would see the same data), and SQLite
        begins a deferred transaction that does not wait for writers. Pass one ``cache`` to both
        factories of an engine.
        """
        if read_only:
            engine = read_only_engine(engine)
        # expire_on_commit=False: nothing is read after commit through ORM rows anyway (they never
        # leave the adapter), and it saves a round trip per object.
        session_factory = sessionmaker(engine, expire_on_commit=False, autoflush=True)
        shared = cache or ResourceCache()
        bookings = bookings_for(engine.dialect.name)
        return lambda: cls(session_factory, shared, read_only=read_only, bookings=bookings)

    @classmethod
    def factories(cls, engine: Engine) -> tuple[Callable[[], SqlaUnitOfWork], Callable[[], SqlaUnitOfWork]]:
        """The writing and the read-only factory of ``engine`` (``Deps.uow``, ``Deps.reads``), sharing
        one resource cache."""
        cache = ResourceCache()
        return cls.factory(engine, cache=cache), cls.factory(engine, read_only=True, cache=cache)

    @property
    def session(self) -> Session:
        """The open session (for adapters and tests; use cases never see it)."""
        if self._session is None:
            raise RuntimeError("the unit of work is not open; use it in a `with` block")
        return self._session

    def __enter__(self) -> Self:
        self._session = self._session_factory()
        self._revision = None
        for name in _REPOSITORY_NAMES:  # a unit of work used again starts with fresh repositories
            self.__dict__.pop(name, None)
        return self

    def __getattr__(self, name: str) -> Any:
        # Only for attributes not set yet: the repositories, made on first use (a request needs two
        # or three of them, and each is bound to the session of this block).
        repository: object
        if name == "resources":
            repository = SqlaResources(self.session, self._cache, self.catalog_revision)
        elif name == "availability":
            repository = SqlaAvailabilityReads(self.session, self.resources, self.bookings)
        elif name == "bookings":
            repository = self._bookings(self.session)
        elif (make := _ON_SESSION.get(name)) is not None:
            repository = make(self.session)
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.__dict__[name] = repository
        if name in _OUTBOX_NAMES:  # one outbox under both names
            self.__dict__.update(dict.fromkeys(_OUTBOX_NAMES, repository))
        return repository

    def catalog_revision(self) -> int | None:
        """The catalog's revision in this unit of work: its own statement when first asked, then
        remembered until the unit of work writes the catalog (``SqlaCatalogRevision``)."""
        if self._revision is None:
            self._revision = SqlaCatalogRevision(self.session)
        return self._revision.catalog_revision()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        session, self._session = self.session, None
        self._revision = None
        try:
            # Closing rolls back what was not committed (the pool resets the connection on return).
            session.close()
        except SQLAlchemyError as error:
            # The connection may be gone already; report that only if nothing else went wrong.
            if exc is None:
                raise StorageUnavailable("The database is unavailable; please retry later.") from error
        if isinstance(exc, SQLAlchemyError):
            domain = translate(exc)
            if domain is not None:
                raise domain from exc

    def commit(self) -> None:
        """Make the changes durable."""
        if self._read_only:
            raise RuntimeError("a read-only unit of work cannot commit; use Deps.uow to write")
        with translated():
            self.session.commit()

    def rollback(self) -> None:
        """Discard the changes."""
        with translated():
            self.session.rollback()
