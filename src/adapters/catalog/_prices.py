"""Prices against their currency: ISO 4217's minor unit and the amounts the payment provider takes.

Run on a converted catalog, since a price's decimals depend on the currency of its resource: JPY has
none, EUR two, KWD three (and Stripe takes KWD only in multiples of 0.010). A price the provider
could not charge exactly would be rounded at every booking; the catalog refuses it instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from adapters.catalog._spec import CatalogError, CatalogSpec, ResourceSpec
from booking_core.money import CurrencyUnit, UnknownCurrency
from booking_core.ports import Currencies


def check_prices(spec: CatalogSpec, currencies: Currencies) -> None:
    """Raise :class:`CatalogError` at the first currency or price its resource's currency refuses."""
    for v, venue in enumerate(spec.venues):
        for r, resource in enumerate(venue.resources):
            where = f"venues[{v}].resources[{r}]"
            try:
                unit = currencies.unit(resource.currency)
            except UnknownCurrency as exc:
                raise CatalogError(f"{where}.currency: {exc.message}") from None
            for key, price in _prices(resource):
                problem = _problem(price, unit)
                if problem is not None:
                    raise CatalogError(f"{where}.{key}: {problem}")


def _prices(resource: ResourceSpec) -> Iterator[tuple[str, Decimal]]:
    """Every price of ``resource`` with its key, in document order."""
    yield "base_price", resource.base_price
    for key in ("min_price", "max_price"):
        bound = getattr(resource.dynamic_pricing, key)
        if bound is not None:
            yield f"dynamic_pricing.{key}", bound
    for s, schedule in enumerate(resource.schedules):
        for t, slot in enumerate(schedule.time_slots):
            yield f"schedules[{s}].time_slots[{t}].price_per_unit", slot.price_per_unit


def _problem(price: Decimal, unit: CurrencyUnit) -> str | None:
    if price != price.quantize(unit.minor):
        if unit.exponent == 0:
            return f"must be a whole amount: {unit.code} has no decimals (ISO 4217)"
        return f"must have at most {unit.exponent} decimal places: the minor unit of {unit.code} (ISO 4217)"
    if not unit.is_chargeable(price):
        return (
            f"must be a multiple of {unit.quantum} {unit.code}, the smallest amount the payment "
            "provider charges in it"
        )
    return None
