"""A carrier's quote and the market index for a planned rate request, priced by the rate
engine (`rate_engine`) and written as the interface spells them."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from freightdesk.models.booking import CarrierProfile
from freightdesk.models.rating import (
    QuoteType,
    RatingMode,
)
from freightdesk.server.db import iso
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.domain import rate_engine as engine
from freightdesk.server.tables.rating import RateQuoteRow, RateRequestRow

__all__ = ["QUOTE_VALIDITY", "market_quotes", "price_quote"]

QUOTE_VALIDITY = {QuoteType.SPOT: timedelta(hours=24), QuoteType.CONTRACT: timedelta(days=30)}


_SOURCE = "CAPACITY_PROVIDER"


def _truckload_of(plan: dict[str, Any]) -> engine.Truckload:
    return engine.Truckload(
        trailer_type=plan["trailerType"],
        partial=plan["partial"],
        trailer_length_ft=plan["trailerLengthFt"],
        weight_lb=plan["weightLb"],
        extra_stops=plan["extraStops"],
        accessorials=tuple(plan["accessorials"]),
    )


def _pieces_of(plan: dict[str, Any]) -> list[engine.LtlPiece]:
    return [engine.LtlPiece(float(weight), str(cls)) for weight, cls in plan["pieces"]]


def _price(plan: dict[str, Any], carrier: engine.CarrierTerms, quote_type: str) -> engine.Price:
    spot = quote_type == QuoteType.SPOT.value
    if plan["mode"] == RatingMode.TL.value:
        return engine.price_truckload(
            carrier,
            _truckload_of(plan),
            plan["miles"],
            spot=spot,
            lane=plan["lane"],
            week=plan["week"],
        )
    price = engine.price_ltl(carrier, _pieces_of(plan), plan["miles"], plan["accessorials"])
    if not spot:
        return price
    # LTL spot (volume) pricing moves with the lane's weekly market, less than truckload does.
    factor = 0.92 + 0.20 * engine.unit_interval(
        "ltl-spot", plan["lane"], plan["week"], carrier.scac
    )
    return replace(
        price, line_haul=round(price.line_haul * factor, 2), fuel=round(price.fuel * factor, 2)
    )


def _money(usd: float, currency: str) -> dict[str, Any]:
    return {"amount": engine.convert(usd, currency), "currency": currency}


def _distance(miles: float, unit: str) -> dict[str, Any]:
    value = miles * engine.KM_PER_MILE if unit == "KM" else miles
    return {"value": round(value, 1), "unit": unit}


def price_quote(
    plan: dict[str, Any],
    request: RateRequestRow,
    profile: CarrierProfile,
    quote_type: str,
    now: datetime,
) -> RateQuoteRow:
    carrier = carrier_profiles.terms(profile)
    price = _price(plan, carrier, quote_type)
    currency = carrier.currency
    unit = carrier.distance_unit
    rate_per_distance = None
    if price.rate_per_mile is not None:
        per_unit = price.rate_per_mile / (engine.KM_PER_MILE if unit == "KM" else 1.0)
        rate_per_distance = {
            "amount": round(per_unit * engine.UNITS_PER_USD[currency], 4),
            "currency": currency,
        }
    expires = min(request.expires_at, now + QUOTE_VALIDITY[QuoteType(quote_type)])
    number = f"{profile.scac}-{quote_type[0]}{uuid.uuid4().hex[:10].upper()}"
    pickup = date.fromisoformat(plan["pickupDate"])
    ltl = plan["mode"] == RatingMode.LTL.value
    quote_id = str(uuid.uuid4())
    document: dict[str, Any] = {
        "id": quote_id,
        "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": profile.scac},
        "carrierName": profile.name,
        "quoteType": quote_type,
        "transportationMode": plan["mode"],
        "serviceLevel": price.service_level,
        "totalRate": _money(price.total, currency),
        "lineHaul": _money(price.line_haul, currency),
        "fuelSurcharge": _money(price.fuel, currency),
        "accessorialCharges": [
            {"code": c.code, "description": c.description, "amount": _money(c.usd, currency)}
            for c in price.accessorials
        ],
        "distance": _distance(price.miles, unit),
        "transitDays": price.transit_days,
        "estimatedDeliveryDate": engine.delivery_date(
            pickup, price.transit_days, business_days=ltl
        ).isoformat(),
        "expirationDateTime": iso(expires),
        "rateIdentifiers": [{"source": _SOURCE, "type": quote_type, "value": number}],
        "createdDateTime": iso(now),
    }
    if rate_per_distance is not None:
        document["ratePerDistance"] = rate_per_distance
    if price.billed_weight_lb:
        metric = profile.system_of_measurement.value == "METRIC"
        weight = (
            engine.kilograms(price.billed_weight_lb, "LB") if metric else price.billed_weight_lb
        )
        document["billedWeight"] = {"value": round(weight, 1), "unit": "KG" if metric else "LB"}
    return RateQuoteRow(
        id=quote_id,
        tenant_id=request.tenant_id,
        rate_request_id=request.id,
        scac=profile.scac,
        quote_type=quote_type,
        quote_number=number,
        total_usd=price.total,
        expires_at=expires,
        document=document,
        created_at=now,
    )


def market_quotes(plan: dict[str, Any], now: datetime) -> list[dict[str, Any]]:
    quotes = []
    for quote_type in plan["quoteTypes"]:
        spot = quote_type == QuoteType.SPOT.value
        if plan["mode"] == RatingMode.TL.value:
            market = engine.market_truckload(
                _truckload_of(plan), plan["miles"], spot=spot, lane=plan["lane"], week=plan["week"]
            )
        else:
            market = engine.market_ltl(
                _pieces_of(plan), plan["miles"], spot=spot, lane=plan["lane"], week=plan["week"]
            )
        quotes.append(
            {
                "id": str(uuid.uuid4()),
                "providerName": "FreightDesk Market Index",
                "quoteType": quote_type,
                "transportationMode": plan["mode"],
                "lowRate": _money(market.low, "USD"),
                "averageRate": _money(market.average, "USD"),
                "highRate": _money(market.high, "USD"),
                "averageRatePerDistance": {
                    "amount": round(market.average / max(market.miles, 1.0), 4),
                    "currency": "USD",
                },
                "distance": _distance(market.miles, "MI"),
                "sampleSize": market.sample_size,
                "createdDateTime": iso(now),
            }
        )
    return quotes
