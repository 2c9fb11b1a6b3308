"""The application factory: routes, error mapping, rate limit, metrics and the OpenAPI document."""

from __future__ import annotations

import secrets
from typing import Protocol

from litestar import Litestar, Router
from litestar.datastructures import State
from litestar.di import Provide

from adapters.identity import TokenAuthenticator
from booking_core.limits import MAX_BODY_BYTES
from booking_core.ports import DataVersions
from booking_core.usecases.deps import Deps
from entrypoints.config import SepaDebtorSettings
from entrypoints.console import console_router, console_static, console_templates
from entrypoints.http.auth import AUTHENTICATOR_STATE
from entrypoints.http.availability_cache import ANSWERS_STATE, AvailabilityAnswers, ThreadedVersions
from entrypoints.http.errors import handle_exception
from entrypoints.http.hashing import HASHING_STATE, HashingPool
from entrypoints.http.inputs import check_request
from entrypoints.http.openapi import TimeOfDaySchemaPlugin, finish, openapi_config, swagger_assets
from entrypoints.http.paging import PUBLIC_URL_STATE
from entrypoints.http.payouts import SEPA_DEBTOR_STATE
from entrypoints.http.ratelimit import RATE_LIMIT_STATE, RateLimit, rate_limit_middleware, request_counters
from entrypoints.http.request_metrics import request_metrics
from entrypoints.http.routes import auth, bookings, client, operator, resources, webhooks
from entrypoints.http.routes.health import health
from entrypoints.http.routes.index import api_index
from entrypoints.http.routes.metrics import MetricsController
from entrypoints.http.throttle import THROTTLE_STATE, Throttle

API_PREFIX = "/api/v1"


class _Settings(Protocol):
    @property
    def rate_limit_per_minute(self) -> int: ...

    @property
    def login_rate_limit_per_minute(self) -> int: ...

    @property
    def redis_url(self) -> str | None: ...

    @property
    def redis_namespace(self) -> str: ...

    @property
    def public_url(self) -> str: ...

    @property
    def sepa_debtor(self) -> SepaDebtorSettings: ...

    @property
    def secret_key(self) -> str | None: ...


class AppServices(Protocol):
    """What the HTTP layer needs from the composition root (``entrypoints.bootstrap.Services``)."""

    @property
    def settings(self) -> _Settings: ...

    @property
    def deps(self) -> Deps: ...

    def ping(self) -> bool: ...

    def version_probe(self) -> DataVersions | None:
        """A new probe of data versions on the event loop, for one application (None: there is none
        for this storage, and the version is read on a handler thread)."""


def create_app(services: AppServices, *, debug: bool = False) -> Litestar:
    """The Litestar application serving the booking API for ``services``."""
    deps = services.deps
    answers = AvailabilityAnswers(services.version_probe() or ThreadedVersions(deps), deps.clock)
    settings = services.settings
    counters = request_counters(settings.redis_url, settings.redis_namespace)
    limit = RateLimit(settings.rate_limit_per_minute, counters)
    api = Router(
        path=API_PREFIX,
        route_handlers=[
            api_index,
            resources.router,
            bookings.router,
            client.router,
            auth.router,
            operator.router,
        ],
        # the API's requests only: the provider's webhook checks its signature over the raw body first
        before_request=check_request,
    )
    # the server's entry points set it (entrypoints.secret_key); an app built without one, in a test,
    # signs its console sessions with a key of its own that nothing else shares
    secret_key = settings.secret_key or secrets.token_urlsafe(48)
    console = console_router(secret_key, settings.public_url)
    app = Litestar(
        route_handlers=[
            api,
            webhooks.router,
            health,
            MetricsController,
            swagger_assets(),
            console,
            console_static(),
        ],
        dependencies={
            "deps": Provide(lambda: deps, use_cache=True, sync_to_thread=False),
        },
        on_startup=[answers.versions.start],
        on_shutdown=[answers.versions.stop, counters.aclose],
        exception_handlers={Exception: handle_exception},
        middleware=[
            request_metrics(app_name="booking", prefix="booking"),
            *rate_limit_middleware(limit),
        ],
        request_max_body_size=MAX_BODY_BYTES,
        openapi_config=openapi_config(),
        template_config=console_templates(),
        plugins=[TimeOfDaySchemaPlugin()],
        state=_state(services, answers, limit),
        debug=debug,
    )
    finish(app, API_PREFIX)
    return app


def _state(services: AppServices, answers: AvailabilityAnswers, limit: RateLimit) -> State:
    return State(
        {
            "deps": services.deps,
            AUTHENTICATOR_STATE: TokenAuthenticator(services.deps.read),
            "ping": services.ping,
            RATE_LIMIT_STATE: limit,
            PUBLIC_URL_STATE: services.settings.public_url,
            THROTTLE_STATE: Throttle(services.settings.login_rate_limit_per_minute, limit.counters),
            HASHING_STATE: HashingPool(),
            ANSWERS_STATE: answers,
            SEPA_DEBTOR_STATE: services.settings.sepa_debtor,
        }
    )
