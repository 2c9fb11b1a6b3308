"""Who is calling: the credentials a caller presents, and the port that turns them into an actor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from booking_core.accounts import Actor, Principal


@dataclass(frozen=True, slots=True, kw_only=True)
class Credentials:
    """What a caller presents: an API token and, for a client acting for one of its users, that user's
    id in this service (``user_id``) or in the client's own system (``external_user_id``)."""

    token: str
    user_id: str | None = None
    external_user_id: str | None = None


class Authenticator(Protocol):
    """Turns a caller's credentials into who it is and whom it acts for, or raises the domain error
    that says why it cannot."""

    def principal(self, credentials: Credentials, *, unconfirmed_ok: bool = False) -> Principal:
        """The owner of the live token of ``credentials``.

        An unknown or revoked token raises ``NotAuthenticated``; the token of a user whose email is
        not confirmed raises ``EmailNotConfirmed`` unless ``unconfirmed_ok``.
        """

    def actor(self, principal: Principal, credentials: Credentials, *, user_required: bool) -> Actor:
        """Whom a request of ``principal`` acts for.

        A user token acts for its user. A client token acts for the user named by exactly one of the
        user ids of ``credentials`` (``AmbiguousUser`` for both, ``MappingNotFound`` for one not
        mapped to the client); naming neither, it acts for the client as a whole, unless
        ``user_required`` (``BadRequest``).
        """
