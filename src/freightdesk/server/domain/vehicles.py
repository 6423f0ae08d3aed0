"""Available vehicles: who may search, where the search is centred, the radius search itself,
and the seeding of a realistic pool of vehicles for the demo and benchmarks.

Co-op membership is the tenant feature `capacityCoop` (switched by
`freightdesk tenant feature NAME capacityCoop on`). A member shares the pools listed in the
feature `capacityCoopPools` (a list of names), or the one pool `GENERAL` when that is absent.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, or_, select, text
from sqlalchemy.orm import Session

from freightdesk.models.common import ContactInfo, GeoCoordinates
from freightdesk.models.vehicles import (
    DEFAULT_WINDOW_HOURS,
    METRES_PER_UNIT,
    AvailableVehicle,
    AvailableVehiclesQuery,
    CarrierIdentifier,
    Distance,
    RadiusUnit,
    TruckType,
    VehicleLocation,
    VehicleSortField,
    place_problems,
    radius_of,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.places import (
    EARTH_RADIUS_KM,
    PLACES,
    NotLocated,
    Place,
    geocode,
    haversine_km,
    nearest_place,
)
from freightdesk.server.errors import ApiError, field_error, field_errors
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.vehicles import (
    CELL_DEGREES,
    VehicleRow,
    cell_column,
    cell_key,
    cell_of,
    cell_row,
)

COOP_FEATURE = "capacityCoop"
POOLS_FEATURE = "capacityCoopPools"
DEFAULT_POOL = "GENERAL"
_VEHICLE_IDS = uuid.UUID("6f1d3c1e-52f4-4a0e-9a57-8d1f0f6c2b11")


# --- who may search ------------------------------------------------------------------------


def coop_pools(session: Session, tenant_id: int) -> list[str]:
    """The pools the tenant shares; 403 when it has not opted into a capacity co-op."""
    tenant = session.get(Tenant, tenant_id)
    features: dict[str, Any] = (tenant.features if tenant else None) or {}
    if features.get(COOP_FEATURE) is not True:
        raise ApiError(
            403,
            "Available vehicles is for tenants that opted into a capacity co-op; an "
            f"administrator can opt in with `freightdesk tenant feature NAME {COOP_FEATURE} on`",
        )
    pools = features.get(POOLS_FEATURE)
    if isinstance(pools, list) and pools and all(isinstance(p, str) for p in pools):
        return list(dict.fromkeys(pools))
    return [DEFAULT_POOL]


def pools_to_search(member_of: list[str], asked: str | None) -> list[str]:
    if asked is None:
        return member_of
    if asked not in member_of:
        raise field_error(
            "sharingPool",
            f"your tenant is not in pool {asked!r}; its pools: {', '.join(member_of)}",
        )
    return [asked]


# --- where and how far ---------------------------------------------------------------------


@dataclass(frozen=True)
class Centre:
    latitude: float
    longitude: float


def centre_of(query: AvailableVehiclesQuery) -> Centre:
    """The search centre: the coordinates, else the located address (which must be complete)."""
    problems = place_problems(query)
    if problems:
        raise field_errors(problems)
    if query.geo_coordinates is not None:
        # Coordinates are exact; an address given as well is only checked, not geocoded.
        return Centre(query.geo_coordinates.latitude, query.geo_coordinates.longitude)
    assert query.address is not None  # place_problems asks for one or the other
    try:
        located = geocode(
            country=query.address.country,
            state=query.address.state,
            city=query.address.city,
            postal_code=query.address.postal_code,
        )
    except NotLocated as exc:
        raise field_error("address", f"cannot be located: {exc}") from None
    return Centre(located.place.latitude, located.place.longitude)


def radius_metres(query: AvailableVehiclesQuery) -> tuple[float, RadiusUnit]:
    try:
        radius, unit = radius_of(query)
    except ValueError as exc:
        raise field_error("radius", str(exc)) from None
    return radius * METRES_PER_UNIT[unit], unit


# --- sorting -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SortKey:
    field: VehicleSortField
    descending: bool


def parse_sort(values: Sequence[str] | None) -> list[SortKey]:
    """`sort=field` or `sort=field,asc|desc`, repeatable; default `distance,asc`."""
    if not values:
        return [SortKey(VehicleSortField.DISTANCE, False)]
    keys: list[SortKey] = []
    allowed = ", ".join(f.value for f in VehicleSortField)
    for raw in values:
        name, _, direction = raw.partition(",")
        try:
            field = VehicleSortField(name.strip())
        except ValueError:
            raise field_error("sort", f"{name.strip()!r} is not sortable; use {allowed}") from None
        direction = direction.strip().lower() or "asc"
        if direction not in ("asc", "desc"):
            raise field_error("sort", f"direction {direction!r} must be asc or desc")
        keys.append(SortKey(field, direction == "desc"))
    return keys


@dataclass(frozen=True)
class Candidate:
    """A vehicle inside the radius: its row and its distance from the centre."""

    row: Any
    km: float


def _sort_value(candidate: Candidate, field: VehicleSortField) -> Any:
    row = candidate.row
    if field is VehicleSortField.DISTANCE:
        return candidate.km
    if field is VehicleSortField.CARRIER_CONTACT:
        return (row.carrier_name.casefold(), row.contact_family_name.casefold())
    if field is VehicleSortField.ESTIMATED_ARRIVAL_DATE_TIME:
        return row.available_from
    return row.truck_type


def sort_candidates(candidates: list[Candidate], keys: list[SortKey]) -> None:
    # Stable sorts applied from the last key to the first give a multi-key order; the vehicle
    # id settles ties so that pages never overlap.
    candidates.sort(key=lambda c: c.row.id)
    for key in reversed(keys):
        candidates.sort(key=_key_of(key.field), reverse=key.descending)


def _key_of(field: VehicleSortField) -> Callable[[Candidate], Any]:
    return lambda candidate: _sort_value(candidate, field)


# --- the search ----------------------------------------------------------------------------

# What the first pass reads for every vehicle near the centre: all of it is in the index.
_FIRST_PASS = (
    VehicleRow.id,
    VehicleRow.latitude,
    VehicleRow.longitude,
    VehicleRow.available_from,
    VehicleRow.truck_type,
)
# Sorting by contact needs the carrier's name and contact, read from the table.
_CONTACT_COLUMNS = (VehicleRow.carrier_name, VehicleRow.contact_family_name)
_COLUMNS_ROUND = round(360 / CELL_DEGREES)


def grid_cells(centre: Centre, radius_km: float) -> list[int]:
    """The grid cells a circle round the centre touches (its bounding box)."""
    angle = radius_km / EARTH_RADIUS_KM
    dlat = math.degrees(angle)
    rows = range(
        cell_row(max(-90.0, centre.latitude - dlat)),
        cell_row(min(89.999, centre.latitude + dlat)) + 1,
    )
    if abs(centre.latitude) + dlat >= 90.0:  # the circle holds a pole: every meridian
        columns = set(range(_COLUMNS_ROUND))
    else:
        # The widest longitude a spherical cap reaches from its centre.
        dlon = math.degrees(math.asin(math.sin(angle) / math.cos(math.radians(centre.latitude))))
        first = cell_column(centre.longitude - dlon)
        span = (cell_column(centre.longitude + dlon) - first) % _COLUMNS_ROUND
        columns = {(first + k) % _COLUMNS_ROUND for k in range(span + 1)}
    return sorted(cell_key(row, column) for row in rows for column in columns)


def search(
    session: Session,
    tenant_id: int,
    query: AvailableVehiclesQuery,
    pools: list[str],
    centre: Centre,
    radius_m: float,
    *,
    with_contacts: bool = False,
) -> list[Candidate]:
    """Every vehicle in the radius that is available within the time range (unsorted)."""
    radius_km = radius_m / 1000
    start = query.time_range.start_date_time
    end = query.time_range.end_date_time or start + timedelta(hours=DEFAULT_WINDOW_HOURS)
    conditions: list[Any] = [
        VehicleRow.sharing_pool.in_(pools),
        VehicleRow.cell.in_(grid_cells(centre, radius_km)),
        VehicleRow.available_from <= end,
        VehicleRow.available_until >= start,
    ]
    if query.truck_type is not None:
        conditions.append(VehicleRow.truck_type == query.truck_type.value)
    if not query.include_my_shipments:
        conditions.append(
            or_(VehicleRow.shipper_tenant_id.is_(None), VehicleRow.shipper_tenant_id != tenant_id)
        )
    columns = _FIRST_PASS + (_CONTACT_COLUMNS if with_contacts else ())
    found: list[Candidate] = []
    for row in session.execute(select(*columns).where(*conditions)):
        km = haversine_km(centre.latitude, centre.longitude, row.latitude, row.longitude)
        if km <= radius_km:
            found.append(Candidate(row, km))
    return found


_COLUMNS = (
    VehicleRow.id,
    VehicleRow.vehicle_id,
    VehicleRow.sharing_pool,
    VehicleRow.carrier_scac,
    VehicleRow.carrier_name,
    VehicleRow.contact_given_name,
    VehicleRow.contact_family_name,
    VehicleRow.contact_phone,
    VehicleRow.contact_email,
    VehicleRow.truck_type,
    VehicleRow.latitude,
    VehicleRow.longitude,
    VehicleRow.city,
    VehicleRow.state,
    VehicleRow.country,
    VehicleRow.available_from,
    VehicleRow.available_until,
    VehicleRow.shipper_tenant_id,
)


def page_rows(session: Session, candidates: Sequence[Candidate]) -> list[tuple[Candidate, Any]]:
    """The full rows of the vehicles of one page, in the page's order."""
    wanted = [candidate.row.id for candidate in candidates]
    rows = {
        row.id: row for row in session.execute(select(*_COLUMNS).where(VehicleRow.id.in_(wanted)))
    }
    return [(candidate, rows[candidate.row.id]) for candidate in candidates]


