"""What a shipment costs, how the shipper labels it, and which papers go with it."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from freightdesk.models.common import Currency
from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.itineraries import CostPlan, DocumentPlan, ShipmentPlan
from freightdesk.server.domain.carrier_directory import Region

KM_PER_MILE = 1.609344
LB_PER_KG = 2.20462


def currency(plan: ShipmentPlan) -> Currency:
    """Europe pays in euros; North America in the currency of a domestic move's country."""
    if plan.region is Region.EUROPE:
        return Currency.EUR
    countries = {stop.place.country for stop in plan.stops}
    if countries == {"CA"}:
        return Currency.CAD
    if countries == {"MX"}:
        return Currency.MXN
    return Currency.USD


_TO_LOCAL = {Currency.USD: 1.0, Currency.CAD: 1.37, Currency.MXN: 17.2, Currency.EUR: 0.92}


def costs(plan: ShipmentPlan, rng: random.Random) -> list[CostPlan]:
    """The freight charge, fuel surcharge and the accessorials the trip ran up, in USD terms
    converted to the shipment's currency."""
    money = currency(plan)
    distance = sum(leg.path.length_km for leg in plan.legs)
    lines: list[tuple[str, float]] = []
    if plan.mode is Mode.TL:
        freight = distance / KM_PER_MILE * rng.uniform(2.1, 3.2) + 150
        lines += [("FREIGHT", freight), ("FUEL_SURCHARGE", freight * rng.uniform(0.15, 0.24))]
        extra_stops = len(plan.stops) - 2
        if extra_stops:
            lines.append(("STOP_OFF", 125.0 * extra_stops))
        for stop in plan.stops:
            free = timedelta(hours=2)
            waited = stop.departure - stop.arrival - free
            if waited > timedelta(minutes=30):
                lines.append(("DETENTION", round(waited.total_seconds() / 3600, 1) * 75.0))
    elif plan.mode is Mode.LTL:
        cwt = plan.weight_kg * LB_PER_KG / 100
        freight = max(145.0, cwt * (9.0 + distance * 0.011) * rng.uniform(0.75, 0.95))
        lines += [("FREIGHT", freight), ("FUEL_SURCHARGE", freight * rng.uniform(0.26, 0.34))]
        if rng.random() < 0.25:
            lines.append(("LIFTGATE", 85.0))
    elif plan.mode is Mode.PARCEL:
        freight = 9.5 + plan.weight_kg * 0.9 + distance * 0.004
        lines += [("FREIGHT", freight), ("FUEL_SURCHARGE", freight * 0.165)]
    elif plan.mode is Mode.RAIL:
        freight = 650 + distance * rng.uniform(0.65, 0.95)
        lines += [("FREIGHT", freight), ("FUEL_SURCHARGE", freight * rng.uniform(0.12, 0.2))]
    elif plan.mode is Mode.OCEAN:
        freight = rng.uniform(1900, 3900)
        lines += [
            ("FREIGHT", freight),
            ("BUNKER_SURCHARGE", rng.uniform(250, 600)),
            ("TERMINAL_HANDLING", rng.uniform(280, 420)),
            ("CUSTOMS_CLEARANCE", 150.0),
        ]
        if len(plan.stops) > 2:
            lines.append(("DRAYAGE", 350 + plan.legs[-1].path.length_km * 2.2))
    elif plan.mode is Mode.AIR:
        chargeable = plan.weight_kg * rng.uniform(1.0, 1.3)
        lines += [
            ("FREIGHT", chargeable * rng.uniform(3.4, 5.6)),
            ("FUEL_SURCHARGE", chargeable * 0.85),
            ("SECURITY_SURCHARGE", chargeable * 0.15),
            ("CUSTOMS_CLEARANCE", 125.0),
        ]
    rate = _TO_LOCAL[money]
    return [CostPlan(kind, round(amount * rate, 2), money.value) for kind, amount in lines]


# --- attributes ------------------------------------------------------------------------------

_BUSINESS_UNITS = ("Retail replenishment", "E-commerce", "Wholesale", "Manufacturing supply")
_TEMPERATURES = ("Ambient", "Ambient", "Ambient", "Chilled")


def attributes(plan: ShipmentPlan, rng: random.Random) -> list[tuple[str, list[str]]]:
    """The shipper's own labels (never shared with carriers)."""
    destination = plan.destination.place
    customer = (
        destination.name.rsplit(" ", 1)[0]
        if destination.kind == "SITE" and not destination.name.startswith("Alder")
        else "Internal transfer"
    )
    unit = (
        "Manufacturing supply"
        if customer == "Internal transfer"
        else rng.choice(_BUSINESS_UNITS[:3])
    )
    found: list[tuple[str, list[str]]] = [
        ("Customer", [customer]),
        ("Business unit", [unit]),
        ("Priority", ["Expedited" if plan.mode is Mode.AIR or rng.random() < 0.12 else "Standard"]),
        ("Commodity", [plan.commodity]),
        ("Cost center", [f"CC-{4100 + rng.randrange(12) * 10}"]),
    ]
    if plan.mode in (Mode.TL, Mode.LTL):
        found.append(("Temperature", [rng.choice(_TEMPERATURES)]))
    tags = []
    if rng.random() < 0.15:
        tags.append("Promotion")
    if rng.random() < 0.1:
        tags.append("Key account")
    if plan.incidents:
        tags.append("Watch")
    if tags:
        found.append(("Tags", tags))
    return found


# --- documents -------------------------------------------------------------------------------


def documents(plan: ShipmentPlan, now: datetime) -> list[DocumentPlan]:
    """The papers that exist by `now`: the bill of lading once the cargo is picked up (the air
    waybill for air), and proof of delivery once a truck shipment is delivered.

    Every ocean and air shipment has its papers; of the truck shipments one in three, as if
    only some carriers sent theirs (each file is written durably, which costs start-up time).
    """
    found: list[DocumentPlan] = []
    if plan.mode in (Mode.TL, Mode.LTL) and plan.number % 3:
        return found
    picked_up = plan.origin.departure
    if plan.mode in (Mode.TL, Mode.LTL, Mode.OCEAN) and picked_up <= now:
        found.append(DocumentPlan("BILL_OF_LADING", picked_up))
    if plan.mode is Mode.AIR and plan.origin.arrival <= now:
        found.append(DocumentPlan("AIRWAY_BILL", plan.origin.arrival))
    if plan.mode in (Mode.TL, Mode.LTL) and plan.delivered_at <= now:
        found.append(DocumentPlan("PROOF_OF_DELIVERY", plan.delivered_at + timedelta(minutes=20)))
    return found
