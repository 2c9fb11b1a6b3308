"""The :class:`~booking_core.ports.identity.Authenticator` of stored API tokens.

A token is looked up by its hash in the storage's own tables (``Tokens.principal``, the statement of
the accounts repository), and a client's user by its mapping (``UserMappings``), each on a read-only
unit of work: on PostgreSQL one statement in autocommit, no transaction around it. The rules (an
unconfirmed email, a client's user ids) are the core's (``booking_core.usecases.auth``), so every
storage answers alike; a user token's actor needs no storage at all.
"""

from __future__ import annotations

from collections.abc import Callable

from booking_core.accounts import Actor, Principal
from booking_core.errors import NotAuthenticated
from booking_core.ports import UnitOfWork
from booking_core.ports.identity import Credentials
from booking_core.usecases.auth import actor_in, principal_in


class TokenAuthenticator:
    """Identifies the callers of API tokens stored through ``reads`` (``Deps.read``)."""

    def __init__(self, reads: Callable[[], UnitOfWork]) -> None:
        self._reads = reads

    def principal(self, credentials: Credentials, *, unconfirmed_ok: bool = False) -> Principal:
        """See :meth:`booking_core.ports.identity.Authenticator.principal`."""
        if not credentials.token:
            raise NotAuthenticated("Authentication credentials were not provided.")
        with self._reads() as uow:
            return principal_in(uow, credentials.token, unconfirmed_ok=unconfirmed_ok)

    def actor(self, principal: Principal, credentials: Credentials, *, user_required: bool) -> Actor:
        """See :meth:`booking_core.ports.identity.Authenticator.actor`."""
        if principal.client_id is None:
            return Actor(user_id=principal.user_id)  # no lookup, so no unit of work
        with self._reads() as uow:
            return actor_in(
                uow,
                principal,
                user_id=credentials.user_id,
                external_user_id=credentials.external_user_id,
                required=user_required,
            )
