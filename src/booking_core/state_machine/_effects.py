"""What a decided event changes: the booking, its payment, and what must follow from it."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal

from booking_core.booking import Booking
from booking_core.outbox import MailTemplate
from booking_core.payments import Payment
from booking_core.state_machine._table import Outcome


class CommissionAction(enum.StrEnum):
    """What happens to the client's commission on the booking."""

    EARN = "earn"  #: record it, unless one is recorded already
    #: the booking's money goes back in full: an open record is reversed, a paid-out one corrected
    REVERSE = "reverse"
    #: part of the money went back: the commission follows what the booking keeps of its payment
    FOLLOW_REFUND = "follow refund"


#: Outcomes that leave everything as it was.
_NO_CHANGE = frozenset({Outcome.IGNORE, Outcome.REFUSE, Outcome.REFUSE_LATE})


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """The result of an event: the booking and payment to store, and what must follow.

    ``refund``: ask the provider to give ``payment`` back (one request per payment, ever): all it
    still holds, or ``refund_amount`` of it (a part the venue chose).
    ``settles_refund``: the provider reported ``payment`` refunded; stop asking.
    ``refusal``: the event is refused with this message (400); nothing is stored, unless
    ``keep_when_refused`` (a lapsed hold's owner asking to cancel: the reason is recorded).
    """

    outcomes: tuple[Outcome, ...]
    booking: Booking
    payment: Payment | None
    refund: bool = False
    refund_amount: Decimal | None = None
    settles_refund: bool = False
    commission: tuple[CommissionAction, ...] = ()
    notices: tuple[MailTemplate, ...] = ()
    refusal: str | None = None
    keep_when_refused: bool = False

    @property
    def outcome(self) -> Outcome:
        """The last outcome (a refund reported before its success has two)."""
        return self.outcomes[-1]

    @property
    def changes_anything(self) -> bool:
        """Whether there is anything to store."""
        return self.keep_when_refused or not all(o in _NO_CHANGE for o in self.outcomes)

    def then(self, later: Change) -> Change:
        """This change followed by ``later``, which was decided on this one's result."""
        return Change(
            outcomes=self.outcomes + later.outcomes,
            booking=later.booking,
            payment=later.payment,
            refund=self.refund or later.refund,
            refund_amount=later.refund_amount if later.refund else self.refund_amount,
            settles_refund=self.settles_refund or later.settles_refund,
            commission=self.commission + later.commission,
            notices=self.notices + later.notices,
            refusal=later.refusal,
            keep_when_refused=later.keep_when_refused,
        )
