"""Put the demo into an empty database, through the areas' own domain functions.

`seed_demo` does it all at once (tests, benchmarks). The service does it in two parts (see
`progress`): `begin_demo` before it answers, then `continue_demo` in a worker while it
answers, in steps of one transaction each, every step moving the progress row on in its own
transaction so that a seeding stopped anywhere resumes without duplicates. The shipments go
in batches (`FIRST_BATCH`, then `BATCH`) through the domain's bulk writers (one statement per
table and batch); plans are made just before their batch, and the PDFs before the documents'
transaction, so the database is locked only for the writes.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
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
from freightdesk.server.demo import commerce, documents_pdf, partners, pushes
from freightdesk.server.demo.geography import PlaceKind
from freightdesk.server.demo.itineraries import (
    CostTier,
    ShipmentPlan,
    StopPlan,
    fixes_until,
    new_id,
    states_until,
)
from freightdesk.server.demo.lanes import OWN_SITES, Site
from freightdesk.server.demo.portfolio import ACCOUNT_GROUPS, COUNTS, iter_plans
from freightdesk.server.demo.progress import (
    DEMO_ADMIN,
    DEMO_TENANT_NAME,
    DESKTOP_CLIENT_NAME,
    DemoCredentials,
    Stage,
    begin_demo,
    claim,
    pending,
)
from freightdesk.server.domain import shipments as tracking
from freightdesk.server.domain.documents import create_document
from freightdesk.server.domain.file_store import FileStore, file_store
from freightdesk.server.domain.stop_locations import create_stop_location
from freightdesk.server.domain.tenants import set_feature
from freightdesk.server.domain.vehicles import seed_vehicles
from freightdesk.server.domain.yard import seed_yard
from freightdesk.server.tables.account_groups import AccountGroupRow
from freightdesk.server.tables.stop_locations import StopLocationRow
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment
from freightdesk.server.webhooks import secret_box

log = logging.getLogger(__name__)

__all__ = [
    "DEMO_ADMIN",
    "DEMO_TENANT_NAME",
    "DESKTOP_CLIENT_NAME",
    "DemoCredentials",
    "continue_demo",
    "seed_demo",
]

# Trucks in the demo's capacity co-op pool (available vehicles search).
DEMO_VEHICLES = 2000
# Shipments of the first transaction (what the app's list shows first), then of each next one.
FIRST_BATCH = 50
BATCH = 64


@dataclass(frozen=True)
class _Paper:
    plan: ShipmentPlan
    type: str
    at: datetime
    content: bytes


def seed_demo(
    context: ServiceContext, seed: int = 7, *, now: datetime | None = None
) -> DemoCredentials | None:
    """Fill an empty database with the demo tenant and its data; None (and no change) when
    the database already has a tenant. `now` (default: the current time) is rounded down to
    the hour; shipments are placed around it."""
    credentials = begin_demo(context, seed, now=now)
    if credentials is not None:
        continue_demo(context)
    return credentials


class _Halted(Exception):
    """The service is stopping: the step under way is abandoned (its transaction undone)."""


def continue_demo(context: ServiceContext, halt: threading.Event | None = None) -> bool:
    """Write what is left of a demo begun with `begin_demo`, one transaction per step;
    returns whether the demo is complete (False: `halt` was set, or another seeder has the
    next step). Nothing is written twice: each step claims the progress row as it found it."""
    with context.sessions() as session:
        row = pending(session)
        if row is None:
            return True
        tenant_id, seed, anchor = row.tenant_id, row.seed, row.anchor
        stage, ready = Stage(row.stage), row.shipments_ready
    began = time.perf_counter()
    plans = _Plans(seed, anchor)
    try:
        if stage is Stage.SETUP:
            total = plans.total + commerce.BOOKED_SHIPMENTS + partners.SHARED_WITH_DEMO
            if not _setup(context, tenant_id, seed, anchor, total):
                return False
            stage = Stage.SHIPMENTS
        if stage is Stage.SHIPMENTS:
            locations: dict[str, str] | None = None
            while ready < plans.total:
                _check(halt)
                batch = plans.upto(ready + (FIRST_BATCH if ready == 0 else BATCH))[ready:]
                with transaction(context.sessions) as session:
                    progress = claim(session, tenant_id, Stage.SHIPMENTS, ready)
                    if progress is None:
                        return False
                    if locations is None:
                        locations = saved_locations(session, tenant_id)
                    ids = _tracked_shipments(
                        session, tenant_id, batch, locations, anchor, seed, halt
                    )
                    # Stamped again as the batch commits: on a loaded machine a batch takes
                    # seconds, and an app syncing meanwhile moves its cursor past the first
                    # stamps (its sync overlaps 2 s), so it would never fetch those shipments.
                    session.execute(
                        update(Shipment)
                        .where(Shipment.id.in_(ids))
                        .values(last_modified_at=utcnow())
                    )
                    ready += len(batch)
                    progress.shipments_ready = ready
                    if ready >= plans.total:
                        progress.stage = Stage.COMMERCE.value
            stage = Stage.COMMERCE
        if stage is Stage.COMMERCE:
            _check(halt)
            moved = _commerce(context, tenant_id, seed, anchor, plans, ready)
            if moved is None:
                return False
            ready = moved
        papers = _papers(plans.upto(plans.total), seed, halt)
        with transaction(context.sessions) as session:
            progress = claim(session, tenant_id, Stage.EXTRAS, ready)
            if progress is None:
                return False
            _documents(session, file_store(context), tenant_id, papers, halt)
            # The planning tools have something to show: a co-op truck pool and yard sites.
            tenant = session.get(Tenant, tenant_id)
            assert tenant is not None
            set_feature(session, tenant, "capacityCoop", True)
            seed_vehicles(session, DEMO_VEHICLES, seed=seed, now=anchor)
            seed_yard(session, tenant_id, seed=seed, now=anchor)
            # A partner company, so that the Sharing tab has rows on a first run.
            shared = partners.seed_partner(session, tenant_id, seed, anchor, add_planned_shipments)
            progress.shipments_ready = ready + shared
            progress.stage = Stage.READY.value
            progress.finished_at = utcnow()
    except _Halted:
        log.info("demo data: stopped with %d of %d shipments ready", ready, plans.total)
        return False
    log.info(
        "demo data ready: %d shipments, %d documents (%.1f s, of which planning %.1f s)",
        plans.total,
        len(papers),
        time.perf_counter() - began,
        plans.seconds,
    )
    return True


class _Plans:
    """The demo's plans, made as far as they are asked for (the order is the seed's)."""

    def __init__(self, seed: int, anchor: datetime) -> None:
        self.total = sum(COUNTS.values())
        self.seconds = 0.0
        self._made: list[ShipmentPlan] = []
        self._next: Iterator[ShipmentPlan] = iter_plans(seed, anchor)

    def upto(self, count: int) -> list[ShipmentPlan]:
        began = time.perf_counter()
        while len(self._made) < min(count, self.total):
            self._made.append(next(self._next))
        self.seconds += time.perf_counter() - began
        return self._made[:count]


def _check(halt: threading.Event | None) -> None:
    if halt is not None and halt.is_set():
        raise _Halted


def _setup(
    context: ServiceContext, tenant_id: int, seed: int, anchor: datetime, total: int
) -> bool:
    """The tenant's account groups, saved stop locations and push configurations."""
    with transaction(context.sessions) as session:
        progress = claim(session, tenant_id, Stage.SETUP, 0)
        if progress is None:
            return False
        rng = random.Random(seed ^ 0xDE70)
        for code, name in ACCOUNT_GROUPS:
            session.add(AccountGroupRow(tenant_id=tenant_id, code=code, name=name))
        _stop_locations(session, tenant_id, anchor)
        sealed = secret_box.box(context)  # secrets never stored in clear, not even briefly
        pushes.save(session, tenant_id, rng, sealed)
        progress.shipments_total = total
        progress.stage = Stage.SHIPMENTS.value
    return True


