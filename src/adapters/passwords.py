"""Password hashing with Argon2id (argon2-cffi)."""

from __future__ import annotations

import secrets
from base64 import b64encode

from argon2 import PasswordHasher as _Argon2
from argon2.exceptions import InvalidHashError, VerificationError


class Argon2Passwords:
    """Salted Argon2id hashes with argon2-cffi's recommended parameters."""

    def __init__(self, hasher: _Argon2 | None = None) -> None:
        self._hasher = hasher or _Argon2()
        self._dummy = _unmatchable_hash(self._hasher)

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    def verify_dummy(self, password: str) -> None:
        self.verify(self._dummy, password)


def _unmatchable_hash(hasher: _Argon2) -> str:
    """An encoded hash with ``hasher``'s parameters and random salt and digest.

    Verifying a password against it costs a full hash with those parameters, like a real verify,
    and never matches (short of guessing 256 random bits); writing it costs nothing, unlike hashing.
    """

    def b64(n: int) -> str:
        return b64encode(secrets.token_bytes(n)).decode().rstrip("=")

    kind = hasher.type.name.lower()
    cost = f"m={hasher.memory_cost},t={hasher.time_cost},p={hasher.parallelism}"
    return f"$argon2{kind}$v=19${cost}${b64(hasher.salt_len)}${b64(hasher.hash_len)}"
