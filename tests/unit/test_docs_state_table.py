"""The docs' table of the payment state machine (docs/payments.md) is the table the code decides with."""

from __future__ import annotations

from pathlib import Path

from booking_core.state_machine import TABLE, Event, Outcome, Rule, Stage

PAGE = Path(__file__).resolve().parents[2] / "docs" / "payments.md"

WORDS = {
    Outcome.IGNORE: "—",
    Outcome.REFUSE: "400 (status)",
    Outcome.REFUSE_LATE: "400 (time limit)",
    Outcome.WITHDRAW: "400 (status), owner's reason kept",
    Outcome.RECORD_FAILURE: "failure recorded",
    Outcome.RECORD_CANCELLED: "intent cancelled",
    Outcome.BOOK: "**paid**",
    Outcome.KEEP_PAYMENT: "payment kept",
    Outcome.REFUND: "refund",
    Outcome.CANCEL: "**cancelled**",
    Outcome.CANCEL_AND_REFUND: "**cancelled**, refund",
    Outcome.CANCEL_AND_REFUND_PART: "**cancelled**, refund of the part chosen",
    Outcome.CANCEL_KEEPING_PAYMENT: "**cancelled**, payment kept",
    Outcome.EXPIRE: "**cancelled** (expired)",
    Outcome.CONFIRM: "**confirmed**",
    Outcome.NO_SHOW: "**no_show**",
    Outcome.COMPLETE: "**completed**",
    Outcome.MARK_REFUNDED: "**refunded**",
    Outcome.MARK_PART_REFUNDED: "**refunded** (the part chosen)",
    Outcome.RECORD_REFUND: "payment refunded",
    Outcome.RECORD_REST_REFUNDED: "the rest refunded, commission reversed",
    Outcome.REDUCE: "part refunded, commission reduced",
    Outcome.RECORD_PARTIAL_REFUND: "part refunded",
}


def _cell(rule: Rule) -> str:
    if isinstance(rule, Outcome):
        return WORDS[rule]
    return f"{WORDS[rule.then]} if {rule.fact.value}, else {_cell(rule.otherwise)}"


def render() -> str:
    """The table as Markdown: a row per stage, a column per event."""
    lines = ["| stage | " + " | ".join(e.value for e in Event) + " |", "|---" * (len(Event) + 1) + "|"]
    lines += [f"| {s.value} | " + " | ".join(_cell(TABLE[s][e]) for e in Event) + " |" for s in Stage]
    return "\n".join(lines) + "\n"


def test_payments_page_shows_the_table_the_code_decides_with() -> None:
    assert render() in PAGE.read_text(encoding="utf-8")
