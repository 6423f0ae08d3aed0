"""North American rail tracking (the spec's "Rail shipment" and "Rail tracking")."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Self
from uuid import UUID

from pydantic import AwareDatetime, Field, field_validator, model_validator

from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import NOT_BLANK, GeoCoordinates, PaginationInfo
from freightdesk.models.tracking import AppointmentWindow

TRACKING_START_WINDOW_DAYS = 90
MAX_SHIPMENT_IDENTIFIERS = 10


class EquipmentIdentifierType(StrEnum):
    CONTAINER_ID = "CONTAINER_ID"
    TRAILER_ID = "TRAILER_ID"
    RAIL_CAR_ID = "RAIL_CAR_ID"


class RailShipmentIdentifierType(StrEnum):
    BILL_OF_LADING = "BILL_OF_LADING"
    WAYBILL = "WAYBILL"


class RailStopType(StrEnum):
    ORIGIN = "ORIGIN"
    DESTINATION = "DESTINATION"


class MessageSeverity(StrEnum):
    """`infoMessages` never carry ERROR: errors are answered with the Error body instead."""

    INFO = "INFO"
    WARNING = "WARNING"


class EquipmentStatusCode(StrEnum):
    """What happened to a piece of equipment, in the order it normally happens."""

    INGATE = "INGATE"
    RAMPED = "RAMPED"
    DEPARTED = "DEPARTED"
    ARRIVED_AT_INTERCHANGE = "ARRIVED_AT_INTERCHANGE"
    DEPARTED_INTERCHANGE = "DEPARTED_INTERCHANGE"
    ARRIVED = "ARRIVED"
    DERAMPED = "DERAMPED"
    NOTIFIED = "NOTIFIED"
    OUTGATE = "OUTGATE"
    DELIVERED = "DELIVERED"


_CONTAINER = re.compile(r"^[A-Z]{3}[UJZ]\d{7}$")
_RAIL_CAR = re.compile(r"^[A-Z]{2,4}\d{1,6}$")
_TRAILER = re.compile(r"^[A-Z0-9]{1,20}$")


class EquipmentIdentifier(WireModel):
    type: EquipmentIdentifierType
    value: str = Field(min_length=1, max_length=30)

    @model_validator(mode="after")
    def _format(self) -> Self:
        compact = "".join(self.value.split()).upper().replace("-", "")
        if self.type is EquipmentIdentifierType.CONTAINER_ID and not _CONTAINER.match(compact):
            raise ValueError(
                "a CONTAINER_ID is an ISO 6346 number: owner code, category U, J or Z and "
                "7 digits, for example MSKU1234565"
            )
        if self.type is EquipmentIdentifierType.RAIL_CAR_ID and not _RAIL_CAR.match(compact):
            raise ValueError(
                "a RAIL_CAR_ID is a reporting mark of 2 to 4 letters and up to 6 digits, "
                "for example TTGX 123456"
            )
        if self.type is EquipmentIdentifierType.TRAILER_ID and not _TRAILER.match(compact):
            raise ValueError("a TRAILER_ID has 1 to 20 letters and digits")
        self.value = compact
        return self


class RailShipmentIdentifier(WireModel):
    type: RailShipmentIdentifierType
    value: str = Field(min_length=1, max_length=50, json_schema_extra=NOT_BLANK)

    @field_validator("value")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be blank")
        return value


class RailAddress(WireModel):
    """A rail stop's address: `pointName` is the station or place the railroad names."""

    point_name: str | None = Field(default=None, max_length=100)
    address_lines: list[str] = Field(default_factory=list, max_length=3)
    city: str | None = Field(default=None, max_length=100)
    state: str | None = Field(default=None, max_length=50)
    postal_code: str | None = Field(default=None, max_length=20)
    country: str | None = Field(default=None, max_length=60)


class RailLocation(WireModel):
    address: RailAddress | None = None
    id: str | None = Field(default=None, max_length=100)


class ShipmentStop(WireModel):
    appointment_window: AppointmentWindow | None = None
    geo_coordinates: GeoCoordinates | None = None
    id: UUID | None = None
    location: RailLocation | None = None
    stop_name: str | None = Field(default=None, max_length=200)
    stop_number: int = Field(ge=1, le=2)
    type: RailStopType | None = None


