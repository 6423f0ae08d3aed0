"""Put the demo into an empty database, through the areas' own domain functions.

Everything is written in one transaction: a failure leaves the database empty, so the next
start tries again. The plans and the PDFs are computed before the transaction opens, so the
database is locked only for the writes.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.common import (
    Address,
    CustomAttribute,
    GeoCoordinates,
    LogisticsIdentifier,
    Measure,
    Money,
)
from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.documents import DocumentCreate, DocumentIdentifier, DocumentMode
from freightdesk.models.stop_locations import StopLocationInput
from freightdesk.models.tracking import (
    AccessGroup,
    AppointmentWindow,
    Co2EmissionIntensity,
    Cost,
    Emissions,
    EventCode,
    EventDetails,
    ExceptionStatus,
    Plan,
    RolloverDetails,
    RouteInfo,
    RouteSegment,
    RouteStop,
    RouteStopLocation,
    ShipmentException,
    SpeedUnit,
    TrackedShipmentEvent,
    TrackedShipmentInput,
    TrackedShipmentPosition,
    VehicleInfo,
    VehicleType,
)
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.demo import documents_pdf, pushes
from freightdesk.server.demo.geography import PlaceKind
from freightdesk.server.demo.itineraries import (
    CostTier,
    ShipmentPlan,
    StopPlan,
    fixes_until,
    floor_hour,
    new_id,
    states_until,
)
from freightdesk.server.demo.lanes import OWN_SITES, Site
from freightdesk.server.demo.portfolio import ACCOUNT_GROUPS, plan_shipments
from freightdesk.server.domain import shipments as tracking
from freightdesk.server.domain.documents import create_document
from freightdesk.server.domain.file_store import FileStore, file_store
from freightdesk.server.domain.stop_locations import create_stop_location
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant, set_feature
from freightdesk.server.domain.vehicles import seed_vehicles
from freightdesk.server.domain.yard import seed_yard
from freightdesk.server.tables.account_groups import AccountGroupRow
from freightdesk.server.tables.stop_locations import StopLocationRow
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.webhooks import configs as push_configs
from freightdesk.server.webhooks import secret_box

log = logging.getLogger(__name__)

DEMO_TENANT_NAME = "FreightDesk Demo"
# Trucks in the demo's capacity co-op pool (available vehicles search).
DEMO_VEHICLES = 2000
DEMO_ADMIN = ("demo", "demo")
# The name the desktop app's service layer looks for when it rotates the sandbox's secret
# (`freightdesk client rotate --demo "FreightDesk desktop"`).
DESKTOP_CLIENT_NAME = "FreightDesk desktop"


@dataclass(frozen=True)
class DemoCredentials:
    client_id: str
    client_secret: str


@dataclass(frozen=True)
class _Paper:
    plan: ShipmentPlan
    type: str
    at: datetime
    content: bytes


def database_is_empty(context: ServiceContext) -> bool:
    """No tenant at all: the database has never been used."""
    with context.sessions() as session:
        return session.scalar(select(Tenant.id).limit(1)) is None


def seed_demo(
    context: ServiceContext, seed: int = 7, *, now: datetime | None = None
) -> DemoCredentials | None:
    """Fill an empty database with the demo tenant and its data; None (and no change) when
    the database already has a tenant. `now` (default: the current time) is rounded down to
    the hour; shipments are placed around it."""
    if not database_is_empty(context):
        return None
    began = time.perf_counter()
    anchor = floor_hour(now or utcnow())
    plans = plan_shipments(seed, anchor)
    papers = _papers(plans, seed)
    planned = time.perf_counter()
    with transaction(context.sessions) as session:
        # A second service started at the same moment may have won the race.
        if session.scalar(select(Tenant.id).limit(1)) is not None:
            return None
        tenant = ensure_tenant(session, DEMO_TENANT_NAME, *DEMO_ADMIN).tenant
        app, secret = create_client_app(session, tenant.id, DESKTOP_CLIENT_NAME)
        credentials = DemoCredentials(app.id, secret)
        rng = random.Random(seed ^ 0xDE70)
        for code, name in ACCOUNT_GROUPS:
            session.add(AccountGroupRow(tenant_id=tenant.id, code=code, name=name))
        locations = _stop_locations(session, tenant.id, anchor)
        sealed = secret_box.box(context)  # secrets never stored in clear, not even briefly
        for body in pushes.configurations(rng):
            push_configs.save(session, tenant.id, body, sealed)
        _tracked_shipments(session, tenant.id, plans, locations, anchor, seed)
        _documents(session, file_store(context), tenant.id, papers)
        # The planning tools have something to show: a co-op truck pool and yard sites.
        set_feature(session, tenant, "capacityCoop", True)
        seed_vehicles(session, DEMO_VEHICLES, seed=seed, now=anchor)
        seed_yard(session, tenant.id, seed=seed, now=anchor)
    log.info(
        "demo data ready: %d shipments, %d documents (planned in %.1f s, stored in %.1f s)",
        len(plans),
        len(papers),
        planned - began,
        time.perf_counter() - planned,
    )
    return credentials


def _tracked_shipments(
    session: Session,
    tenant_id: int,
    plans: list[ShipmentPlan],
    locations: dict[str, str],
    anchor: datetime,
    seed: int,
) -> list[str]:
    """The shipments, what their carriers reported by `anchor`, and their positions."""
    ids = tracking.create_shipments(
        session,
        tenant_id,
        [_shipment(plan, locations, anchor) for plan in plans],
        created=[min(plan.booked_at, anchor) for plan in plans],
    )
    for plan, shipment_id in zip(plans, ids, strict=True):
        _history(session, shipment_id, plan, anchor, random.Random(seed * 7919 + plan.number))
    for mode in Mode:
        tracks = {
            shipment_id: positions
            for plan, shipment_id in zip(plans, ids, strict=True)
            if plan.mode is mode and (positions := _positions(plan, anchor))
        }
        if tracks:
            tracking.add_positions_bulk(session, tracks, source=mode.value)
    return ids


def add_planned_shipments(
    session: Session, tenant_id: int, plans: list[ShipmentPlan], anchor: datetime, seed: int
) -> list[str]:
    """More shipments in the demo tenant, with what happened to them by `anchor`, as the
    seeding writes them (to measure the simulator with a big fleet); returns their ids."""
    return _tracked_shipments(
        session, tenant_id, plans, saved_locations(session, tenant_id), anchor, seed
    )


def saved_locations(session: Session, tenant_id: int) -> dict[str, str]:
    """The shipper's sites saved as the tenant's stop locations: site key -> location id."""
    keys = {key.upper(): key for key in OWN_SITES}
    rows = session.execute(
        select(StopLocationRow.supplied_id, StopLocationRow.id).where(
            StopLocationRow.tenant_id == tenant_id,
            StopLocationRow.supplied_id.in_(list(keys)),
        )
    )
    return {keys[supplied]: str(location) for supplied, location in rows if supplied in keys}


def shipment_input(
    plan: ShipmentPlan, locations: dict[str, str], now: datetime
) -> TrackedShipmentInput:
    """The tracked shipment of a plan as the shipper records it at `now` (costs are actual
    once it is delivered)."""
    return _shipment(plan, locations, now)


def carrier_event(
    plan: ShipmentPlan, index: int, received_by: datetime, rng: random.Random
) -> TrackedShipmentEvent:
    """The event `plan.events[index]` as its carrier reports it (id and report delay drawn
    from `rng`, received by `received_by` at the latest)."""
    return _event(plan, index, received_by, rng)


def _documents(session: Session, store: FileStore, tenant_id: int, papers: list[_Paper]) -> None:
    for paper in papers:
        create_document(
            session,
            store,
            tenant_id=tenant_id,
            user=DEMO_ADMIN[0],
            company=DEMO_TENANT_NAME,
            metadata=_document_metadata(paper),
            content=paper.content,
            file_name=_file_name(paper),
            content_type="application/pdf",
            created_at=paper.at,
        )


# --- stop locations ------------------------------------------------------------------------------


def _stop_locations(session: Session, tenant_id: int, anchor: datetime) -> dict[str, str]:
    """The shipper's own sites as saved stop locations; site key -> location id."""
    found: dict[str, str] = {}
    for key, site in OWN_SITES.items():
        place = site.place
        body = StopLocationInput.model_validate(
            {
                "name": place.name,
                "address": {
                    "addressLines": [place.street],
                    "city": place.city,
                    "state": place.state,
                    "postalCode": place.postal_code,
                    "country": place.country,
                },
                "coordinates": {"latitude": place.latitude, "longitude": place.longitude},
                "geofence": {"type": "DISTANCE", "units": "METERS", "value": 400},
                "openingHours": [_hours(days, opens, closes) for days, opens, closes in site.hours],
                "specialOpeningHours": _holidays(site, anchor),
                "suppliedId": key.upper(),
            }
        )
        found[key] = str(create_stop_location(session, tenant_id, body).id)
    return found


