"""The demo's commercial side: rate requests with their quotes, bookings in every status,
packages waiting to ship, and rail legs of the demo's intermodal moves.

Written by the seeding's COMMERCE step (one transaction, see `seed.continue_demo`) through
the areas' own domain functions, with the carriers' answers given at once instead of by the
background workers: the step writes a past. Its times are placed before the demo's anchor
(the seeding's hour), so that what the workers do once it is committed is what they would
have done by then (an expired booking expires, nothing else moves), except the booking of
the slow carrier, which waits for its answer for days.

The choices (lanes, carriers, loads) come from the seed; ids, quote numbers and prices of
the market are the services' own.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.booking import (
    BookingInput,
    CarrierDecision,
    CarrierProfileInput,
    CarrierResponse,
    RejectionReason,
)
from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.packaging import PackageStatus, PackageWrite
from freightdesk.models.rail import RailShipmentCreate
from freightdesk.models.rating import RateRequestCreate
from freightdesk.server.demo.itineraries import ShipmentPlan
from freightdesk.server.demo.lanes import CUSTOMERS, OWN_SITES, Site
from freightdesk.server.domain import booking_carriers as bookings
from freightdesk.server.domain import carrier_answers, carrier_profiles, packaging, rail
from freightdesk.server.domain import rating_quotes as rating
from freightdesk.server.domain.carrier_directory import Region
from freightdesk.server.tables.rating import RateQuoteRow, RateRequestRow, RateSolicitationRow
from freightdesk.server.tables.tracking import Shipment

# A carrier of the demo that takes days to answer a booking, so that one stays PROCESSING.
SLOW_CARRIER = "CDRF"
SLOW_CARRIER_NAME = "Cedar Run Freight"
# The built-in carrier that puts bookings under review (carrier_profiles.CATALOGUE).
REVIEWING_CARRIER = "GLKT"
# How long a booking awaiting its carrier's answer stands before it expires.
OFFER_STANDS = timedelta(days=2)
# Rail legs tracked for the demo's intermodal moves.
RAIL_LEGS = 4
PACKAGES = 8


@dataclass(frozen=True)
class _Deal:
    """One rate request of the demo and what became of it."""

    mode: str  # TL or LTL
    hours_ago: int  # when it was made, before the anchor
    outcome: str  # QUOTED, BOOKED, UNDER_REVIEW, PROCESSING, REJECTED, CANCELLED, EXPIRED


# What the Rates and Bookings panes show: every booking status, requests still to book.
_DEALS = (
    _Deal("TL", 30, "BOOKED"),
    _Deal("LTL", 26, "BOOKED"),
    _Deal("TL", 20, "UNDER_REVIEW"),
    _Deal("TL", 9, "PROCESSING"),
    _Deal("TL", 14, "REJECTED"),
    _Deal("LTL", 12, "CANCELLED"),
    _Deal("TL", 80, "EXPIRED"),
    _Deal("TL", 3, "QUOTED"),
    _Deal("LTL", 2, "QUOTED"),
    _Deal("TL", 1, "QUOTED"),
)
# Each accepted booking starts tracking a shipment (booking_tracking.initiate_tracking).
BOOKED_SHIPMENTS = sum(1 for deal in _DEALS if deal.outcome == "BOOKED")


def fill(
    session: Session, tenant_id: int, seed: int, anchor: datetime, plans: list[ShipmentPlan]
) -> list[str]:
    """The commercial data of the demo tenant; returns the ids of the shipments its accepted
    bookings started tracking."""
    rng = random.Random(seed ^ 0xB00C)
    carrier_profiles.upsert_profile(
        session,
        tenant_id,
        SLOW_CARRIER,
        CarrierProfileInput.model_validate(
            {
                "name": SLOW_CARRIER_NAME,
                "behaviour": "SLOW",
                "responseDelaySeconds": 5 * 86400,
                "modes": ["TL"],
            }
        ),
    )
    lanes = _lanes(rng)
    tracked = [
        shipment_id
        for number, deal in enumerate(_DEALS)
        if (shipment_id := _deal(session, tenant_id, deal, lanes[number], anchor, rng, number))
    ]
    _packages(session, tenant_id, rng)
    _rail_legs(session, tenant_id, plans, anchor)
    return tracked


# --- rate requests and bookings ----------------------------------------------------------


def _lanes(rng: random.Random) -> list[tuple[Site, Site]]:
    own = sorted(
        (s for s in OWN_SITES.values() if s.place.region is Region.NORTH_AMERICA),
        key=lambda s: s.place.key,
    )
    customers = sorted(
        (s for s in CUSTOMERS.values() if s.place.region is Region.NORTH_AMERICA),
        key=lambda s: s.place.key,
    )
    lanes: list[tuple[Site, Site]] = []
    while len(lanes) < len(_DEALS):
        origin, destination = rng.choice(own), rng.choice(customers)
        if origin.place.metro != destination.place.metro and (origin, destination) not in lanes:
            lanes.append((origin, destination))
    return lanes


def _location(site: Site, coordinates: str = "coordinates") -> dict[str, Any]:
    """A site as a stop of a rate request (or of a package: `geoCoordinates`)."""
    place = site.place
    return {
        "name": place.name,
        "address": place.address(),
        coordinates: place.coordinates(),
        "timeZone": place.time_zone,
    }


_COMMODITIES = ("Housewares", "Small kitchen appliances", "Packaged food", "Paper goods")


def _request_body(
    deal: _Deal, lane: tuple[Site, Site], made: datetime, rng: random.Random, number: int
) -> RateRequestCreate:
    origin, destination = lane
    commodity = rng.choice(_COMMODITIES)
    pickup = (made + timedelta(days=rng.randint(1, 3))).date()
    detail: dict[str, Any] = {
        "routeInfo": {
            "stops": [
                {"type": "PICKUP", "location": _location(origin)},
                {"type": "DELIVERY", "location": _location(destination)},
            ]
        },
        "pickupDate": pickup.isoformat(),
    }
    if deal.mode == "LTL":
        detail["shippingDetails"] = {"ltl": {}}
        detail["shipmentDetails"] = [
            {
                "handlingUnits": [
                    {
                        "description": commodity,
                        "freightClass": rng.choice(("70", "85", "100")),
                        "quantity": rng.randint(2, 6),
                        "handlingUnitType": "PALLET",
                        "weight": {"value": rng.randrange(400, 1400, 50), "unit": "LB"},
                    }
                ]
            }
        ]
    else:
        trailer = "REEFER" if commodity == "Packaged food" else "DRY_VAN"
        detail["shippingDetails"] = {"truck": {"trailerType": trailer}}
    customer = destination.place.name.rsplit(" ", 1)[0]
    return RateRequestCreate.model_validate(
        {
            "name": f"{origin.place.city} to {destination.place.city}, {commodity.lower()}",
            "rateDetail": detail,
            "attributes": [{"name": "Customer", "values": [customer]}],
            "identifiers": [{"type": "PURCHASE_ORDER", "value": f"PO-{71400 + number * 37}"}],
        }
    )


def _deal(
    session: Session,
    tenant_id: int,
    deal: _Deal,
    lane: tuple[Site, Site],
    anchor: datetime,
    rng: random.Random,
    number: int,
) -> str | None:
    """One rate request, quoted, and its booking taken as far as `deal.outcome` says;
    the id of the shipment an accepted booking started tracking."""
    made = anchor - timedelta(hours=deal.hours_ago)
    body = _request_body(deal, lane, made, rng, number)
    request = rating.create_rate_request(session, tenant_id, body, made)
    quoted = made + timedelta(seconds=1)
    pending = session.scalars(
        select(RateSolicitationRow.id).where(
            RateSolicitationRow.rate_request_id == request.id,
            RateSolicitationRow.pending.is_(True),
        )
    ).all()
    rating.answer_solicitations(session, request.id, list(pending), quoted)
    if deal.outcome == "QUOTED":
        return None
    booked = quoted + timedelta(minutes=rng.randint(10, 50))
    quote = _chosen_quote(session, request, deal.outcome)
    expires = booked + timedelta(hours=4) if deal.outcome == "EXPIRED" else None
    if deal.outcome in ("PROCESSING", "UNDER_REVIEW"):
        # Awaiting the carrier: a shipper sets how long the offer stands (the Bookings pane
        # counts it down; without one its Expires column was empty for every booking).
        expires = booked + OFFER_STANDS
    booking = bookings.create_booking(
        session, tenant_id, _booking_body(quote, body, expires, rng), booked
    )
    booking_id = uuid.UUID(booking.id)
    answered = booked + timedelta(minutes=rng.randint(3, 25))
    if deal.outcome in ("UNDER_REVIEW", "EXPIRED"):
        carrier_answers.answer_booking(session, booking.id, answered)
    elif deal.outcome == "REJECTED":
        refusal = CarrierResponse(
            decision=CarrierDecision.REJECT,
            rejection_reason=RejectionReason.NO_CAPACITY,
            carrier_rejection_notes="No truck free on this lane for that pickup date.",
        )
        bookings.carrier_response(session, tenant_id, booking_id, refusal, answered)
    elif deal.outcome == "CANCELLED":
        rating.cancel_rate_request(session, tenant_id, uuid.UUID(request.id), answered)
    elif deal.outcome == "BOOKED":
        key = "PRO" if deal.mode == "LTL" else "BILL_OF_LADING"
        acceptance = CarrierResponse.model_validate(
            {
                "decision": "ACCEPT",
                "carrierProvidedIdentifiers": [
                    {"type": key, "value": f"{quote.scac}{rng.randrange(10**9):09d}"}
                ],
                "capacityProviderReferenceKeys": [
                    {"key": "CARRIER_LOAD_NUMBER", "values": [f"L{rng.randrange(10**7):07d}"]}
                ],
            }
        )
        row = bookings.carrier_response(session, tenant_id, booking_id, acceptance, answered)
        return row.master_shipment_id
    return None


def _chosen_quote(session: Session, request: RateRequestRow, outcome: str) -> RateQuoteRow:
    """The cheapest contract quote of the carrier the outcome needs (any for the others)."""
    wanted = {"UNDER_REVIEW": REVIEWING_CARRIER, "EXPIRED": REVIEWING_CARRIER}.get(outcome)
    if outcome == "PROCESSING":
        wanted = SLOW_CARRIER
    quotes = session.scalars(
        select(RateQuoteRow)
        .where(RateQuoteRow.rate_request_id == request.id, RateQuoteRow.quote_type == "CONTRACT")
        .order_by(RateQuoteRow.total_usd, RateQuoteRow.scac)
    ).all()
    behaving = {REVIEWING_CARRIER, SLOW_CARRIER}
    for quote in quotes:
        if quote.scac == wanted or (wanted is None and quote.scac not in behaving):
            return quote
    raise LookupError(f"no {wanted or 'prompt'} quote for a {outcome} booking")


def _booking_body(
    quote: RateQuoteRow, request: RateRequestCreate, expires: datetime | None, rng: random.Random
) -> BookingInput:
    return BookingInput.model_validate(
        {
            "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": quote.scac},
            "rateIdentifiers": quote.document["rateIdentifiers"],
            "expirationDateTime": expires.isoformat() if expires else None,
            "notes": rng.choice(
                ("Dock 4, call 30 min ahead", "Appointment required", "Two-person delivery")
            ),
            "attributes": [a.wire() for a in request.attributes],
        }
    )


# --- packages --------------------------------------------------------------------------------

_PRODUCTS = (
    ("SKU-10442", "Stand mixer", 12.5),
    ("SKU-20117", "Ceramic dinner set", 9.0),
    ("SKU-30981", "Frozen berries case", 11.0),
    ("SKU-41220", "Lithium battery pack", 6.5),
    ("SKU-52006", "Paper towels 24-pack", 7.0),
    ("SKU-60314", "Cast iron skillet", 4.2),
)
# The workflow each package has reached: a few of every status.
_PACKAGE_STATUSES = (
    PackageStatus.UNASSIGNED,
    PackageStatus.UNASSIGNED,
    PackageStatus.UNASSIGNED,
    PackageStatus.ASSIGNED,
    PackageStatus.ASSIGNED,
    PackageStatus.ASSIGNED,
    PackageStatus.CONFIRMED,
    PackageStatus.CONFIRMED,
)

_STEPS = {
    PackageStatus.UNASSIGNED: (),
    PackageStatus.ASSIGNED: (PackageStatus.ASSIGNED,),
    PackageStatus.CONFIRMED: (PackageStatus.ASSIGNED, PackageStatus.CONFIRMED),
}


def _packages(session: Session, tenant_id: int, rng: random.Random) -> None:
    lanes = _lanes(rng)
    for number in range(PACKAGES):
        origin, destination = lanes[number % len(lanes)]
        sku, product, kg = _PRODUCTS[number % len(_PRODUCTS)]
        units = rng.randint(4, 40)
        accessorials: list[dict[str, Any]] = []
        if product.startswith("Frozen"):
            temperatures = {"minimum": -25, "maximum": -18, "unit": "CELSIUS"}
            accessorials.append({"type": "REFRIGERATED", "temperatureRange": temperatures})
        if product.startswith("Lithium"):
            hazmat = {
                "unNumber": "UN3480",
                "hazardClass": "9",
                "packingGroup": "II",
                "properShippingName": "Lithium ion batteries",
            }
            accessorials.append({"type": "HAZMAT", "hazmatDetail": hazmat})
        if number % 4 == 1:
            accessorials.append({"type": "LIFTGATE", "stop": "DELIVERY"})
        body: dict[str, Any] = {
            "items": [
                {
                    "identifiers": [{"type": "SKU", "value": sku}],
                    "orderIdentifier": {"type": "PURCHASE_ORDER", "value": f"PO-{88100 + number}"},
                    "unitQuantity": units,
                }
            ],
            "identifiers": [{"type": "PACKAGE_ID", "value": f"PKG-{240100 + number * 7}"}],
            "isStackable": number % 3 != 0,
            "package": {
                "type": "PALLET",
                "dimensions": {"length": 48, "width": 40, "height": 36 + number * 4, "unit": "IN"},
                "weight": {"value": round(units * kg * 2.20462 + 45, 1), "unit": "LB"},
            },
            "accessorials": accessorials,
            "originLocation": _location(origin, "geoCoordinates"),
            "destinationLocation": _location(destination, "geoCoordinates"),
        }
        row = packaging.create_package(session, tenant_id, PackageWrite.model_validate(body))
        # Along the workflow one step at a time, as a planner moves it.
        for step in _STEPS[_PACKAGE_STATUSES[number]]:
            write = PackageWrite.model_validate({**body, "status": step.value})
            packaging.replace_package(session, row, write)


# --- rail legs -------------------------------------------------------------------------------


def _rail_legs(
    session: Session, tenant_id: int, plans: list[ShipmentPlan], anchor: datetime
) -> None:
    """Rail legs of the demo's intermodal moves under way or just arrived, each linked to its
    tracked shipment (masterShipmentId) and found by its waybill or bill of lading."""
    rail_plans = [p for p in plans if p.mode is Mode.RAIL]
    moving = [
        p
        for p in rail_plans
        if p.origin.departure <= anchor < p.destination.arrival + timedelta(days=1)
    ]
    chosen = (moving + [p for p in rail_plans if p not in moving])[:RAIL_LEGS]
    primaries = {plan.identifiers[0][1]: plan for plan in chosen}
    ids = dict(
        session.execute(
            select(Shipment.primary_identifier, Shipment.id).where(
                Shipment.tenant_id == tenant_id, Shipment.primary_identifier.in_(list(primaries))
            )
        ).all()
    )
    for plan in chosen:
        identifiers = dict(plan.identifiers)
        equipment = next(
            (kind, value)
            for kind, value in plan.identifiers
            if kind in ("CONTAINER_ID", "RAIL_CAR_ID", "TRAILER_ID")
        )
        body = {
            "equipmentIdentifiers": [{"type": equipment[0], "value": equipment[1]}],
            "shipmentIdentifiers": [
                {"type": kind, "value": identifiers[kind]}
                for kind in ("BILL_OF_LADING", "WAYBILL")
                if kind in identifiers
            ],
            "trackingStartDateTime": plan.origin.arrival.isoformat(),
            "masterShipmentId": ids.get(plan.identifiers[0][1]),
            "shipmentStops": [
                {
                    "stopNumber": number,
                    "stopName": stop.place.name,
                    "geoCoordinates": stop.place.coordinates(),
                }
                for number, stop in ((1, plan.origin), (2, plan.destination))
            ],
        }
        rail.create_leg(session, tenant_id, RailShipmentCreate.model_validate(body))