class RailShipmentCreate(StrictWireModel):
    # Bounds for the document; _exactly_one answers with its own message.
    equipment_identifiers: list[EquipmentIdentifier] = Field(
        json_schema_extra={"minItems": 1, "maxItems": 1}
    )
    shipment_identifiers: list[RailShipmentIdentifier] = Field(
        default_factory=list, max_length=MAX_SHIPMENT_IDENTIFIERS
    )
    tracking_start_date_time: AwareDatetime | None = None
    master_shipment_id: UUID | None = None
    shipment_stops: list[ShipmentStop] = Field(default_factory=list)
    # Present only to answer a clear message: both are the service's to assign.
    id: Any = Field(default=None, json_schema_extra={"readOnly": True})
    rail_leg_id: Any = Field(default=None, json_schema_extra={"readOnly": True})

    @field_validator("equipment_identifiers")
    @classmethod
    def _exactly_one(cls, value: list[EquipmentIdentifier]) -> list[EquipmentIdentifier]:
        if len(value) != 1:
            raise ValueError(f"exactly one equipment identifier is allowed, not {len(value)}")
        return value

    @field_validator("shipment_identifiers")
    @classmethod
    def _distinct(cls, value: list[RailShipmentIdentifier]) -> list[RailShipmentIdentifier]:
        keys = [(i.type, i.value) for i in value]
        if len(keys) != len(set(keys)):
            raise ValueError("a shipment identifier is repeated")
        return value

    @field_validator("id")
    @classmethod
    def _no_id(cls, value: Any) -> None:
        if value is not None:
            raise ValueError(
                "is deprecated and assigned by the service; refer to legs by railLegId"
            )
        return None

    @field_validator("rail_leg_id")
    @classmethod
    def _no_leg_id(cls, value: Any) -> None:
        if value is not None:
            raise ValueError("is assigned by the service; do not supply it on create")
        return None

    @field_validator("shipment_stops")
    @classmethod
    def _origin_and_destination(cls, value: list[ShipmentStop]) -> list[ShipmentStop]:
        if not value:
            return value
        if len(value) != 2:
            raise ValueError(
                "give both stops, origin (stopNumber 1) and destination (stopNumber 2)"
            )
        numbers = sorted(stop.stop_number for stop in value)
        if numbers != [1, 2]:
            raise ValueError("the stops need stopNumber 1 (origin) and 2 (destination)")
        for stop in value:
            expected = RailStopType.ORIGIN if stop.stop_number == 1 else RailStopType.DESTINATION
            if stop.type is not None and stop.type is not expected:
                raise ValueError(
                    f"stop {stop.stop_number} has type {stop.type}, expected {expected}"
                )
        return value


def tracking_start_problem(
    start: datetime | None, has_shipment_identifiers: bool, now: datetime
) -> str | None:
    """What is wrong with `trackingStartDateTime`, or None. It depends on the clock, so it is
    not a validator of `RailShipmentCreate`: the service and the app's form each ask it."""
    if start is None:
        if has_shipment_identifiers:
            return None
        return "is required when no shipment identifier (BILL_OF_LADING or WAYBILL) is given"
    limit = timedelta(days=TRACKING_START_WINDOW_DAYS)
    if start < now - limit:
        return f"must not be more than {TRACKING_START_WINDOW_DAYS} days in the past"
    if start > now + limit:
        return f"must not be more than {TRACKING_START_WINDOW_DAYS} days in the future"
    return None


class InfoMessage(WireModel):
    severity: MessageSeverity
    message: str
    source: str | None = None


class RailShipment(WireModel):
    id: int = Field(description="Deprecated; use railLegId")
    rail_leg_id: UUID
    master_shipment_id: UUID
    equipment_identifiers: list[EquipmentIdentifier]
    shipment_identifiers: list[RailShipmentIdentifier] = Field(default_factory=list)
    tracking_start_date_time: datetime | None = None
    shipment_stops: list[ShipmentStop] = Field(default_factory=list)
    created_date_time: datetime | None = None


class RailShipmentResponse(WireModel):
    info_messages: list[InfoMessage] = Field(default_factory=list)
    shipment: RailShipment


class RailPoint(WireModel):
    """Where a status happened: a ramp or interchange gateway (or the customer's stop)."""

    name: str
    city: str | None = None
    state: str | None = None
    country: str | None = None
    geo_coordinates: GeoCoordinates | None = None


class EquipmentStatusUpdate(WireModel):
    status: EquipmentStatusCode
    date_time: datetime
    description: str
    location: RailPoint
    railroad: str | None = None
    loaded: bool = True


class EquipmentStatus(WireModel):
    equipment_identifier: EquipmentIdentifier
    current_status: EquipmentStatusUpdate | None = None
    origin_ramp: RailPoint | None = None
    destination_ramp: RailPoint | None = None
    estimated_arrival_date_time: datetime | None = None
    # Only when includeStatusHistory is true: every update so far, oldest first.
    status_updates: list[EquipmentStatusUpdate] | None = None


class RailStatusResponse(WireModel):
    equipment_statuses: list[EquipmentStatus]
    info_messages: list[InfoMessage] = Field(default_factory=list)
    shipment: RailShipment


# The legs list's largest page (an extension): legs come with their statuses, so pages stay small.
MAX_PAGE_SIZE = 100


class RailShipmentList(WireModel):
    """A page of the tenant's rail legs with their statuses, newest first (an extension)."""

    pagination_info: PaginationInfo
    results: list[RailStatusResponse]