_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _hours(days: str, opens: str, closes: str) -> dict[str, object]:
    flags = zip(_DAYS, days, strict=True)
    hours: dict[str, object] = {f"applies{name}": flag == "1" for name, flag in flags}
    return hours | {"opens": opens, "closes": closes}


def _holidays(site: Site, anchor: datetime) -> list[dict[str, object]]:
    """Closed on the next Christmas Day and New Year's Day (and US Thanksgiving in the US)."""
    year = anchor.year if anchor.month < 12 or anchor.day < 25 else anchor.year + 1
    # Hours without opening and closing times on the days they apply mean closed.
    closed = {"hours": {f"applies{name}": True for name in _DAYS}}
    days = [f"{year}-12-25", f"{year + 1}-01-01"]
    if site.place.country == "US":
        november = datetime(anchor.year, 11, 1)
        first_thursday = 1 + (3 - november.weekday()) % 7
        thanksgiving = datetime(anchor.year, 11, first_thursday + 21)
        if thanksgiving.date() < anchor.date():
            november = datetime(anchor.year + 1, 11, 1)
            first_thursday = 1 + (3 - november.weekday()) % 7
            thanksgiving = datetime(anchor.year + 1, 11, first_thursday + 21)
        days.append(thanksgiving.date().isoformat())
    return [closed | {"validFrom": day, "validThrough": day} for day in sorted(days)]


