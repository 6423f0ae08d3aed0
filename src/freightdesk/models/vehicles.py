"""Available truckload vehicles near a place (capacity co-op members only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Self
from uuid import UUID

from pydantic import AwareDatetime, Field, field_validator, model_validator

from freightdesk.models.addresses import country_code
from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import (
    YEARS_1900_TO_2999,
    Address,
    ContactInfo,
    GeoCoordinates,
    Int32,
    PaginationInfo,
)

MAX_PAGE = 1000
MAX_SIZE = 1000
DEFAULT_SIZE = 10
DEFAULT_WINDOW_HOURS = 24
# Where an address must name its state (or province) to be located.
STATES_REQUIRED = frozenset({"US", "MX", "CA"})


class RadiusUnit(StrEnum):
    FT = "FT"
    M = "M"
    MI = "MI"
    KM = "KM"


# Metres per unit, and the valid radius and default per unit. The interface gives miles
# (10 to 50, default 25) and kilometres (16 to 80, default 40); feet and metres are the same
# distances converted (and rounded to whole units).
METRES_PER_UNIT: dict[RadiusUnit, float] = {
    RadiusUnit.FT: 0.3048,
    RadiusUnit.M: 1.0,
    RadiusUnit.MI: 1609.344,
    RadiusUnit.KM: 1000.0,
}
RADIUS_RULES: dict[RadiusUnit, tuple[int, int, int]] = {
    RadiusUnit.MI: (10, 50, 25),
    RadiusUnit.KM: (16, 80, 40),
    RadiusUnit.FT: (52_800, 264_000, 132_000),
    RadiusUnit.M: (16_000, 80_000, 40_000),
}


class TruckType(StrEnum):
    """The interface's list ("and others") completed with the usual load board equipment."""

    AUTO_CARRIER = "AUTO_CARRIER"
    B_TRAIN = "B_TRAIN"
    CONESTOGA = "CONESTOGA"
    CONTAINER = "CONTAINER"
    CONTAINER_INSULATED = "CONTAINER_INSULATED"
    CONTAINER_REFRIGERATED = "CONTAINER_REFRIGERATED"
    CONVEYOR = "CONVEYOR"
    DOUBLE_DROP = "DOUBLE_DROP"
    DROP_DECK_LANDOLL = "DROP_DECK_LANDOLL"
    DUMP_TRAILER = "DUMP_TRAILER"
    FLAT_BED = "FLAT_BED"
    FLATBED_AIR_RIDE = "FLATBED_AIR_RIDE"
    FLATBED_CONESTOGA = "FLATBED_CONESTOGA"
    FLATBED_DOUBLE = "FLATBED_DOUBLE"
    FLATBED_HAZMAT = "FLATBED_HAZMAT"
    FLATBED_HOTSHOT = "FLATBED_HOTSHOT"
    FLATBED_MAXI = "FLATBED_MAXI"
    FLATBED_OVERDIMENSION = "FLATBED_OVERDIMENSION"
    FLATBED_WITH_SIDES = "FLATBED_WITH_SIDES"
    FLATBED_WITH_TARPS = "FLATBED_WITH_TARPS"
    FLATBED_WITH_TEAM = "FLATBED_WITH_TEAM"
    HOPPER_BOTTOM = "HOPPER_BOTTOM"
    LOWBOY = "LOWBOY"
    LOWBOY_OVERDIMENSION = "LOWBOY_OVERDIMENSION"
    MOVING_VAN = "MOVING_VAN"
    PNEUMATIC = "PNEUMATIC"
    POWER_ONLY = "POWER_ONLY"
    REEFER = "REEFER"
    REEFER_AIR_RIDE = "REEFER_AIR_RIDE"
    REEFER_DOUBLE = "REEFER_DOUBLE"
    REEFER_HAZMAT = "REEFER_HAZMAT"
    REEFER_INTERMODAL = "REEFER_INTERMODAL"
    REEFER_WITH_TEAM = "REEFER_WITH_TEAM"
    REMOVABLE_GOOSENECK = "REMOVABLE_GOOSENECK"
    STEP_DECK = "STEP_DECK"
    STRAIGHT_BOX_TRUCK = "STRAIGHT_BOX_TRUCK"
    STRETCH_TRAILER = "STRETCH_TRAILER"
    TANKER_ALUMINUM = "TANKER_ALUMINUM"
    TANKER_INTERMODAL = "TANKER_INTERMODAL"
    TANKER_STEEL = "TANKER_STEEL"
    TRUCK_AND_TRAILER = "TRUCK_AND_TRAILER"
    VAN = "VAN"
    VAN_AIR_RIDE = "VAN_AIR_RIDE"
    VAN_CONESTOGA = "VAN_CONESTOGA"
    VAN_DOUBLE = "VAN_DOUBLE"
    VAN_HAZMAT = "VAN_HAZMAT"
    VAN_HOTSHOT = "VAN_HOTSHOT"
    VAN_INSULATED = "VAN_INSULATED"
    VAN_INTERMODAL = "VAN_INTERMODAL"
    VAN_LIFT_GATE = "VAN_LIFT_GATE"
    VAN_OPEN_TOP = "VAN_OPEN_TOP"
    VAN_ROLLER_BED = "VAN_ROLLER_BED"
    VAN_TRIPLE = "VAN_TRIPLE"
    VAN_VENTED = "VAN_VENTED"
    VAN_WITH_CURTAINS = "VAN_WITH_CURTAINS"
    VAN_WITH_TEAM = "VAN_WITH_TEAM"


