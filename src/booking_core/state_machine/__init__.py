"""The booking state machine: one table of (stage, event) outcomes, and the decision it drives.

Every path that changes a booking or its payment (cancel, provider webhook, hold expiry, the
worker's sweeps, operator commands) locks the booking, re-reads it, and asks :func:`decide`.
"""

from booking_core.state_machine._decide import CancelRequest, Circumstances, decide, require_payable, stage_of
from booking_core.state_machine._effects import Change, CommissionAction
from booking_core.state_machine._table import PROVIDER_EVENTS, TABLE, Event, Fact, Outcome, Rule, Stage, When

__all__ = [
    "PROVIDER_EVENTS",
    "TABLE",
    "CancelRequest",
    "Change",
    "Circumstances",
    "CommissionAction",
    "Event",
    "Fact",
    "Outcome",
    "Rule",
    "Stage",
    "When",
    "decide",
    "require_payable",
    "stage_of",
]