# --- the tracked shipment ------------------------------------------------------------------------


def _shipment(
    plan: ShipmentPlan, locations: dict[str, str], anchor: datetime
) -> TrackedShipmentInput:
    delivered = plan.delivered_at <= anchor
    tier = CostTier.ACTUAL if delivered else CostTier.PLANNED
    invoice = [LogisticsIdentifier(type="REFERENCE_NUMBER", value=f"INV-{plan.number:06d}")]
    return TrackedShipmentInput(
        identifiers=[
            LogisticsIdentifier(type=kind, value=value) for kind, value in plan.identifiers
        ],
        attributes=[
            CustomAttribute(name=name, value=values[0])
            if len(values) == 1
            else CustomAttribute(name=name, values=values)
            for name, values in plan.attributes
        ],
        access_groups=[AccessGroup(id=plan.access_group)] if plan.access_group else [],
        costs=[
            Cost(
                identifiers=invoice if delivered else [],
                type=cost.type,
                total_cost=Money(amount=cost.amount, currency=cost.currency),
                tier=tier.value,
            )
            for cost in plan.costs
        ],
        plan=Plan(expected_transportation_modes=plan.planned_modes),
        route_info=RouteInfo(
            stops=[_stop(stop, locations) for stop in plan.stops],
            route_segments=[
                RouteSegment(
                    id=leg.id,
                    from_stop_id=plan.stops[leg.origin].id,
                    to_stop_id=plan.stops[leg.destination].id,
                    identifiers=[LogisticsIdentifier(type=k, value=v) for k, v in leg.identifiers],
                    transportation_mode=leg.mode,
                    emissions=_emissions(
                        plan, leg.path.length_km, leg.co2_kg_per_km, leg.vehicle, leg.load_factor
                    ),
                )
                for leg in plan.legs
            ],
        ),
    )


