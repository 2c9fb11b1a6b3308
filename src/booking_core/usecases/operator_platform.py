"""The platform operator over HTTP (CONTRACT 7.8): venue mapping approval, the commissions report and
the payout. Admins only; the same use cases as the command line, which acts with ``staff`` None."""

from __future__ import annotations

from dataclasses import dataclass

from booking_core.accounts import ApprovalStatus, Client, User, VenueMapping
from booking_core.catalog import Venue
from booking_core.errors import NotFound
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import PayoutFiles, UnitOfWork
from booking_core.staff import Action, Staff, StaffRole
from booking_core.usecases import operator
from booking_core.usecases.clients import parse_approval_status
from booking_core.usecases.commissions import (
    CommissionReport,
    PayoutOutcome,
    commission_report,
    pay_out_commissions,
)
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import require
from booking_core.usecases.staff import list_staff

#: What a payout answered over HTTP records as its file's place: the file is the answer itself.
HTTP_DESTINATION = "(HTTP response)"


@dataclass(frozen=True, slots=True, kw_only=True)
class MappingOfClient:
    """A venue mapping with its venue and the client that asked for it."""

    mapping: VenueMapping
    venue: Venue
    client: Client | None


def list_mappings(
    deps: Deps, staff: Staff | None, approval_status: str | None = None, *, page: Page | None = None
) -> Paged[MappingOfClient]:
    """A page of every client's venue mappings, oldest first, optionally of one approval status
    (400 naming ``approval_status`` when unknown)."""
    require(staff, Action.ADMINISTER)
    status = parse_approval_status(approval_status)
    with deps.read() as uow:
        found = fetch_page(
            page or Page(),
            lambda limit, offset: uow.venue_mappings.list(None, status, limit=limit, offset=offset),
        )
        return found.map(lambda mapping: _with_parties(uow, mapping))


def decide_mapping(
    deps: Deps, staff: Staff | None, mapping_id: str, status: ApprovalStatus
) -> MappingOfClient:
    """Approve or reject one venue mapping (audited as on the command line)."""
    require(staff, Action.ADMINISTER)
    decided = operator.decide_venue_mapping(deps, mapping_id, status, staff)
    with deps.read() as uow:
        return _with_parties(uow, decided)


def _with_parties(uow: UnitOfWork, mapping: VenueMapping) -> MappingOfClient:
    venue = uow.resources.get_venue(mapping.venue_id)
    if venue is None:  # venues are never deleted
        raise NotFound(f"No venue with id {mapping.venue_id}.")
    return MappingOfClient(mapping=mapping, venue=venue, client=uow.clients.get(mapping.client_id))


def list_venue_staff(deps: Deps, staff: Staff | None) -> list[tuple[User, StaffRole]]:
    """Every role with its user for an admin, the roles at their venues for a manager (desk: 403)."""
    require(staff, Action.MANAGE_VENUE)
    return list_staff(deps, staff)


def commissions_report(deps: Deps, staff: Staff | None, month: str) -> CommissionReport:
    """The rows of ``booking commissions report`` for ``month``."""
    require(staff, Action.ADMINISTER)
    return commission_report(deps, month)


def pay_out(deps: Deps, staff: Staff | None, month: str, files: PayoutFiles) -> PayoutOutcome:
    """The payout of ``booking commissions payout``, its file handed back rather than stored on disk:
    ``files`` writes nowhere, and the completed batch's document is the file (CONTRACT 4.6's rules
    hold as on the command line: a record is paid once, however the two race)."""
    require(staff, Action.ADMINISTER)
    return pay_out_commissions(deps, month, HTTP_DESTINATION, files, staff=staff)
