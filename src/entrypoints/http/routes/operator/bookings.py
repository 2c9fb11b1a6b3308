"""Bookings made and changed by staff (CONTRACT 7.4): create, cancel, move, check-in, no-show,
confirm and record a payment. Each handler decodes its body, calls one use case of
:mod:`booking_core.usecases.operator_bookings` with the member of staff, and answers the op-booking."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from litestar import Request, Response, post
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, JSONBody

from booking_core.accounts import Actor
from booking_core.usecases import operator_bookings as staff_bookings
from booking_core.usecases.deps import Deps
from entrypoints.http.auth import provide_principal
from entrypoints.http.idempotency import idempotent
from entrypoints.http.openapi import IDEMPOTENT_WRITE_ANSWERS, OPERATOR_WRITE_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.structs.fields import IdempotencyKey
from entrypoints.http.structs.operator import OpBooking
from entrypoints.http.structs.operator_bookings import (
    MoveBookingIn,
    OpCancelledOut,
    RecordPaymentIn,
    StaffBookingIn,
    StaffCancelIn,
)

AnyRequest = Request[Any, Any, Any]
_IDEMPOTENT_ANSWERS = IDEMPOTENT_WRITE_ANSWERS | {
    201: ResponseSpec(OpBooking, generate_examples=False, description="The booking as staff see it"),
}


@post("/bookings/", sync_to_thread=True, responses=_IDEMPOTENT_ANSWERS)
def create_staff_booking(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    data: JSONBody[StaffBookingIn],
    idempotency_key: IdempotencyKey = None,
) -> Response[bytes]:
    """Book for a customer: confirmed to pay at the venue, or pending with a hold to pay online."""
    staff, principal = provide_staff(request), provide_principal(request)
    command = data.command()
    return idempotent(
        deps,
        key=idempotency_key,
        principal=principal,
        actor=Actor(user_id=staff.user_id),
        endpoint="POST /api/v1/operator/bookings/",
        body=data,
        run=lambda replayable: staff_bookings.create_staff_booking(
            deps, staff, command, idempotency=replayable
        ),
        render=lambda view: (201, OpBooking.of_op(view)),
    )


@post(
    "/bookings/{booking_id:uuid}/cancel/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def cancel_staff_booking(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    booking_id: FromPath[UUID],
    data: JSONBody[StaffCancelIn | None] = None,
) -> OpCancelledOut:
    """Cancel a booking for the venue, refunding by the policy, all, nothing or an amount."""
    body = data or StaffCancelIn()
    done = staff_bookings.cancel_staff_booking(
        deps,
        provide_staff(request),
        str(booking_id),
        reason=body.reason,
        notes=body.notes,
        refund=body.refund,
        amount=body.amount,
    )
    return OpCancelledOut.of(done)


@post(
    "/bookings/{booking_id:uuid}/move/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def move_staff_booking(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    booking_id: FromPath[UUID],
    data: JSONBody[MoveBookingIn],
) -> OpBooking:
    """Move a live booking to free time of its venue: same id, reference, status and price."""
    view = staff_bookings.move_staff_booking(deps, provide_staff(request), str(booking_id), data.command())
    return OpBooking.of_op(view)


@post(
    "/bookings/{booking_id:uuid}/check-in/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def check_in_booking(
    request: AnyRequest, deps: NamedDependency[Deps], booking_id: FromPath[UUID]
) -> OpBooking:
    """The customer arrived (from 60 minutes before the start to the end)."""
    return OpBooking.of_op(staff_bookings.check_in_booking(deps, provide_staff(request), str(booking_id)))


@post(
    "/bookings/{booking_id:uuid}/no-show/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def mark_booking_no_show(
    request: AnyRequest, deps: NamedDependency[Deps], booking_id: FromPath[UUID]
) -> OpBooking:
    """The customer did not come (a confirmed or paid booking, after its start)."""
    return OpBooking.of_op(staff_bookings.mark_booking_no_show(deps, provide_staff(request), str(booking_id)))


@post(
    "/bookings/{booking_id:uuid}/confirm/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def confirm_staff_booking(
    request: AnyRequest, deps: NamedDependency[Deps], booking_id: FromPath[UUID]
) -> OpBooking:
    """Confirm a pending booking, to be paid at the venue."""
    return OpBooking.of_op(
        staff_bookings.confirm_staff_booking(deps, provide_staff(request), str(booking_id))
    )


@post(
    "/bookings/{booking_id:uuid}/record-payment/",
    sync_to_thread=True,
    status_code=200,
    responses=OPERATOR_WRITE_ANSWERS,
)
def record_venue_payment(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    booking_id: FromPath[UUID],
    data: JSONBody[RecordPaymentIn],
) -> OpBooking:
    """A confirmed booking was paid at the venue (cash, card terminal, other): ``paid``."""
    staff = provide_staff(request)
    return OpBooking.of_op(staff_bookings.record_venue_payment(deps, staff, str(booking_id), data.method))


handlers = [
    create_staff_booking,
    cancel_staff_booking,
    move_staff_booking,
    check_in_booking,
    mark_booking_no_show,
    confirm_staff_booking,
    record_venue_payment,
]
