"""Deprecated: the booking state machine's old name; import :mod:`booking_core.state_machine`.

``booking_core`` is a library with a stable public API (see the domain library's page), and this
package was public under this name: it stays, re-exporting the same objects, for one release, and
warns on import. It will be removed in the release after.
"""

import warnings

from booking_core.state_machine import (
    PROVIDER_EVENTS,
    TABLE,
    CancelRequest,
    Change,
    Circumstances,
    CommissionAction,
    Event,
    Fact,
    Outcome,
    Rule,
    Stage,
    When,
    decide,
    require_payable,
    stage_of,
)

warnings.warn(
    "booking_core.lifecycle is deprecated: import booking_core.state_machine instead",
    DeprecationWarning,
    stacklevel=2,
)

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
