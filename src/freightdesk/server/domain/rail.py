"""Rail legs: validation beyond the models, routing over real ramps, simulated statuses.

There is no railroad feed behind the local service, so a leg's movement is planned when it is
created and replayed against the clock when statuses are read:

- the origin and destination stops are located (coordinates, a ramp named in the address, or
  the place geocoder); the pair of ramps is chosen that minimizes dray plus rail distance,
  with an interchange at a gateway (Chicago, Memphis, Kansas City, ...) when no single
  railroad serves both ramps;
- the equipment then passes INGATE, RAMPED, DEPARTED, [ARRIVED_AT_INTERCHANGE,
  DEPARTED_INTERCHANGE], ARRIVED, DERAMPED, NOTIFIED, OUTGATE and, when the destination stop
  is known, DELIVERED. Trains average 38 km/h over 1.2 times the great-circle distance, with
  dwell times varied per leg so that two legs on one lane do not move in lockstep;
- statuses whose time has come are shown; the arrival at the destination ramp is the ETA.

Without stops, the leg follows one of the busy intermodal lanes, chosen from its equipment id.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.addresses import region_key
from freightdesk.models.common import GeoCoordinates
from freightdesk.models.rail import (
    EquipmentIdentifier,
    EquipmentIdentifierType,
    EquipmentStatus,
    EquipmentStatusCode,
    EquipmentStatusUpdate,
    InfoMessage,
    MessageSeverity,
    RailPoint,
    RailShipment,
    RailShipmentCreate,
    ShipmentStop,
    tracking_start_problem,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.places import NotLocated, geocode, haversine_km
from freightdesk.server.domain.rail_ramps import GATEWAYS, RAMPS, RAMPS_BY_CODE, Gateway, Ramp
from freightdesk.server.errors import field_error
from freightdesk.server.tables.rail import RailIdentifierRow, RailLegRow

TRAIN_SPEED_KMH = 38.0
DRAY_SPEED_KMH = 50.0
RAIL_CIRCUITY = 1.2
INTERCHANGE_PENALTY_KM = 400.0
DRAY_WEIGHT = 3.0

# Busy lanes a leg without stops follows (origin ramp, destination ramp).
_LANES: tuple[tuple[str, str], ...] = (
    ("BNSF-HOBART", "BNSF-LPC"),
    ("UP-ICTF", "UP-GLOBAL4"),
    ("UP-ICTF", "UP-DIT"),
    ("BNSF-SIG", "BNSF-LPC"),
    ("BNSF-SBD", "BNSF-ALLIANCE"),
    ("UP-OAKLAND", "UP-GLOBAL2"),
    ("NS-ERAIL", "NS-47TH"),
    ("CSX-KEARNY", "CSX-BEDFORD"),
    ("CSX-FAIRBURN", "CSX-BEDFORD"),
    ("NS-PORTLOCK", "NS-RICKENBACKER"),
    ("CN-THORNTON", "CN-BRAMPTON"),
    ("CPKC-LZC", "CPKC-KC"),
    ("UP-LAREDO", "UP-GLOBAL4"),
    ("BNSF-HOBART", "NS-RUTHERFORD"),
)


@dataclass(frozen=True)
class Point:
    name: str
    city: str | None
    state: str | None
    country: str | None
    latitude: float
    longitude: float
    ramp: Ramp | None = None

    def wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "city": self.city,
            "state": self.state,
            "country": self.country,
            "latitude": self.latitude,
            "longitude": self.longitude,
        }


def _ramp_point(ramp: Ramp) -> Point:
    return Point(
        ramp.name, ramp.city, ramp.state, ramp.country, ramp.latitude, ramp.longitude, ramp
    )


def _gateway_point(gateway: Gateway) -> Point:
    return Point(
        f"{gateway.name} interchange",
        gateway.name,
        gateway.state,
        gateway.country,
        gateway.latitude,
        gateway.longitude,
    )


# --- validation ---------------------------------------------------------------------------


def check_tracking_start(body: RailShipmentCreate, now: datetime) -> None:
    problem = tracking_start_problem(
        body.tracking_start_date_time, bool(body.shipment_identifiers), now
    )
    if problem is not None:
        raise field_error("trackingStartDateTime", problem)


_ISO6346_VALUES = {
    letter: value
    for letter, value in zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        [
            10,
            12,
            13,
            14,
            15,
            16,
            17,
            18,
            19,
            20,
            21,
            23,
            24,
            25,
            26,
            27,
            28,
            29,
            30,
            31,
            32,
            34,
            35,
            36,
            37,
            38,
        ],
        strict=True,
    )
}


def container_check_digit_ok(number: str) -> bool:
    """ISO 6346: the eleventh character checks the first ten."""
    total = 0
    for position, char in enumerate(number[:10]):
        value = _ISO6346_VALUES[char] if char.isalpha() else int(char)
        total += value * (2**position)
    return (total % 11) % 10 == int(number[10])


def equipment_messages(equipment: EquipmentIdentifier) -> list[InfoMessage]:
    if equipment.type is EquipmentIdentifierType.CONTAINER_ID and not container_check_digit_ok(
        equipment.value
    ):
        return [
            InfoMessage(
                severity=MessageSeverity.WARNING,
                message=f"The check digit of container {equipment.value} does not match its "
                "number; railroads may not recognize it. Tracking was started anyway.",
                source="equipmentIdentifiers[0].value",
            )
        ]
    return []


# --- locating stops and planning the route ------------------------------------------------


def _ramp_named(name: str | None) -> Ramp | None:
    if not name:
        return None
    key = region_key(name)
    for ramp in RAMPS:
        if key in (region_key(ramp.name), region_key(ramp.code)):
            return ramp
    return None


def locate_stop(stop: ShipmentStop) -> Point:
    """Where a stop is; NotLocated when neither coordinates nor the address say."""
    address = stop.location.address if stop.location is not None else None
    label = stop.stop_name or (address.point_name if address else None)
    if stop.geo_coordinates is not None:
        coordinates = stop.geo_coordinates
        return Point(
            label or f"{coordinates.latitude:.4f}, {coordinates.longitude:.4f}",
            address.city if address else None,
            address.state if address else None,
            address.country if address else None,
            coordinates.latitude,
            coordinates.longitude,
        )
    if address is None:
        raise NotLocated("the stop has neither geoCoordinates nor location.address")
    ramp = _ramp_named(address.point_name) or _ramp_named(stop.stop_name)
    if ramp is not None:
        return _ramp_point(ramp)
    located = geocode(
        country=address.country,
        state=address.state,
        city=address.city or address.point_name,
        postal_code=address.postal_code,
    )
    place = located.place
    return Point(
        label or place.city,
        place.city,
        place.state,
        place.country,
        place.latitude,
        place.longitude,
    )


def _km(a: Point | Ramp | Gateway, b: Point | Ramp | Gateway) -> float:
    return haversine_km(a.latitude, a.longitude, b.latitude, b.longitude)


def _best_gateway(origin: Ramp, destination: Ramp) -> Gateway | None:
    if origin.railroad == destination.railroad:
        return None
    candidates = [
        g
        for g in GATEWAYS
        if origin.railroad in g.railroads and destination.railroad in g.railroads
    ]
    if not candidates:
        return None
    return min(candidates, key=lambda g: _km(origin, g) + _km(g, destination))


def _rail_km(origin: Ramp, destination: Ramp) -> tuple[float, Gateway | None] | None:
    gateway = _best_gateway(origin, destination)
    if origin.railroad == destination.railroad:
        return _km(origin, destination) * RAIL_CIRCUITY, None
    if gateway is None:
        return None
    return (_km(origin, gateway) + _km(gateway, destination)) * RAIL_CIRCUITY, gateway


def choose_ramps(origin: Point, destination: Point) -> tuple[Ramp, Ramp, Gateway | None]:
    """The ramp pair with the least weighted dray plus rail distance."""
    best: tuple[float, Ramp, Ramp, Gateway | None] | None = None
    origin_ramps = sorted(RAMPS, key=lambda r: _km(origin, r))[:8]
    destination_ramps = sorted(RAMPS, key=lambda r: _km(destination, r))[:8]
    for o in origin_ramps:
        for d in destination_ramps:
            if o.code == d.code or (o.city == d.city and o.state == d.state):
                continue
            rail = _rail_km(o, d)
            if rail is None:
                continue
            distance, gateway = rail
            cost = DRAY_WEIGHT * (_km(origin, o) + _km(destination, d)) + distance
            if gateway is not None:
                cost += INTERCHANGE_PENALTY_KM
            if best is None or cost < best[0]:
                best = (cost, o, d, gateway)
    assert best is not None  # eight ramps on each side always include a connected pair
    return best[1], best[2], best[3]


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _lane_for(equipment: str) -> tuple[Ramp, Ramp]:
    origin, destination = _LANES[_digest(equipment) % len(_LANES)]
    return RAMPS_BY_CODE[origin], RAMPS_BY_CODE[destination]


def _far_ramp(near: Ramp, equipment: str) -> Ramp:
    """A ramp at least 800 km away, reachable from `near`, picked from the equipment id."""
    far = sorted(
        (r for r in RAMPS if _km(near, r) >= 800 and _rail_km(near, r) is not None),
        key=lambda r: r.code,
    )
    return far[_digest(equipment) % len(far)]


@dataclass
class Planned:
    plan: dict[str, Any]
    messages: list[InfoMessage]


def plan_leg(body: RailShipmentCreate, leg_key: str) -> Planned:
    """The route and the timing of every status, in hours after the anchor."""
    messages: list[InfoMessage] = []
    equipment = body.equipment_identifiers[0].value
    stops = {stop.stop_number: stop for stop in body.shipment_stops}
    located: dict[int, Point | None] = {1: None, 2: None}
    for number, stop in stops.items():
        index = body.shipment_stops.index(stop)
        try:
            located[number] = locate_stop(stop)
        except NotLocated as exc:
            messages.append(
                InfoMessage(
                    severity=MessageSeverity.WARNING,
                    message=f"Stop {number} could not be located ({exc}); the railroad's "
                    "routing is shown instead",
                    source=f"shipmentStops[{index}]",
                )
            )
    origin, destination = located[1], located[2]
    if origin is not None and destination is not None:
        origin_ramp, destination_ramp, gateway = choose_ramps(origin, destination)
    else:
        if not stops:
            messages.append(
                InfoMessage(
                    severity=MessageSeverity.INFO,
                    message="No shipmentStops were given; the route is the railroad's routing "
                    "of the equipment",
                )
            )
        if origin is not None:
            origin_ramp = choose_ramps(origin, origin)[0]
            destination_ramp = _far_ramp(origin_ramp, equipment)
        elif destination is not None:
            destination_ramp = choose_ramps(destination, destination)[0]
            origin_ramp = _far_ramp(destination_ramp, equipment)
        else:
            origin_ramp, destination_ramp = _lane_for(equipment)
        rail = _rail_km(origin_ramp, destination_ramp)
        gateway = rail[1] if rail else None
    return Planned(
        _timeline(leg_key, origin, destination, origin_ramp, destination_ramp, gateway), messages
    )


def _timeline(
    leg_key: str,
    origin: Point | None,
    destination: Point | None,
    origin_ramp: Ramp,
    destination_ramp: Ramp,
    gateway: Gateway | None,
) -> dict[str, Any]:
    rng = random.Random(_digest(leg_key))
    events: list[dict[str, Any]] = []
    hours = 0.0
    o_ramp, d_ramp = _ramp_point(origin_ramp), _ramp_point(destination_ramp)

    def add(status: EquipmentStatusCode, point: Point, railroad: str | None, text: str) -> None:
        events.append(
            {
                "status": status.value,
                "hours": round(hours, 3),
                "point": point.wire(),
                "railroad": railroad,
                "description": text,
            }
        )

    if origin is not None and origin.ramp is None:
        hours += _km(origin, origin_ramp) / DRAY_SPEED_KMH + rng.uniform(1.0, 3.0)
    add(EquipmentStatusCode.INGATE, o_ramp, origin_ramp.railroad, f"Received at {o_ramp.name}")
    hours += rng.uniform(6.0, 14.0)
    add(
        EquipmentStatusCode.RAMPED,
        o_ramp,
        origin_ramp.railroad,
        f"Loaded on a train at {o_ramp.name}",
    )
    hours += rng.uniform(3.0, 8.0)
    add(EquipmentStatusCode.DEPARTED, o_ramp, origin_ramp.railroad, f"Departed {o_ramp.name}")
    if gateway is not None:
        hub = _gateway_point(gateway)
        hours += _km(origin_ramp, gateway) * RAIL_CIRCUITY / TRAIN_SPEED_KMH
        add(
            EquipmentStatusCode.ARRIVED_AT_INTERCHANGE,
            hub,
            origin_ramp.railroad,
            f"Arrived at the {gateway.name} interchange for handover from "
            f"{origin_ramp.railroad} to {destination_ramp.railroad}",
        )
        hours += rng.uniform(18.0, 36.0)
        add(
            EquipmentStatusCode.DEPARTED_INTERCHANGE,
            hub,
            destination_ramp.railroad,
            f"Departed the {gateway.name} interchange on {destination_ramp.railroad}",
        )
        hours += _km(gateway, destination_ramp) * RAIL_CIRCUITY / TRAIN_SPEED_KMH
    else:
        hours += _km(origin_ramp, destination_ramp) * RAIL_CIRCUITY / TRAIN_SPEED_KMH
    hours += rng.uniform(0.0, 10.0)  # meets, crew changes, congestion
    eta_hours = hours
    add(EquipmentStatusCode.ARRIVED, d_ramp, destination_ramp.railroad, f"Arrived at {d_ramp.name}")
    hours += rng.uniform(3.0, 8.0)
    add(
        EquipmentStatusCode.DERAMPED,
        d_ramp,
        destination_ramp.railroad,
        f"Unloaded from the train at {d_ramp.name}",
    )
    hours += rng.uniform(1.0, 3.0)
    add(
        EquipmentStatusCode.NOTIFIED,
        d_ramp,
        destination_ramp.railroad,
        f"Customer notified: available for pickup at {d_ramp.name}",
    )
    hours += rng.uniform(8.0, 30.0)
    add(
        EquipmentStatusCode.OUTGATE,
        d_ramp,
        destination_ramp.railroad,
        f"Left {d_ramp.name} on a dray",
    )
    if destination is not None and destination.ramp is None:
        hours += _km(destination, destination_ramp) / DRAY_SPEED_KMH + rng.uniform(0.5, 2.0)
        add(EquipmentStatusCode.DELIVERED, destination, None, f"Delivered to {destination.name}")
    return {
        "originRamp": origin_ramp.code,
        "destinationRamp": destination_ramp.code,
        "gateway": gateway.name if gateway else None,
        "etaHours": round(eta_hours, 3),
        "events": events,
    }


# --- reading ------------------------------------------------------------------------------


def shipment_view(row: RailLegRow) -> RailShipment:
    return RailShipment.model_validate(
        {
            **row.body,
            "id": row.id,
            "railLegId": row.rail_leg_id,
            "masterShipmentId": row.master_shipment_id,
            "trackingStartDateTime": row.tracking_start,
            "createdDateTime": row.created_at,
        }
    )


def _point(data: dict[str, Any]) -> RailPoint:
    return RailPoint(
        name=data["name"],
        city=data.get("city"),
        state=data.get("state"),
        country=data.get("country"),
        geo_coordinates=GeoCoordinates(latitude=data["latitude"], longitude=data["longitude"]),
    )


def _minute(value: datetime) -> datetime:
    return value.replace(second=0, microsecond=0)


def statuses(
    row: RailLegRow, *, include_history: bool, now: datetime | None = None
) -> tuple[list[EquipmentStatus], list[InfoMessage]]:
    now = now or utcnow()
    plan = row.plan
    updates = [
        EquipmentStatusUpdate(
            status=EquipmentStatusCode(event["status"]),
            date_time=_minute(row.anchor + timedelta(hours=event["hours"])),
            description=event["description"],
            location=_point(event["point"]),
            railroad=event.get("railroad"),
            loaded=True,
        )
        for event in plan["events"]
    ]
    seen = [update for update in updates if update.date_time <= now]
    messages: list[InfoMessage] = []
    if not seen:
        messages.append(
            InfoMessage(
                severity=MessageSeverity.INFO,
                message=f"No status yet; tracking starts at {row.anchor.isoformat()}",
            )
        )
    shipment = shipment_view(row)
    status = EquipmentStatus(
        equipment_identifier=shipment.equipment_identifiers[0],
        current_status=seen[-1] if seen else None,
        origin_ramp=_point(_ramp_point(RAMPS_BY_CODE[plan["originRamp"]]).wire()),
        destination_ramp=_point(_ramp_point(RAMPS_BY_CODE[plan["destinationRamp"]]).wire()),
        estimated_arrival_date_time=_minute(row.anchor + timedelta(hours=plan["etaHours"])),
        status_updates=seen if include_history else None,
    )
    return [status], messages


def find_leg(session: Session, tenant_id: int, leg_id: str) -> RailLegRow | None:
    """A leg by railLegId, or by the deprecated numeric id."""
    text = leg_id.strip()
    row: RailLegRow | None = None
    if text.isdigit() and len(text) <= 18:
        row = session.get(RailLegRow, int(text))
    else:
        try:
            key = str(uuid.UUID(text))
        except ValueError:
            return None
        row = session.scalar(select(RailLegRow).where(RailLegRow.rail_leg_id == key))
    if row is None or row.tenant_id != tenant_id:
        return None
    return row


def list_legs(
    session: Session, tenant_id: int, page_number: int, page_size: int
) -> tuple[list[RailLegRow], int]:
    """A page of the tenant's legs, newest first, and how many there are in all."""
    mine = RailLegRow.tenant_id == tenant_id
    total = session.scalar(select(func.count()).select_from(RailLegRow).where(mine)) or 0
    rows = session.scalars(
        select(RailLegRow)
        .where(mine)
        .order_by(RailLegRow.created_at.desc(), RailLegRow.id.desc())
        .offset((page_number - 1) * page_size)
        .limit(page_size)
    )
    return list(rows), total