def view(candidate: Candidate, row: Any, tenant_id: int, unit: RadiusUnit) -> AvailableVehicle:
    return AvailableVehicle(
        vehicle_id=uuid.UUID(row.vehicle_id),
        carrier_identifier=CarrierIdentifier(value=row.carrier_scac),
        carrier_name=row.carrier_name,
        carrier_contact=ContactInfo(
            company_name=row.carrier_name,
            given_name=row.contact_given_name,
            family_name=row.contact_family_name,
            phone_number=row.contact_phone,
            email=row.contact_email,
        ),
        truck_type=TruckType(row.truck_type),
        geo_coordinates=GeoCoordinates(latitude=row.latitude, longitude=row.longitude),
        location=VehicleLocation(city=row.city, state=row.state, country=row.country),
        distance=Distance(value=round(candidate.km * 1000 / METRES_PER_UNIT[unit], 1), unit=unit),
        estimated_arrival_date_time=row.available_from,
        available_until_date_time=row.available_until,
        sharing_pool=row.sharing_pool,
        my_shipment=row.shipper_tenant_id == tenant_id,
    )


# --- seeding -------------------------------------------------------------------------------

# The co-op's carrier directory: fictional carriers (SCAC, name, home country); the first few
# are also the service's built-in connected carriers.
CARRIERS: tuple[tuple[str, str, str], ...] = (
    ("PRLF", "Prairie Line Freight", "US"),
    ("BLRT", "Blue Ridge Transport", "US"),
    ("CSCX", "Coastal Star Carriers", "US"),
    ("IRHX", "Iron Horse Express", "US"),
    ("GLKT", "Great Lakes Trucking", "US"),
    ("MPLF", "Maple Leaf Freightways", "CA"),
    ("TRNX", "Transnorte Express", "MX"),
    ("DSRT", "Desert Sun Trucking", "US"),
    ("LSRL", "Lone Star Road Lines", "US"),
    ("MGNL", "Magnolia Line Haul", "US"),
    ("APLC", "Appalachian Carriers", "US"),
    ("RCKM", "Rocky Mountain Haulers", "US"),
    ("BYOU", "Bayou Freight", "US"),
    ("TWNC", "Twin Cities Carriers", "US"),
    ("OZRK", "Ozark Line Haul", "US"),
    ("PWTR", "Prairie Wind Transport", "US"),
    ("CSRF", "Cascade Ridge Freight", "US"),
    ("HBLT", "Harbor Light Trucking", "US"),
    ("RMSF", "Red Mesa Freight", "US"),
    ("SVCK", "Silver Creek Haulage", "US"),
    ("GRST", "Granite State Carriers", "US"),
    ("TDWR", "Tidewater Road Lines", "US"),
    ("BGSK", "Big Sky Freight", "US"),
    ("CMBF", "Cumberland Freight Lines", "US"),
    ("CPCN", "Copper Canyon Trucking", "US"),
    ("BLGR", "Bluegrass Haulers", "US"),
    ("PDMF", "Piedmont Freightways", "US"),
    ("SGRO", "Saguaro Transport", "US"),
    ("LRNT", "Laurentian Transport", "CA"),
    ("FRVF", "Fraser Valley Freight", "CA"),
    ("TDBJ", "Transportes del Bajio", "MX"),
    ("ASMD", "Autotransportes Sierra Madre", "MX"),
)

