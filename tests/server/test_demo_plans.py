"""The demo generator as pure data: places, lanes, identifiers, timelines, tracks and PDFs."""

from __future__ import annotations

import hashlib
import itertools
import math
import re
import uuid
import zlib
from collections import Counter
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from freightdesk.models.addresses import normalize_address
from freightdesk.models.common import Address, LogisticsIdentifier
from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.tracking import ShipmentStateType as S
from freightdesk.models.tracking import TrackedShipment, TrackingHistory
from freightdesk.server.demo import documents_pdf
from freightdesk.server.demo import identifiers as ids
from freightdesk.server.demo.geography import (
    EARTH_RADIUS_KM,
    PLACES,
    Place,
    PlaceKind,
    Region,
    bearing_deg,
    distance_km,
)
from freightdesk.server.demo.itineraries import (
    ShipmentPlan,
    fixes_until,
    floor_hour,
    phase,
    states_until,
)
from freightdesk.server.demo.lanes import SITES
from freightdesk.server.demo.networks import (
    ROAD_GRAPH,
    SEA_GRAPH,
    path_length_km,
    road_waypoints,
    sea_waypoints,
)
from freightdesk.server.demo.portfolio import plan_shipments
from freightdesk.server.demo.seed import shipment_input
from freightdesk.server.domain.identifiers import ACCEPTED_BY_MODE, analyze
from freightdesk.server.domain.lifecycle import can_move
from freightdesk.service.overview import overview_of

ANCHOR = floor_hour(datetime(2026, 3, 11, 15, 42, tzinfo=UTC))
END = datetime(2100, 1, 1, tzinfo=UTC)  # after every shipment has ended
LOCODE = re.compile(r"[A-Z]{2}[A-Z2-9]{3}")


@pytest.fixture(scope="module")
def plans() -> list[ShipmentPlan]:
    return plan_shipments(7, ANCHOR)


def digest(plans: list[ShipmentPlan]) -> str:
    """Everything a seeded database would hold, as one hash."""
    hasher = hashlib.sha256()
    for plan in plans:
        hasher.update(repr((plan.mode, plan.identifiers, plan.attributes, plan.costs)).encode())
        for stop in plan.stops:
            hasher.update(repr((stop.id, stop.place.key, stop.arrival, stop.departure)).encode())
        for event in plan.events:
            hasher.update(repr((event.type, event.at, event.description)).encode())
        for fix in fixes_until(plan, END):
            hasher.update(repr(fix).encode())
    return hasher.hexdigest()


def test_same_seed_same_data_other_seed_other_data(plans: list[ShipmentPlan]) -> None:
    assert digest(plan_shipments(7, ANCHOR)) == digest(plans)
    assert digest(plan_shipments(8, ANCHOR)) != digest(plans)


def test_hundreds_of_shipments_of_every_mode_in_every_phase(plans: list[ShipmentPlan]) -> None:
    assert len(plans) >= 300
    modes = Counter(plan.mode for plan in plans)
    assert set(modes) == {Mode.TL, Mode.LTL, Mode.PARCEL, Mode.RAIL, Mode.OCEAN, Mode.AIR}
    assert min(modes.values()) >= 20
    assert {plan.region for plan in plans} == {Region.NORTH_AMERICA, Region.EUROPE}
    phases = Counter(phase(plan, ANCHOR) for plan in plans)
    assert phases[S.COMPLETED] >= 60 and phases[S.SCHEDULED] >= 30
    assert phases[S.IN_TRANSIT] + phases[S.AT_STOP] >= 100
    # Delivered in the past days, scheduled for the coming days.
    assert all(p.delivered_at > ANCHOR - timedelta(days=12) for p in plans)
    assert all(p.origin.arrival < ANCHOR + timedelta(days=8) for p in plans)
    for mode in modes:
        mine = [phase(p, ANCHOR) for p in plans if p.mode is mode]
        assert S.COMPLETED in mine and S.SCHEDULED in mine, mode


