"""Bookings of the caller: list, detail, create, pay and cancel (token required).

The guard has checked the token before the body is read. The handlers run in a worker thread and
work out whom a request acts for there (``acting_user``): a client token's user lookup then costs no
hop of its own, and the only dependency is ``deps``.
"""

from __future__ import annotations

from typing import Any, Union
from uuid import UUID

from litestar import Request, Response, Router, get, post
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, JSONBody

from booking_core.accounts import Principal
from booking_core.limits import DEFAULT_PAGE_SIZE
from booking_core.paging import Page
from booking_core.usecases import bookings, payments
from booking_core.usecases.deps import Deps
from booking_core.usecases.views import BookingView
from entrypoints.http.auth import acting_user, provide_principal, token_required
from entrypoints.http.idempotency import idempotent
from entrypoints.http.openapi import (
    ANY_TOKEN,
    BOOKING_READ_ANSWERS,
    BOOKING_WRITE_ANSWERS,
    IDEMPOTENT_WRITE_ANSWERS,
    PAYMENT_ANSWERS,
    USER_HEADERS,
)
from entrypoints.http.paging import LINK_HEADER, paged_response
from entrypoints.http.structs.booking_requests import CancelIn, CreateBookingIn
from entrypoints.http.structs.bookings import BookingDetail, BookingItem, CancelledOut, ClientBookingCreated
from entrypoints.http.structs.fields import IdempotencyKey, Limit, Offset
from entrypoints.http.structs.payments import PaymentIntentOut

AnyRequest = Request[Any, Any, Any]

#: A user token gets the booking as listed; a client token the shorter body.
CREATED_BOOKING = ResponseSpec(
    Union[BookingItem, ClientBookingCreated],  # type: ignore[arg-type]  # noqa: UP007 - Litestar: oneOf
    generate_examples=False,
    description="The pending booking: as listed with a user token, the shorter body with a client token",
)


@get("/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=BOOKING_READ_ANSWERS)
def list_bookings(
    request: AnyRequest, deps: NamedDependency[Deps], limit: Limit = DEFAULT_PAGE_SIZE, offset: Offset = 0
) -> Response[list[BookingItem]]:
    """The user's bookings, latest start first; with a client token those made through the client."""
    actor = acting_user(request, required=False)
    found = bookings.list_bookings(deps, actor, page=Page(limit=limit, offset=offset))
    return paged_response(request, found, BookingItem.of)


@get("/upcoming/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=BOOKING_READ_ANSWERS)
def list_upcoming(
    request: AnyRequest, deps: NamedDependency[Deps], limit: Limit = DEFAULT_PAGE_SIZE, offset: Offset = 0
) -> Response[list[BookingItem]]:
    """Like the list, only live bookings that have not started, soonest first."""
    actor = acting_user(request, required=False)
    found = bookings.list_bookings(deps, actor, upcoming=True, page=Page(limit=limit, offset=offset))
    return paged_response(request, found, BookingItem.of)


@get("/{booking_id:uuid}/", sync_to_thread=True, responses=BOOKING_READ_ANSWERS)
def get_booking(
    request: AnyRequest, deps: NamedDependency[Deps], booking_id: FromPath[UUID]
) -> BookingDetail:
    """One of the caller's bookings with its payment and client; anyone else's reads as 404."""
    actor = acting_user(request, required=False)
    return BookingDetail.of(bookings.get_booking(deps, actor, str(booking_id)))


def _created(principal: Principal, view: BookingView) -> tuple[int, BookingItem | ClientBookingCreated]:
    return 201, ClientBookingCreated.of(view) if principal.is_client else BookingItem.of(view)


@post("/", sync_to_thread=True, responses=IDEMPOTENT_WRITE_ANSWERS | {201: CREATED_BOOKING})
def create_booking(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    data: JSONBody[CreateBookingIn],
    idempotency_key: IdempotencyKey = None,
) -> Response[bytes]:
    """A pending booking that holds its slot until paid (or the hold expires)."""
    principal, actor = provide_principal(request), acting_user(request)
    return idempotent(
        deps,
        key=idempotency_key,
        principal=principal,
        actor=actor,
        endpoint="POST /api/v1/bookings/",
        body=data,
        run=lambda replayable: bookings.create_booking(deps, actor, data.command(), idempotency=replayable),
        render=lambda view: _created(principal, view),
    )


@post(
    "/{booking_id:uuid}/create-payment-intent/",
    sync_to_thread=True,
    status_code=200,
    responses=PAYMENT_ANSWERS
    | {200: ResponseSpec(PaymentIntentOut, generate_examples=False, description="Payment intent")},
)
def create_payment_intent(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    booking_id: FromPath[UUID],
    idempotency_key: IdempotencyKey = None,
) -> Response[bytes]:
    """Open (or reuse) the provider's payment intent of a pending booking."""
    principal, actor = provide_principal(request), acting_user(request)
    return idempotent(
        deps,
        key=idempotency_key,
        principal=principal,
        actor=actor,
        endpoint=f"POST /api/v1/bookings/{booking_id}/create-payment-intent/",
        body=None,
        run=lambda replayable: payments.create_payment_intent(
            deps, actor, str(booking_id), idempotency=replayable
        ),
        render=lambda view: (200, PaymentIntentOut.of(view)),
    )


@post("/{booking_id:uuid}/cancel/", sync_to_thread=True, status_code=200, responses=BOOKING_WRITE_ANSWERS)
def cancel_booking(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    booking_id: FromPath[UUID],
    data: JSONBody[CancelIn | None] = None,
) -> CancelledOut:
    """Cancel the caller's booking (a paid one is refunded)."""
    actor = acting_user(request)
    body = data or CancelIn()
    view = bookings.cancel_booking(deps, actor, str(booking_id), reason=body.reason, notes=body.notes)
    return CancelledOut.of(view)


router = Router(
    path="/bookings",
    guards=[token_required],
    route_handlers=[
        list_bookings,
        list_upcoming,
        get_booking,
        create_booking,
        create_payment_intent,
        cancel_booking,
    ],
    tags=["bookings"],
    security=ANY_TOKEN,
    parameters=USER_HEADERS,
)
