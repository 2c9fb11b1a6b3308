"""One hierarchy of domain errors. The web layer maps each class to one HTTP status."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class DomainError(Exception):
    """Base of every error the domain raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ValidationFailed(DomainError):
    """Input breaks a rule. ``field`` is None for rules that concern the request as a whole."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    @property
    def errors(self) -> Mapping[str, Sequence[str]]:
        """Errors keyed by field name, ``non_field_errors`` for request-wide rules."""
        return {self.field or "non_field_errors": [self.message]}


class SlotUnavailable(ValidationFailed):
    """The requested time overlaps blocking time or lies outside bookable windows."""

    def __init__(self, message: str = "The requested time slot is not available.") -> None:
        super().__init__(message)


class TooManyUnpaid(ValidationFailed):
    """The user holds as many unpaid bookings as one may (``Deps.max_unpaid_per_user``)."""

    def __init__(self) -> None:
        super().__init__("Too many unpaid bookings: pay or cancel one first.")


class BadRequest(DomainError):
    """A request the service refuses with a plain ``{"error": ...}`` message."""


class InvalidTransition(BadRequest):
    """A booking status change that the state machine does not allow."""


class AlreadyPaid(BadRequest):
    """A payment was asked for a booking that is paid already."""


class AmbiguousUser(BadRequest):
    """A client named the user it acts for twice over: by our user id and by its own id.

    The message says it in the domain's words; the web layer names its headers instead.
    """

    def __init__(self, message: str = "send exactly one of the user id or the external user id") -> None:
        super().__init__(message)


class NoOpenPaymentIntent(BadRequest):
    """A booking that has no payment intent which can still be paid (``booking_id`` names it)."""

    def __init__(self, booking_id: str, status: str) -> None:
        super().__init__(f"Booking {booking_id} ({status}) has no open payment intent; create one first.")
        self.booking_id = booking_id


class NotFound(DomainError):
    """The object does not exist or is not visible to the caller."""


class MappingNotFound(NotFound):
    """A client's external id has no mapping; reported as ``{"error": ...}``."""


class PermissionDenied(DomainError):
    """The caller is known but may not do this."""

    def __init__(self, message: str = "You do not have permission to perform this action.") -> None:
        super().__init__(message)


class Forbidden(PermissionDenied):
    """Refused with a plain ``{"error": ...}`` message, e.g. an unapproved venue mapping."""


class EmailNotConfirmed(PermissionDenied):
    """The token of a self-registered user whose email address is not confirmed yet."""

    def __init__(self, message: str = "Confirm your email address first.") -> None:
        super().__init__(message)


class NotAuthenticated(DomainError):
    """No token, or a token that is unknown or revoked."""


class IdempotencyConflict(DomainError):
    """An Idempotency-Key was reused with another request body."""


class PaymentProviderError(DomainError):
    """The payment provider failed or could not be reached."""


class StorageUnavailable(DomainError):
    """The database could not be reached or failed for reasons outside the request."""


class DeliveryFailed(DomainError):
    """A notification did not go out. ``permanent``: trying the same message again cannot help."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


class MailDeliveryFailed(DeliveryFailed):
    """An email did not go out (the mail transports raise it)."""


class TransientConflict(StorageUnavailable):
    """A concurrent transaction got in the way (deadlock, serialization failure).

    Use cases decorated with :func:`booking_core.usecases.retry.retried` run again from the start;
    only when every attempt met one does it reach the caller, as storage that is unavailable.
    """
