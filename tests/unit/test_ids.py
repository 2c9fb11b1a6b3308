"""The identifiers of the real id adapter: shapes and the spread of reference codes."""

from __future__ import annotations

import uuid
from collections import Counter

from adapters.ids import CROCKFORD_ALPHABET, REFERENCE_CODE_LENGTH, RandomIds


def test_reference_codes_are_eight_crockford_letters_each_letter_about_equally_likely() -> None:
    ids = RandomIds()
    codes = [ids.reference_code() for _ in range(4000)]
    assert all(len(code) == REFERENCE_CODE_LENGTH for code in codes)
    counts = Counter("".join(codes))
    assert set(counts) == set(CROCKFORD_ALPHABET)
    # 32,000 letters over 32 symbols: 1,000 each expected; a biased mapping would miss this by far
    assert all(800 < n < 1200 for n in counts.values()), counts
    assert len(set(codes)) == len(codes)


def test_ids_are_uuid4_and_tokens_are_long_and_distinct() -> None:
    ids = RandomIds()
    assert uuid.UUID(ids.new_id()).version == 4
    tokens = {ids.new_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(t) >= 40 for t in tokens)