def _commerce(
    context: ServiceContext,
    tenant_id: int,
    seed: int,
    anchor: datetime,
    plans: _Plans,
    ready: int,
) -> int | None:
    """Rate requests, bookings, packages and rail legs (see `commerce`), in one transaction;
    the shipments ready after it (None: another seeder has the step)."""
    began = time.perf_counter()
    with transaction(context.sessions) as session:
        progress = claim(session, tenant_id, Stage.COMMERCE, ready)
        if progress is None:
            return None
        ids = commerce.fill(session, tenant_id, seed, anchor, plans.upto(plans.total))
        # Stamped as they commit, as the batches are (an app syncing meanwhile fetches them).
        session.execute(
            update(Shipment).where(Shipment.id.in_(ids)).values(last_modified_at=utcnow())
        )
        progress.shipments_ready = ready + len(ids)
        progress.stage = Stage.EXTRAS.value
    log.info("demo data: commercial data in %.2f s", time.perf_counter() - began)
    return ready + len(ids)


def _tracked_shipments(
    session: Session,
    tenant_id: int,
    plans: list[ShipmentPlan],
    locations: dict[str, str],
    anchor: datetime,
    seed: int,
    halt: threading.Event | None = None,
) -> list[str]:
    """The shipments, what their carriers reported by `anchor`, and their positions. A batch
    takes seconds on a busy machine: `halt` (the service stopping) is looked at between its
    parts, and the batch's transaction, rolled back, is written again at the next start."""
    ids = tracking.create_shipments(
        session,
        tenant_id,
        [_shipment(plan, locations, anchor) for plan in plans],
        created=[min(plan.booked_at, anchor) for plan in plans],
    )
    _check(halt)
    tracking.add_histories(
        session,
        [
            _history(shipment_id, plan, anchor, random.Random(seed * 7919 + plan.number))
            for plan, shipment_id in zip(plans, ids, strict=True)
        ],
    )
    for mode in Mode:
        _check(halt)
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