def _stop(stop: StopPlan, locations: dict[str, str]) -> RouteStop:
    place = stop.place
    identifiers = []
    if place.unlocode:
        identifiers.append(LogisticsIdentifier(type="UN_LOCODE", value=place.unlocode))
    if place.iata:
        identifiers.append(LogisticsIdentifier(type="IATA_CODE", value=place.iata))
    saved = locations.get(place.key) if place.kind is PlaceKind.SITE else None
    window = stop.appointment
    return RouteStop(
        id=stop.id,
        type=stop.type,
        name=place.name,
        location=RouteStopLocation(
            address=Address(
                address_lines=[place.street] if place.street else [],
                city=place.city,
                state=place.state,
                postal_code=place.postal_code,
                country=place.country,
            ),
            coordinates=GeoCoordinates(latitude=place.latitude, longitude=place.longitude),
            id=uuid.UUID(saved) if saved else None,
            identifiers=identifiers,
        ),
        appointment_window=AppointmentWindow(
            start_date_time=window[0] if window else None,
            end_date_time=window[1] if window else None,
            local_time_zone_identifier=place.time_zone,
        ),
    )


def _emissions(
    plan: ShipmentPlan, km: float, intensity: float, vehicle: str, load_factor: float
) -> Emissions:
    return Emissions(
        cargo_weight=Measure(value=round(plan.weight_kg, 1), unit="KG"),
        co2_emission_intensity=Co2EmissionIntensity(unit="KG_PER_KM", value=round(intensity, 3)),
        distance=Measure(value=round(km, 1), unit="KM"),
        load_factor=load_factor,
        total_co2_emissions=Measure(value=round(km * intensity, 1), unit="KG"),
        vehicle_info=VehicleInfo(type=VehicleType(enum_value=vehicle)),
    )


# --- what the carriers reported by now ------------------------------------------------------------


def _history(
    session: Session, shipment_id: str, plan: ShipmentPlan, anchor: datetime, rng: random.Random
) -> None:
    source = plan.mode.value
    events = [
        _event(plan, event_index, anchor, rng)
        for event_index, event in enumerate(plan.events)
        if event.at <= anchor
    ]
    if events:
        tracking.add_events(session, shipment_id, events, source)
    for move in states_until(plan, anchor):
        stop_id = str(plan.stops[move.stop].id) if move.stop is not None else None
        tracking.set_state(session, shipment_id, move.type, move.at, stop_id=stop_id, source=source)
    for incident in plan.incidents:
        if incident.start > anchor:
            continue
        resolved = incident.end is not None and incident.end <= anchor
        tracking.upsert_exception(
            session,
            shipment_id,
            ShipmentException(
                id=new_id(rng),
                type=incident.type,
                status=ExceptionStatus.CLOSED if resolved else ExceptionStatus.OPEN,
                severity=incident.severity,
                description=incident.description,
                stop_id=plan.stops[incident.stop].id if incident.stop is not None else None,
                created_date_time=incident.start,
                resolved_date_time=incident.end if resolved else None,
            ),
            source,
        )
    # Estimates for the stops still ahead, the next stop last so that it becomes the
    # shipment's next ETA.
    ahead = [stop for stop in plan.stops if stop.arrival > anchor]
    for stop in reversed(ahead):
        hours_out = (stop.arrival - anchor).total_seconds() / 3600
        error = timedelta(minutes=round(rng.gauss(0, min(240.0, 4 + hours_out * 1.5))))
        tracking.set_eta(
            session,
            shipment_id,
            stop.arrival + error,
            stop_id=str(stop.id),
            source=source,
            description=f"Estimated arrival at {stop.place.name}",
        )


