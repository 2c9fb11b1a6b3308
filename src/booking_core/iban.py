"""International bank account numbers: where commission payouts go, and where they come from."""

from __future__ import annotations

import re

_SHAPE = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")
_BIC = re.compile(r"[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?")


def parse_iban(raw: str) -> str:
    """``raw`` in its compact form (no spaces, upper case) when its check digits hold.

    Raises ValueError with a message for a person: the shape is wrong, or the check digits are.
    """
    compact = raw.replace(" ", "").upper()
    if not _SHAPE.fullmatch(compact):
        raise ValueError("must be an IBAN such as DE89370400440532013000")
    # ISO 13616: move the country and check digits to the end, letters become 10..35, mod 97 is 1.
    digits = "".join(str(int(char, 36)) for char in compact[4:] + compact[:4])
    if int(digits) % 97 != 1:
        raise ValueError("is not a valid IBAN (check digits do not match)")
    return compact


def parse_bic(raw: str) -> str:
    """``raw`` upper-cased when it has the shape of a BIC (8 or 11 characters); else ValueError."""
    bic = raw.strip().upper()
    if not _BIC.fullmatch(bic):
        raise ValueError("must be a BIC of 8 or 11 characters such as COBADEFFXXX")
    return bic
