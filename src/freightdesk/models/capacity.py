"""Connected capacity: carriers (and carriers on a lane) ranked by tracking performance."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Self

from pydantic import Field, field_validator, model_validator

from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import Address

STATISTICS_DAYS = 365
RECENT_DAYS = 90
SCHEDULE_TOLERANCE_HOURS = 2


class VolumeBucket(StrEnum):
    VOLUME_0_TO_10_SHIPMENTS = "VOLUME_0_TO_10_SHIPMENTS"
    VOLUME_11_TO_50_SHIPMENTS = "VOLUME_11_TO_50_SHIPMENTS"
    VOLUME_51_TO_100_SHIPMENTS = "VOLUME_51_TO_100_SHIPMENTS"
    VOLUME_101_OR_MORE_SHIPMENTS = "VOLUME_101_OR_MORE_SHIPMENTS"

    @classmethod
    def of(cls, volume: int) -> VolumeBucket:
        if volume <= 10:
            return cls.VOLUME_0_TO_10_SHIPMENTS
        if volume <= 50:
            return cls.VOLUME_11_TO_50_SHIPMENTS
        if volume <= 100:
            return cls.VOLUME_51_TO_100_SHIPMENTS
        return cls.VOLUME_101_OR_MORE_SHIPMENTS

    @property
    def rank(self) -> int:
        return list(VolumeBucket).index(self)


class CapacitySortBy(StrEnum):
    SHIPMENT_VOLUME = "SHIPMENT_VOLUME"
    RECENT_SHIPMENT_VOLUME = "RECENT_SHIPMENT_VOLUME"
    DELIVERY_SCHEDULE_RELIABILITY = "DELIVERY_SCHEDULE_RELIABILITY"
    PICKUP_SCHEDULE_RELIABILITY = "PICKUP_SCHEDULE_RELIABILITY"
    PERCENT_TRACKED = "PERCENT_TRACKED"
    RECENT_PERCENT_TRACKED = "RECENT_PERCENT_TRACKED"


class SortDirection(StrEnum):
    ASC = "ASC"
    DESC = "DESC"


class CarrierIdentifierType(StrEnum):
    SCAC = "SCAC"


class CarrierIdentifier(WireModel):
    type: CarrierIdentifierType
    value: str = Field(min_length=2, max_length=4, pattern=r"^\s*[A-Za-z]{2,4}\s*$")

    @field_validator("value")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.strip().upper()


class CarrierSearch(StrictWireModel):
    carrier_identifier: CarrierIdentifier | None = None
    minimum_delivery_schedule_reliability: int | None = Field(default=None, ge=0, le=100)
    minimum_pickup_schedule_reliability: int | None = Field(default=None, ge=0, le=100)
    minimum_tracking_percentage: int | None = Field(default=None, ge=0, le=100)
    minimum_volume: VolumeBucket | None = None
    sort_by: CapacitySortBy = CapacitySortBy.SHIPMENT_VOLUME
    sort_direction: SortDirection = SortDirection.DESC


class LaneAddress(Address):
    """A lane end: any of city, state, postalCode (a prefix, e.g. a 3-digit ZIP) and country."""

    @model_validator(mode="after")
    def _names_something(self) -> Self:
        given = self.model_fields_set & {"city", "state", "postal_code", "country"}
        if not any(getattr(self, name) for name in given):
            raise ValueError("name at least one of city, state, postalCode or country")
        return self


class LaneSearch(CarrierSearch):
    origin: LaneAddress
    destination: LaneAddress


class CarrierPerformance(WireModel):
    carrier_identifier: CarrierIdentifier
    carrier_name: str | None = None
    shipment_volume: int
    recent_shipment_volume: int
    volume_bucket: VolumeBucket
    # Percentages (0 to 100); absent when no shipment could be measured.
    delivery_schedule_reliability: int | None = None
    pickup_schedule_reliability: int | None = None
    percent_tracked: int | None = None
    recent_percent_tracked: int | None = None
    deliveries_measured: int = 0
    pickups_measured: int = 0
    last_shipment_date_time: datetime | None = None


class LaneEnd(WireModel):
    """A lane end as asked (no default country: an absent one matched any country)."""

    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None


class CarrierLanePerformance(CarrierPerformance):
    origin: LaneEnd
    destination: LaneEnd


class CarrierPerformances(WireModel):
    carrier_performances: list[CarrierPerformance]


class CarrierLanePerformances(WireModel):
    carrier_lane_performances: list[CarrierLanePerformance]
