"""What a rate request (and a booking's expiry) must keep, beyond its model's shapes: dates
and expiries within the planning horizon, a pickup first and a delivery last, truck or LTL
and not both, LTL freight with a weight and a class, accessorials that fit the mode and the
trailer, a country and a state or province that exist.

The local service refuses a request with these problems; the app runs the same functions to
show each problem beside its field before sending. Problems are `(field path, message)` pairs
with the interface's paths; the service answers the first, the app shows them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

from freightdesk.models.addresses import country_code, subdivision_code
from freightdesk.models.common import Address
from freightdesk.models.rating import (
    OPEN_TRAILERS,
    REQUESTABLE_ACCESSORIALS,
    TRUCKLOAD_ONLY_ACCESSORIALS,
    RateDetail,
    RateShippingDetails,
    RateStop,
    RateStopType,
)

Problems = list[tuple[str, str]]

STOPS = "rateDetail.routeInfo.stops"
ACCESSORIALS = "rateDetail.shippingDetails.accessorials"
# Countries whose states and provinces are known (and so checked).
SUBDIVIDED = ("US", "CA", "MX")

# How far ahead dates and expirations may lie: a year, which no freight plan exceeds and which
# keeps every computed date (delivery dates, quote expiries) within the calendar.
HORIZON = timedelta(days=366)


def as_utc(value: datetime) -> datetime | None:
    """The instant in UTC, or None when it lies outside the calendar once converted."""
    try:
        return value.astimezone(UTC)
    except OverflowError:
        return None


def future_problem(value: datetime, now: datetime) -> str | None:
    """Why an expiration date-time is refused, or None: it must lie within the next year."""
    instant = as_utc(value)
    if instant is not None and instant <= now:
        return "must be in the future"
    if instant is None or instant > now + HORIZON:
        return "must be within a year from now"
    return None


def date_problem(day: date, today: date) -> str | None:
    """Why a pickup or delivery date is refused, or None (a day of slack for time zones)."""
    if day < today - timedelta(days=1):
        return "must not be in the past"
    if day > today + HORIZON:
        return "must be within a year from now"
    return None


def mode_problems(shipping: RateShippingDetails | None) -> Problems:
    if shipping is not None and shipping.truck is not None and shipping.ltl is not None:
        return [("rateDetail.shippingDetails", "give truck (truckload) or ltl, not both")]
    return []


def stop_type_problems(stops: Sequence[RateStop]) -> Problems:
    problems: Problems = []
    if stops[0].type is not RateStopType.PICKUP:
        problems.append((f"{STOPS}[0].type", "the first stop must be a PICKUP"))
    if stops[-1].type is not RateStopType.DELIVERY:
        problems.append((f"{STOPS}[{len(stops) - 1}].type", "the last stop must be a DELIVERY"))
    return problems


def region_problems(address: Address | None, path: str) -> Problems:
    """A country that exists, and a state or province known in it (US, CA, MX)."""
    if address is None:
        return []
    country = country_code(address.country)
    if country is None:
        return [(f"{path}.address.country", f"{address.country!r} is not a country")]
    if address.state and country in SUBDIVIDED and subdivision_code(country, address.state) is None:
        return [(f"{path}.address.state", f"{address.state!r} is not known in {country}")]
    return []


def ltl_problems(detail: RateDetail) -> Problems:
    """LTL is rated by weight and class: every handling unit has a weight, and a class or the
    dimensions it follows from."""
    units = [
        (f"rateDetail.shipmentDetails[{i}].handlingUnits[{j}]", unit)
        for i, shipment in enumerate(detail.shipment_details)
        for j, unit in enumerate(shipment.handling_units)
    ]
    if not units:
        return [
            ("rateDetail.shipmentDetails", "LTL is rated by weight and class: add handling units")
        ]
    problems: Problems = []
    for path, unit in units:
        if unit.weight is None:
            problems.append((f"{path}.weight", "is required to rate LTL"))
        if unit.freight_class is None and unit.dimensions is None:
            problems.append(
                (f"{path}.freightClass", "is required to rate LTL (or give dimensions)")
            )
    return problems


def accessorial_problems(shipping: RateShippingDetails | None) -> Problems:
    """Accessorials that are rated, and that fit the mode and the trailer."""
    if shipping is None:
        return []
    ltl = shipping.ltl is not None and shipping.truck is None
    trailer = shipping.truck.trailer_type.value if shipping.truck else "DRY_VAN"
    problems: Problems = []
    for index, accessorial in enumerate(shipping.accessorials):
        path, code = f"{ACCESSORIALS}[{index}].code", accessorial.code
        name = REQUESTABLE_ACCESSORIALS.get(code, code)
        if code not in REQUESTABLE_ACCESSORIALS:
            known = ", ".join(REQUESTABLE_ACCESSORIALS)
            problems.append((path, f"{code!r} is not an accessorial we rate; use one of {known}"))
        elif ltl and code in TRUCKLOAD_ONLY_ACCESSORIALS:
            problems.append((path, f"{name} is a truckload service, not offered for LTL"))
        elif not ltl and code == "REFRIGERATED" and trailer != "REEFER":
            problems.append((path, f"{name} needs a reefer trailer (truck.trailerType REEFER)"))
        elif not ltl and code == "TARP" and trailer not in OPEN_TRAILERS:
            problems.append(
                (path, f"{name} goes with an open trailer such as a flatbed (truck.trailerType)")
            )
    return problems