_GIVEN = (
    "Ana", "Ben", "Carla", "Dev", "Elena", "Frank", "Grace", "Hector", "Ines", "Jamal", "Kim",
    "Luis", "Maya", "Noah", "Olga", "Priya", "Quinn", "Rosa", "Sam", "Tariq", "Uma", "Victor",
    "Wendy", "Yusuf", "Zoe",
)  # fmt: skip
_FAMILY = (
    "Alvarez", "Brooks", "Chen", "Dubois", "Evans", "Fischer", "Garcia", "Haddad", "Ito",
    "Jensen", "Kowalski", "Lopez", "Morgan", "Nguyen", "Okafor", "Patel", "Quintero", "Reyes",
    "Singh", "Tremblay", "Usman", "Vargas", "Walsh", "Young", "Zhang",
)  # fmt: skip

# How common each kind of equipment is in the pool (the rest share what is left evenly).
_TRUCK_WEIGHTS: dict[TruckType, float] = {
    TruckType.VAN: 30,
    TruckType.REEFER: 18,
    TruckType.FLAT_BED: 9,
    TruckType.STEP_DECK: 4,
    TruckType.POWER_ONLY: 4,
    TruckType.VAN_WITH_TEAM: 3,
    TruckType.CONTAINER: 3,
}


def _truck_choices() -> tuple[list[TruckType], list[float]]:
    types = list(TruckType)
    rest = [t for t in types if t not in _TRUCK_WEIGHTS]
    share = (100 - sum(_TRUCK_WEIGHTS.values())) / len(rest)
    return types, [_TRUCK_WEIGHTS.get(t, share) for t in types]