def test_identifiers_follow_rule_6_with_valid_check_digits(plans: list[ShipmentPlan]) -> None:
    checks = {
        "CONTAINER_ID": ids.is_valid_container_id,
        "AIR_WAYBILL": ids.is_valid_air_waybill,
        "WAGON_ID": ids.is_valid_wagon_id,
        "PRO": ids.is_valid_pro_number,
    }
    seen_types: dict[Mode, set[str]] = {}
    for plan in plans:
        types = {kind for kind, _value in plan.identifiers}
        assert types <= ACCEPTED_BY_MODE[plan.mode], (plan.mode, types)
        seen_types.setdefault(plan.mode, set()).update(types)
        # The tracking service derives the same mode from the identifiers and the plan.
        given = [LogisticsIdentifier(type=k, value=v) for k, v in plan.identifiers]
        assert analyze(given, plan.planned_modes).mode is plan.mode
        for kind, value in plan.identifiers:
            if kind in checks:
                assert checks[kind](value), (kind, value)
            if kind == "TRACKING_NUMBER":
                assert ids.is_valid_tracking_number(value, plan.carrier.tracking_prefix)
            if kind == "BILL_OF_LADING" and plan.mode in (Mode.TL, Mode.LTL):
                assert ids.is_valid_vics_bol(value)
            if kind == "CARRIER_SCAC":
                assert re.fullmatch(r"[A-Z]{4}", value)
    assert {"BILL_OF_LADING", "PURCHASE_ORDER"} <= seen_types[Mode.TL]
    assert {"PRO", "BILL_OF_LADING"} <= seen_types[Mode.LTL]
    assert "TRACKING_NUMBER" in seen_types[Mode.PARCEL]
    assert {"BILL_OF_LADING", "CARRIER_SCAC", "CONTAINER_ID"} <= seen_types[Mode.OCEAN]
    assert {"AIR_WAYBILL", "CARRIER_SCAC"} <= seen_types[Mode.AIR]
    assert {"WAGON_ID", "TRAIN_NUMBER", "CONTAINER_ID", "RAIL_CAR_ID", "WAYBILL"} <= seen_types[
        Mode.RAIL
    ]
    rail = [p for p in plans if p.mode is Mode.RAIL]
    for plan in rail:
        types = {kind for kind, _value in plan.identifiers}
        if plan.region is Region.EUROPE:
            assert types == {"WAGON_ID", "TRAIN_NUMBER"}
        else:
            assert "WAYBILL" in types and types & {"CONTAINER_ID", "RAIL_CAR_ID"}


def test_check_digits_against_published_examples() -> None:
    assert ids.is_valid_container_id("CSQU3054383")  # the ISO 6346 standard's example
    assert not ids.is_valid_container_id("CSQU3054384")
    assert ids.is_valid_air_waybill("020-12345675")
    assert not ids.is_valid_air_waybill("020-12345676")
    assert ids.is_valid_wagon_id("218124712173")  # UIC wagon 21 81 2471 217-3
    assert ids.gs1_check_digit("400638133393") == 1  # GTIN 4006381333931


def test_places_are_real_and_addresses_canonical() -> None:
    every: list[Place] = [*PLACES.values(), *(site.place for site in SITES.values())]
    for place in every:
        ZoneInfo(place.time_zone)
        address = Address(
            address_lines=[place.street] if place.street else [],
            city=place.city,
            state=place.state,
            postal_code=place.postal_code,
            country=place.country,
        )
        assert normalize_address(address) == address, place.key
        if place.unlocode is not None:
            assert LOCODE.fullmatch(place.unlocode) and place.unlocode[:2] == place.country
        if place.kind is PlaceKind.AIRPORT:
            assert place.iata and re.fullmatch(r"[A-Z]{3}", place.iata)
        if place.metro is not None:
            # Ports, terminals, airports and warehouses lie near the city they are reached by.
            assert distance_km(place.point, PLACES[place.metro].point) < 80, place.key
    assert PLACES["chicago"].unlocode == "USCHI" and PLACES["ord"].iata == "ORD"
    assert distance_km(PLACES["rotterdam"].point, PLACES["port-rotterdam"].point) < 40


def test_networks_join_every_place() -> None:
    for region in Region:
        cities = [p for p in PLACES.values() if p.kind is PlaceKind.CITY and p.region is region]
        for a, b in itertools.combinations(cities[::5], 2):
            points = road_waypoints(a, b)
            assert path_length_km(points) < 2.6 * distance_km(a.point, b.point) + 300
    assert all(key in ROAD_GRAPH for key, p in PLACES.items() if p.kind is PlaceKind.CITY)
    ports = [key for key, p in PLACES.items() if p.kind is PlaceKind.PORT]
    assert set(ports) <= set(SEA_GRAPH)
    crossing = sea_waypoints("port-rotterdam", "port-houston")
    # Round Florida rather than across it, but no long detour either.
    assert 1.05 < path_length_km(crossing) / distance_km(crossing[0], crossing[-1]) < 1.3
    assert any(24.0 < lat < 25.5 and -82.5 < lon < -79.5 for lat, lon in crossing)