def _documents(
    session: Session,
    store: FileStore,
    tenant_id: int,
    papers: list[_Paper],
    halt: threading.Event | None = None,
) -> None:
    for paper in papers:
        _check(halt)
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
                "address": place.address(),
                "coordinates": place.coordinates(),
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
    plan: ShipmentPlan, km: float, intensity: float, vehicle: str | None, load_factor: float
) -> Emissions:
    return Emissions(
        cargo_weight=Measure(value=round(plan.weight_kg, 1), unit="KG"),
        co2_emission_intensity=Co2EmissionIntensity(unit="KG_PER_KM", value=round(intensity, 3)),
        distance=Measure(value=round(km, 1), unit="KM"),
        load_factor=load_factor,
        total_co2_emissions=Measure(value=round(km * intensity, 1), unit="KG"),
        vehicle_info=VehicleInfo(type=VehicleType(enum_value=vehicle)) if vehicle else None,
    )


# --- what the carriers reported by now ------------------------------------------------------------


def _history(
    shipment_id: str, plan: ShipmentPlan, anchor: datetime, rng: random.Random
) -> tracking.History:
    source = plan.mode.value
    events = [
        _event(plan, event_index, anchor, rng)
        for event_index, event in enumerate(plan.events)
        if event.at <= anchor
    ]
    states = [
        tracking.StateMove(
            move.type, move.at, str(plan.stops[move.stop].id) if move.stop is not None else None
        )
        for move in states_until(plan, anchor)
    ]
    exceptions = []
    for incident in plan.incidents:
        if incident.start > anchor:
            continue
        resolved = incident.end is not None and incident.end <= anchor
        exceptions.append(
            ShipmentException(
                id=new_id(rng),
                type=incident.type,
                status=ExceptionStatus.CLOSED if resolved else ExceptionStatus.OPEN,
                severity=incident.severity,
                description=incident.description,
                stop_id=plan.stops[incident.stop].id if incident.stop is not None else None,
                created_date_time=incident.start,
                resolved_date_time=incident.end if resolved else None,
            )
        )
    # Estimates for the stops still ahead, the next stop last so that it becomes the
    # shipment's next ETA.
    etas = []
    for stop in reversed([stop for stop in plan.stops if stop.arrival > anchor]):
        hours_out = (stop.arrival - anchor).total_seconds() / 3600
        error = timedelta(minutes=round(rng.gauss(0, min(240.0, 4 + hours_out * 1.5))))
        etas.append(
            tracking.EtaReport(
                stop.arrival + error,
                stop_id=str(stop.id),
                description=f"Estimated arrival at {stop.place.name}",
            )
        )
    return tracking.History(shipment_id, source, events, states, exceptions, etas)


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


def _papers(
    plans: list[ShipmentPlan], seed: int, halt: threading.Event | None = None
) -> list[_Paper]:
    rng = random.Random(seed ^ 0xD0C5)
    found: list[_Paper] = []
    for plan in plans:
        _check(halt)
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