def _contact(rng: random.Random, scac: str, country: str) -> tuple[str, str, str, str]:
    given, family = rng.choice(_GIVEN), rng.choice(_FAMILY)
    # 555-01xx numbers are reserved for fiction; .example domains never resolve.
    if country == "MX":
        phone = f"+52-55-5555-{rng.randrange(100, 200):04d}"
    else:
        phone = f"+1-800-555-{rng.randrange(100, 200):04d}"
    email = f"{given.lower()}.{family.lower()}@{scac.lower()}.example"
    return given, family, phone, email


def _position(rng: random.Random, place: Place) -> tuple[float, float]:
    """Around the place: trucks wait at yards, truck stops and warehouses within ~40 km."""
    distance_km = min(abs(rng.gauss(0, 15)), 60)
    bearing = rng.uniform(0, 2 * math.pi)
    dlat = math.degrees(distance_km * math.cos(bearing) / EARTH_RADIUS_KM)
    dlon = math.degrees(
        distance_km * math.sin(bearing) / EARTH_RADIUS_KM / math.cos(math.radians(place.latitude))
    )
    return round(place.latitude + dlat, 5), round(place.longitude + dlon, 5)


def vehicle_row(
    rng: random.Random,
    place: Place,
    now: datetime,
    *,
    pool: str = DEFAULT_POOL,
    shipper_tenant_id: int | None = None,
    truck_type: TruckType | None = None,
    position: tuple[float, float] | None = None,
    available_in_hours: float | None = None,
) -> dict[str, Any]:
    """The columns of one vehicle near `place` (random where not given)."""
    types, weights = _truck_choices()
    local = [c for c in CARRIERS if c[2] == place.country]
    scac, name, home = rng.choice(local if local and rng.random() < 0.7 else CARRIERS)
    given, family, phone, email = _contact(rng, scac, home)
    latitude, longitude = position or _position(rng, place)
    hours = rng.uniform(-12, 72) if available_in_hours is None else available_in_hours
    available_from = now + timedelta(minutes=15 * round(hours * 4))
    where = nearest_place(latitude, longitude) if position is not None else place
    return {
        # Deterministic for a seed, and distinct between pools seeded with the same seed.
        "vehicle_id": str(uuid.uuid5(_VEHICLE_IDS, f"{pool}/{rng.getrandbits(64)}")),
        "sharing_pool": pool,
        "carrier_scac": scac,
        "carrier_name": name,
        "contact_given_name": given,
        "contact_family_name": family,
        "contact_phone": phone,
        "contact_email": email,
        "truck_type": (truck_type or rng.choices(types, weights)[0]).value,
        "latitude": latitude,
        "longitude": longitude,
        "cell": cell_of(latitude, longitude),
        "city": where.city,
        "state": where.state,
        "country": where.country,
        "available_from": available_from,
        "available_until": available_from + timedelta(hours=rng.uniform(6, 48)),
        "shipper_tenant_id": shipper_tenant_id,
        "created_at": now,
    }