def legs_by_identifier(
    session: Session, tenant_id: int, type_: str, value: str
) -> Sequence[RailLegRow]:
    return session.scalars(
        select(RailLegRow)
        .join(RailIdentifierRow, RailIdentifierRow.leg_id == RailLegRow.id)
        .where(
            RailIdentifierRow.tenant_id == tenant_id,
            RailIdentifierRow.type == type_,
            RailIdentifierRow.value == value,
        )
        .order_by(RailLegRow.created_at.desc(), RailLegRow.id.desc())
    ).all()


# --- creating -----------------------------------------------------------------------------


def _fingerprint(body: RailShipmentCreate, wire: dict[str, Any]) -> str:
    """What makes two create requests the same tracking request."""
    start = body.tracking_start_date_time
    key = {
        "equipment": wire.get("equipmentIdentifiers"),
        "identifiers": sorted((i["type"], i["value"]) for i in wire.get("shipmentIdentifiers", [])),
        "stops": wire.get("shipmentStops", []),
        "start": start.astimezone(UTC).isoformat() if start else None,
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def _same_request(row: RailLegRow, body: RailShipmentCreate, fingerprint: str) -> bool:
    master = body.master_shipment_id
    if master is not None and str(master) != row.master_shipment_id:
        return False
    return bool(row.plan.get("fingerprint") == fingerprint)


def create_leg(
    session: Session, tenant_id: int, body: RailShipmentCreate
) -> tuple[RailLegRow, list[InfoMessage]]:
    now = utcnow()
    check_tracking_start(body, now)
    equipment = body.equipment_identifiers[0]
    wire = body.wire(exclude_none=True)
    for name in ("id", "railLegId", "masterShipmentId", "trackingStartDateTime"):
        wire.pop(name, None)
    fingerprint = _fingerprint(body, wire)
    # A retried request answers the leg it already created instead of tracking twice.
    for existing in session.scalars(
        select(RailLegRow).where(
            RailLegRow.tenant_id == tenant_id,
            RailLegRow.equipment_type == equipment.type.value,
            RailLegRow.equipment_value == equipment.value,
        )
    ):
        if _same_request(existing, body, fingerprint):
            return existing, [
                InfoMessage(
                    severity=MessageSeverity.INFO,
                    message=f"Equipment {equipment.value} is already tracked with these details "
                    f"as leg {existing.rail_leg_id}; that leg is returned",
                )
            ]
    messages = equipment_messages(equipment)
    master = str(body.master_shipment_id or uuid.uuid4())
    if body.master_shipment_id is not None:
        legs = session.scalars(
            select(RailLegRow.id).where(
                RailLegRow.tenant_id == tenant_id, RailLegRow.master_shipment_id == master
            )
        ).all()
        if legs:
            messages.append(
                InfoMessage(
                    severity=MessageSeverity.INFO,
                    message=f"Linked to master shipment {master} as leg {len(legs) + 1}",
                    source="masterShipmentId",
                )
            )
    leg_id = str(uuid.uuid4())
    planned = plan_leg(body, leg_id)
    messages.extend(planned.messages)
    anchor = body.tracking_start_date_time or now
    if anchor > now:
        messages.append(
            InfoMessage(
                severity=MessageSeverity.INFO,
                message=f"Tracking starts at {anchor.isoformat()}; statuses appear from then on",
                source="trackingStartDateTime",
            )
        )
    stops = wire.get("shipmentStops", [])
    for stop in stops:
        stop.setdefault("id", str(uuid.uuid4()))
        stop.setdefault("type", "ORIGIN" if stop.get("stopNumber") == 1 else "DESTINATION")
    wire["shipmentStops"] = sorted(stops, key=lambda s: s["stopNumber"])
    row = RailLegRow(
        rail_leg_id=leg_id,
        tenant_id=tenant_id,
        master_shipment_id=master,
        equipment_type=equipment.type.value,
        equipment_value=equipment.value,
        tracking_start=body.tracking_start_date_time,
        anchor=anchor,
        body=wire,
        plan={**planned.plan, "fingerprint": fingerprint},
        created_at=now,
    )
    session.add(row)
    session.flush()
    for identifier in body.shipment_identifiers:
        session.add(
            RailIdentifierRow(
                tenant_id=tenant_id,
                leg_id=row.id,
                type=identifier.type.value,
                value=identifier.value,
            )
        )
    session.flush()
    return row, messages