def _event(
    plan: ShipmentPlan, index: int, anchor: datetime, rng: random.Random
) -> TrackedShipmentEvent:
    event = plan.events[index]
    details = None
    if event.ocean_code or event.rollover:
        rollover = None
        if event.rollover:
            reason, old_vessel, old_voyage, vessel, voyage, old_at, new_at = event.rollover
            rollover = RolloverDetails(
                reason=reason,
                previous_vessel_name=old_vessel,
                previous_voyage_number=old_voyage,
                vessel_name=vessel,
                voyage_number=voyage,
                previous_departure_date_time=old_at,
                new_departure_date_time=new_at,
            )
        details = EventDetails(
            ocean=EventCode(code=event.ocean_code) if event.ocean_code else None,
            rollover_details=rollover,
        )
    latency = timedelta(seconds=round(rng.uniform(60, 1500)))
    return TrackedShipmentEvent(
        id=new_id(rng),
        type=event.type,
        date_time=event.at,
        description=event.description,
        planned_date_time=event.planned,
        received_date_time=min(event.at + latency, anchor),
        stop_id=plan.stops[event.stop].id if event.stop is not None else None,
        route_segment_id=plan.legs[event.leg].id if event.leg is not None else None,
        details=details,
    )


def _positions(plan: ShipmentPlan, anchor: datetime) -> list[TrackedShipmentPosition]:
    # Trusted, already-valid values: skip validation, there are tens of thousands of them.
    return [
        TrackedShipmentPosition.model_construct(
            date_time=fix.at,
            latitude=fix.latitude,
            longitude=fix.longitude,
            speed=fix.speed_kmh,
            speed_unit=SpeedUnit.KILOMETERS_PER_HOUR,
            heading=fix.heading,
        )
        for fix in fixes_until(plan, anchor)
    ]


# --- documents -----------------------------------------------------------------------------------

_DOCUMENT_MODES = {
    Mode.TL: DocumentMode.TL,
    Mode.LTL: DocumentMode.LTL,
    Mode.PARCEL: DocumentMode.PARCEL,
    Mode.RAIL: DocumentMode.RAIL,
    Mode.OCEAN: DocumentMode.OCEAN,
    Mode.AIR: DocumentMode.AIR,
}
_RECEIVERS = ("M. Alvarez", "J. Chen", "R. Okafor", "S. Novak", "K. Brennan", "L. Moreau")


def _papers(plans: list[ShipmentPlan], seed: int) -> list[_Paper]:
    rng = random.Random(seed ^ 0xD0C5)
    found: list[_Paper] = []
    for plan in plans:
        for document in plan.documents:
            if document.kind == "PROOF_OF_DELIVERY":
                damaged = any(i.type == "DAMAGE" for i in plan.incidents)
                remarks = "2 cartons damaged, noted at delivery" if damaged else "No exceptions"
                content = documents_pdf.proof_of_delivery(plan, rng.choice(_RECEIVERS), remarks)
            else:
                content = documents_pdf.bill_of_lading(plan)
            found.append(_Paper(plan, document.kind, document.at, content))
    return found


def _document_metadata(paper: _Paper) -> DocumentCreate:
    plan = paper.plan
    keys = {"BILL_OF_LADING", "PRO", "PURCHASE_ORDER", "AIR_WAYBILL", "CONTAINER_ID"}
    keys |= {"HOUSE_BILL_OF_LADING", "BOOKING_NUMBER"}
    identifiers = [
        DocumentIdentifier(type=kind, value=value)
        for kind, value in plan.identifiers
        if kind in keys
    ]
    return DocumentCreate(
        name=_file_name(paper),
        type=paper.type,
        mode=_DOCUMENT_MODES[plan.mode],
        identifiers=identifiers,
        parsed_data={
            "carrierName": plan.carrier.name,
            "carrierScac": plan.carrier.scac,
            "pieces": plan.pieces,
            "weightKg": plan.weight_kg,
            "origin": plan.origin.place.name,
            "destination": plan.destination.place.name,
        },
    )


def _file_name(paper: _Paper) -> str:
    prefix = {"BILL_OF_LADING": "BOL", "PROOF_OF_DELIVERY": "POD", "AIRWAY_BILL": "AWB"}
    number = next(value for _kind, value in paper.plan.identifiers)
    return f"{prefix.get(paper.type, paper.type)}-{number}.pdf"