def seed_vehicles(
    session: Session,
    count: int,
    *,
    seed: int = 7,
    now: datetime | None = None,
    pool: str = DEFAULT_POOL,
    shipper_tenant_id: int | None = None,
    share_hauling_for_tenant: float = 0.1,
    replace: bool = False,
) -> int:
    """Add `count` vehicles around real freight cities, deterministically for a seed.

    A share of them haul for `shipper_tenant_id` (so `includeMyShipments` has something to
    exclude). With `replace`, the pool's vehicles are removed first. Returns how many were added.
    """
    rng = random.Random(seed)
    now = (now or utcnow()).replace(minute=0, second=0, microsecond=0)
    if replace:
        session.execute(delete(VehicleRow).where(VehicleRow.sharing_pool == pool))
    weights = [place.weight for place in PLACES]
    batch: list[dict[str, Any]] = []
    for _ in range(count):
        place = rng.choices(PLACES, weights)[0]
        mine = shipper_tenant_id if rng.random() < share_hauling_for_tenant else None
        batch.append(vehicle_row(rng, place, now, pool=pool, shipper_tenant_id=mine))
        if len(batch) == 5000:
            session.execute(insert(VehicleRow), batch)
            batch = []
    if batch:
        session.execute(insert(VehicleRow), batch)
    # Fresh statistics, or the PostgreSQL planner, still believing the table empty, scans
    # the whole pool instead of looking up the search's grid cells.
    session.execute(text(f"ANALYZE {VehicleRow.__tablename__}"))
    return count
