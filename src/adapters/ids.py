"""Identifiers, reference codes and tokens from the operating system's randomness."""

from __future__ import annotations

import secrets
import uuid

#: Crockford's base32 alphabet: digits and letters without I, L, O and U.
CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
REFERENCE_CODE_LENGTH = 8


class RandomIds:
    """UUID4 ids, 8-character Crockford base32 reference codes and URL-safe tokens."""

    def new_id(self) -> str:
        return str(uuid.uuid4())

    def reference_code(self) -> str:
        # One read of the OS's randomness for all characters; 256 is a multiple of the alphabet's 32
        # letters, so ``byte % 32`` picks each letter with the same chance.
        return "".join(CROCKFORD_ALPHABET[b % 32] for b in secrets.token_bytes(REFERENCE_CODE_LENGTH))

    def new_token(self) -> str:
        return secrets.token_urlsafe(32)