class VehicleSortField(StrEnum):
    DISTANCE = "distance"
    CARRIER_CONTACT = "carrierContact"
    ESTIMATED_ARRIVAL_DATE_TIME = "estimatedArrivalDateTime"
    TRUCK_TYPE = "truckType"


class TimeRange(WireModel):
    start_date_time: AwareDatetime = Field(json_schema_extra=YEARS_1900_TO_2999)
    end_date_time: AwareDatetime | None = Field(default=None, json_schema_extra=YEARS_1900_TO_2999)

    @field_validator("start_date_time", "end_date_time")
    @classmethod
    def _plausible(cls, value: datetime | None) -> datetime | None:
        if value is not None and not 1900 <= value.year <= 2999:
            raise ValueError("must be a date-time between the years 1900 and 2999")
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end_date_time is not None and self.end_date_time < self.start_date_time:
            raise ValueError("endDateTime must not be before startDateTime")
        return self


class AvailableVehiclesQuery(StrictWireModel):
    address: Address | None = None
    geo_coordinates: GeoCoordinates | None = None
    time_range: TimeRange
    radius: Int32 | None = None
    radius_unit: RadiusUnit | None = None
    include_my_shipments: bool = True
    sharing_pool: str | None = Field(default=None, min_length=1, max_length=60)
    truck_type: TruckType | None = None


class Distance(WireModel):
    value: float
    unit: RadiusUnit


class VehicleLocation(WireModel):
    """The place the vehicle is at or nearest to."""

    city: str
    state: str | None = None
    country: str


class CarrierIdentifier(WireModel):
    type: str = "SCAC"
    value: str


class AvailableVehicle(WireModel):
    vehicle_id: UUID
    carrier_identifier: CarrierIdentifier
    carrier_name: str
    carrier_contact: ContactInfo
    truck_type: TruckType
    geo_coordinates: GeoCoordinates
    location: VehicleLocation
    distance: Distance
    # When the vehicle is (or was) empty at this position and ready to load.
    estimated_arrival_date_time: datetime
    available_until_date_time: datetime
    sharing_pool: str
    # The vehicle is hauling (or just delivered) a shipment of the caller's own tenant.
    my_shipment: bool = False


class AvailableVehicles(WireModel):
    pagination_info: PaginationInfo
    results: list[AvailableVehicle]


# --- rules beyond the fields' own ------------------------------------------------------------
# The service refuses with these (each message keyed by its field path) and the app checks a
# search with them before sending, so both say the same beside the same field.

Problems = list[tuple[str, str]]


def address_problems(address: Address) -> Problems:
    """What a search address lacks to be located: postal code, a street line, the city, and
    the state where the country has states (USA, Mexico, Canada)."""
    country = country_code(address.country) or address.country
    problems: Problems = []
    if not address.postal_code or not address.postal_code.strip():
        problems.append(("address.postalCode", "is required"))
    if not [line for line in address.address_lines if line.strip()]:
        problems.append(("address.addressLines", "needs at least one line"))
    if not address.city or not address.city.strip():
        problems.append(("address.city", "is required"))
    if country in STATES_REQUIRED and (not address.state or not address.state.strip()):
        problems.append(("address.state", f"is required for an address in {country}"))
    return problems


def place_problems(query: AvailableVehiclesQuery) -> Problems:
    """The search's centre: an address (complete) or coordinates, one of them at least."""
    if query.address is not None:
        return address_problems(query.address)
    if query.geo_coordinates is None:
        return [
            ("address", "give address or geoCoordinates"),
            ("geoCoordinates", "give address or geoCoordinates"),
        ]
    return []


def radius_of(query: AvailableVehiclesQuery) -> tuple[int, RadiusUnit]:
    """The radius asked (its unit's default when none) and its unit (miles when none);
    ValueError (naming the bounds) when it is outside its unit's bounds."""
    unit = query.radius_unit or RadiusUnit.MI
    low, high, default = RADIUS_RULES[unit]
    radius = default if query.radius is None else query.radius
    if not low <= radius <= high:
        raise ValueError(f"must be from {low} to {high} {unit.value}")
    return radius, unit


def query_problems(query: AvailableVehiclesQuery) -> Problems:
    """Every problem of a search the fields' own rules let through (the radius, the centre)."""
    problems: Problems = []
    try:
        radius_of(query)
    except ValueError as exc:
        problems.append(("radius", str(exc)))
    return problems + place_problems(query)


@dataclass(frozen=True)
class VehicleSort:
    """One sort key; several keys sort by the first, then the next, and so on."""

    field: VehicleSortField
    descending: bool = False

    def param(self) -> str:
        return f"{self.field.value},{'desc' if self.descending else 'asc'}"