def test_timelines_are_ordered_and_states_legal(plans: list[ShipmentPlan]) -> None:
    check_timelines(plans)


@pytest.mark.parametrize(
    ("seed", "anchor"),
    [
        (11, datetime(2026, 12, 27, 3, tzinfo=UTC)),  # a Sunday night after Christmas
        (23, datetime(2027, 3, 14, 9, tzinfo=UTC)),  # the day US clocks spring forward
        (5, datetime(2027, 10, 31, 1, tzinfo=UTC)),  # the night European clocks fall back
    ],
)
def test_other_seeds_and_moments_give_sound_plans(seed: int, anchor: datetime) -> None:
    plans = plan_shipments(seed, anchor)
    assert len(plans) >= 300
    check_timelines(plans)
    phases = Counter(phase(plan, anchor) for plan in plans)
    assert phases[S.COMPLETED] and phases[S.SCHEDULED] and phases[S.IN_TRANSIT]


def check_timelines(plans: list[ShipmentPlan]) -> None:
    """Stops in order, planned and real; events in order; positions in order and while the
    shipment moves; lifecycle moves the service accepts, ending COMPLETED."""
    for plan in plans:
        stops = plan.stops
        for stop in stops:
            assert stop.arrival <= stop.departure
            assert stop.planned_arrival <= stop.planned_departure
            if stop.appointment:
                assert stop.appointment[0] <= stop.appointment[1]
        for a, b in itertools.pairwise(stops):
            assert a.departure <= b.arrival
            assert a.planned_departure <= b.planned_arrival
        times = [event.at for event in plan.events]
        assert times == sorted(times)
        fixes = fixes_until(plan, END)
        assert all(x.at < y.at for x, y in itertools.pairwise(fixes)), plan.number
        if fixes:
            assert stops[0].departure - timedelta(minutes=1) <= fixes[0].at
            assert fixes[-1].at <= stops[-1].arrival + timedelta(minutes=1)
        state = S.SCHEDULED
        for move in states_until(plan, END):
            assert can_move(state, move.type), (plan.number, state, move.type)
            state = move.type
        assert state is S.COMPLETED
        for incident in plan.incidents:
            assert incident.end is None or incident.start <= incident.end


def _within_route(plan: ShipmentPlan, point: tuple[float, float], factor: float) -> bool:
    """Inside the ellipse around some pair of consecutive stops: a detour of at most
    `factor` times the direct distance (plus 60 km for getting on and off the network)."""
    for a, b in itertools.pairwise(plan.stops):
        direct = distance_km(a.place.point, b.place.point)
        around = distance_km(a.place.point, point) + distance_km(point, b.place.point)
        if around <= direct * factor + 60:
            return True
    return False


def test_positions_follow_their_route(plans: list[ShipmentPlan]) -> None:
    factors = {Mode.TL: 1.6, Mode.LTL: 1.6, Mode.RAIL: 1.7, Mode.OCEAN: 1.6, Mode.AIR: 1.02}
    for plan in plans:
        if plan.mode not in factors:
            continue  # parcels are scanned at the carrier's hubs, wherever they are
        for fix in fixes_until(plan, END):
            point = (fix.latitude, fix.longitude)
            assert _within_route(plan, point, factors[plan.mode]), (plan.number, plan.mode)


def test_trucks_drive_roads_at_road_speeds_and_rest(plans: list[ShipmentPlan]) -> None:
    long_hauls = [
        p
        for p in plans
        if p.mode is Mode.TL
        and distance_km(p.origin.place.point, p.destination.place.point) > 1300
        and p.region is Region.NORTH_AMERICA
    ]
    assert long_hauls
    for plan in long_hauls:
        fixes = [fix for leg in plan.legs for fix in leg.fixes]
        assert len(fixes) >= 150  # every 5 minutes on the move
        assert max(fix.speed_kmh for fix in fixes) < 130
        # Not a straight line: the road bends away from the direct line between the stops.
        leg = max(plan.legs, key=lambda leg: leg.path.length_km)
        a, b = plan.stops[leg.origin].place.point, plan.stops[leg.destination].place.point
        assert max(cross_track_km(a, b, (f.latitude, f.longitude)) for f in leg.fixes) > 3
        # Hours of service: no more than 8 hours at the wheel without a stop of 30 minutes.
        driving = timedelta(0)
        for x, y in itertools.pairwise(fixes):
            gap = y.at - x.at
            if gap >= timedelta(minutes=25):
                driving = timedelta(0)
            elif x.speed_kmh > 0:
                driving += gap
            assert driving <= timedelta(hours=8, minutes=15), plan.number
        assert any(f.speed_kmh == 0 for f in fixes)


