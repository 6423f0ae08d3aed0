"""Ocean point-to-point sailing schedules."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from freightdesk.models.base import WireModel
from freightdesk.models.common import PaginationInfo

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
MAX_TRANSSHIPMENTS = 10


class ScheduleSort(StrEnum):
    DEPARTURE_DATE_TIME = "DEPARTURE_DATE_TIME"
    ARRIVAL_DATE_TIME = "ARRIVAL_DATE_TIME"
    TRANSIT_TIME = "TRANSIT_TIME"


class OceanCarrier(WireModel):
    carrier_code: str = Field(description="SCAC")
    carrier_name: str
    service_count: int
    port_count: int


class OceanCarriers(WireModel):
    carriers: list[OceanCarrier]


class PortCall(WireModel):
    """A port and a moment there, in the port's local time (with its offset)."""

    locode: str
    port_name: str
    country: str
    date_time: datetime


class Transshipment(WireModel):
    locode: str
    port_name: str
    country: str
    arrival_date_time: datetime
    departure_date_time: datetime


class RouteLeg(WireModel):
    sequence: int
    service_code: str
    service_name: str
    vessel_name: str
    voyage_number: str
    departure: PortCall
    arrival: PortCall
    transit_time_days: int


class PointToPointRoute(WireModel):
    route_id: str
    carrier_code: str
    carrier_name: str
    service_code: str
    service_name: str
    vessel_name: str
    voyage_number: str
    departure: PortCall
    arrival: PortCall
    # Containers must be at the origin terminal by then (24 hours before departure).
    cargo_cutoff_date_time: datetime
    transit_time_days: int
    transshipment_count: int
    transshipments: list[Transshipment]
    legs: list[RouteLeg]


class PointToPointRoutes(WireModel):
    pagination_info: PaginationInfo
    results: list[PointToPointRoute]