def cross_track_km(a: tuple[float, float], b: tuple[float, float], p: tuple[float, float]) -> float:
    """How far p lies from the great circle through a and b."""
    angular = distance_km(a, p) / EARTH_RADIUS_KM
    turn = math.radians(bearing_deg(a, p) - bearing_deg(a, b))
    return abs(math.asin(math.sin(angular) * math.sin(turn))) * EARTH_RADIUS_KM


def test_pdf_documents_are_well_formed(plans: list[ShipmentPlan]) -> None:
    plan = next(p for p in plans if p.mode is Mode.TL)
    number = next(value for kind, value in plan.identifiers if kind == "BILL_OF_LADING")
    for content in (
        documents_pdf.bill_of_lading(plan),
        documents_pdf.proof_of_delivery(plan, "J. Chen", "No exceptions"),
    ):
        check_pdf(content, number)
    assert documents_pdf.bill_of_lading(plan) == documents_pdf.bill_of_lading(plan)
    # Accents print; letters WinAnsi lacks are transliterated, never dropped silently.
    assert documents_pdf.pdf_string("Düsseldorf (Łódź)") == b"(D\xfcsseldorf \\(L\xf3dz\\))"


def check_pdf(content: bytes, expected_text: str) -> None:
    """Header, trailer, a cross-reference table whose offsets hit their objects, and a page
    whose decompressed content shows the expected text."""
    assert content.startswith(b"%PDF-1.4\n") and content.endswith(b"%%EOF\n")
    start = int(content.rsplit(b"startxref\n", 1)[1].split(b"\n", 1)[0])
    assert content[start:].startswith(b"xref\n")
    lines = content[start:].split(b"\n")
    count = int(lines[1].split()[1])
    for number in range(1, count):
        offset = int(lines[2 + number][:10])
        assert content[offset:].startswith(f"{number} 0 obj".encode())
    stream = content.split(b"stream\n", 1)[1].split(b"\nendstream", 1)[0]
    assert f"({expected_text})".encode() in zlib.decompress(stream)


def _overview_equipment(plan: ShipmentPlan) -> str | None:
    """The Overview's Equipment of the shipment the demo records for `plan`."""
    body = shipment_input(plan, {}, ANCHOR).model_dump(by_alias=True, mode="json")
    shipment = TrackedShipment.model_validate({**body, "id": str(uuid.uuid4())})
    return overview_of(TrackingHistory(shipment=shipment), ANCHOR).equipment


def test_a_parcel_names_no_truck_as_its_equipment(plans: list[ShipmentPlan]) -> None:
    """The Overview's Equipment of a demo parcel was "truck tractor trailer": a parcel rides
    the carrier's network (vans, trailers, planes), no equipment its shipper books."""
    parcels = [plan for plan in plans if plan.mode is Mode.PARCEL]
    trucks = [plan for plan in plans if plan.mode is Mode.TL]
    assert parcels and trucks
    assert [_overview_equipment(plan) for plan in parcels] == [None] * len(parcels)
    assert _overview_equipment(trucks[0]) == "truck tractor trailer"


def test_a_pickup_counts_its_pieces_in_words(plans: list[ShipmentPlan]) -> None:
    """'Picked up 1 pallet', not '1 pallets' (seen on a demo LTL shipment's timeline)."""
    pickups = [e.description for p in plans for e in p.events if e.type == "PICKED_UP"]
    counted = [m for d in pickups if (m := re.match(r"Picked up (\d+) (\w+) from ", d))]
    assert any(m[1] == "1" for m in counted) and any(m[1] != "1" for m in counted)
    for m in counted:
        assert m[2].endswith("s") == (m[1] != "1"), m.string
