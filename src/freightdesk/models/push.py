"""Carrier push: parcel status updates, truckload tracking updates, ingestion receipts.

The request shapes are strict (an unknown or misspelt field is refused rather than silently
dropped: a carrier would otherwise lose data without noticing). Rules that tie fields together
are model validators that report the path of the field at fault, so the Error body can name it.
The clock rule (at most 5 minutes in the future) needs a clock, so it is a function
(`future_problems`) that the service runs with its clock and the app with the user's.
`TRUCKLOAD_RULES` and `PARCEL_RULES` say every rule in words by field path, for a form to show
beside its fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AwareDatetime, BeforeValidator, Field, StringConstraints, model_validator
from pydantic import ValidationError as _ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import (
    INT32_MAX,
    LATITUDE_BOUND,
    LONGITUDE_BOUND,
    NOT_BLANK,
    Address,
    ContactInfo,
    GeoCoordinates,
    Int32,
    Int64,
    LogisticsIdentifier,
)
from freightdesk.models.tracking import SpeedUnit

MAX_CUSTOMER_ACCOUNT_NUMBER = 128
MAX_FUTURE_SECONDS = 5 * 60
MAX_TRUCKLOAD_IDENTIFIER = 200

NonBlank = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1), Field(json_schema_extra=NOT_BLANK)
]

# yyyy-MM-dd'T'HH:mm:ssZ. Java's `Z` is an RFC 822 offset (+0000); "Z" and "+00:00" are
# accepted too because they name the same instant unambiguously (see docs/spec-gaps.md).
_JAVA_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:?\d{2})")
# ISO 8601 date and time with an offset; seconds and fractions optional. A bare number or a
# space instead of the `T` is refused (pydantic alone would take both).
_ISO_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:?\d{2})"
)


def _java_timestamp(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _JAVA_TIMESTAMP.fullmatch(value):
        raise PydanticCustomError(
            "datetime_format",
            "must be formatted yyyy-MM-dd'T'HH:mm:ssZ, for example 2026-11-22T14:05:00+0000",
        )
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        raise PydanticCustomError(
            "datetime_parsing", "is not a real date and time: {value}", {"value": value}
        ) from None


def _iso_date_time(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _ISO_DATE_TIME.fullmatch(value):
        raise PydanticCustomError(
            "datetime_format",
            "must be an ISO 8601 date-time with an offset, for example 2026-11-22T14:05:00Z",
        )
    return value


JavaTimestamp = Annotated[
    AwareDatetime,
    BeforeValidator(_java_timestamp),
    # The document's pattern: seconds, no fraction, an offset (format date-time says the rest).
    Field(json_schema_extra={"pattern": "^" + _JAVA_TIMESTAMP.pattern + "$"}),
]
IsoDateTime = Annotated[AwareDatetime, BeforeValidator(_iso_date_time)]


def _problem(model: str, loc: tuple[str | int, ...], message: str, kind: str) -> _ValidationError:
    """A validation error about one field of a model, raised from a model validator."""
    return _ValidationError.from_exception_data(
        model, [InitErrorDetails(type=PydanticCustomError(kind, message), loc=loc, input=None)]
    )


# --- parcel status updates ---------------------------------------------------------------


class ParcelEventType(StrEnum):
    POSITION_UPDATE = "POSITION_UPDATE"
    ETA = "ETA"
    EXCEPTION = "EXCEPTION"
    DELIVERY_MISSED = "DELIVERY_MISSED"
    LOADED_FOR_DELIVERY = "LOADED_FOR_DELIVERY"
    OUT_FOR_DELIVERY = "OUT_FOR_DELIVERY"
    RETURN_TO_SENDER = "RETURN_TO_SENDER"
    SHIPMENT_RECEIVED = "SHIPMENT_RECEIVED"
    SHIPMENT_CREATED = "SHIPMENT_CREATED"
    AVAILABLE_FOR_PICKUP = "AVAILABLE_FOR_PICKUP"
    PICKED_UP = "PICKED_UP"
    ARRIVED_AT_STOP = "ARRIVED_AT_STOP"
    DEPARTED_STOP = "DEPARTED_STOP"
    DELIVERED = "DELIVERED"
    CANCELED = "CANCELED"


class ParcelLocation(WireModel):
    address: Address | None = None
    contact: ContactInfo | None = None
    geo_coordinates: GeoCoordinates | None = None


class ParcelStatusUpdate(StrictWireModel):
    """POST /api/v4/capacityproviders/parcel/shipments/statusupdates."""

    carrier_identifier: LogisticsIdentifier
    shipment_identifiers: list[LogisticsIdentifier] = Field(min_length=1, max_length=250)
    event_type: ParcelEventType
    timestamp: JavaTimestamp
    description: str | None = Field(default=None, max_length=1000)
    estimated_time_of_arrival: JavaTimestamp | None = None
    location: ParcelLocation | None = None
    # Extension: the customer tenant the update is for, as on the truckload push.
    customer_account_number: NonBlank | None = Field(
        default=None, max_length=MAX_CUSTOMER_ACCOUNT_NUMBER
    )

    @model_validator(mode="after")
    def _event_needs(self) -> ParcelStatusUpdate:
        name = type(self).__name__
        if self.event_type is ParcelEventType.POSITION_UPDATE:
            if self.location is None:
                raise _problem(name, ("location",), "is required for POSITION_UPDATE", "missing")
            if self.location.geo_coordinates is None and self.location.address is None:
                raise _problem(
                    name,
                    ("location",),
                    "needs geoCoordinates or an address for POSITION_UPDATE",
                    "missing",
                )
        if self.event_type is ParcelEventType.ETA and self.estimated_time_of_arrival is None:
            raise _problem(
                name, ("estimatedTimeOfArrival",), "is required for an ETA event", "missing"
            )
        return self


# --- truckload tracking updates ----------------------------------------------------------


class TruckloadIdentifiers(StrictWireModel):
    bill_of_lading_number: NonBlank | None = Field(
        default=None, max_length=MAX_TRUCKLOAD_IDENTIFIER
    )
    order_number: NonBlank | None = Field(default=None, max_length=MAX_TRUCKLOAD_IDENTIFIER)

    @model_validator(mode="after")
    def _one_needed(self) -> TruckloadIdentifiers:
        if self.bill_of_lading_number is None and self.order_number is None:
            raise _problem(
                type(self).__name__,
                (),
                "needs at least one of billOfLadingNumber or orderNumber",
                "missing",
            )
        return self


class TruckloadShipmentEvent(StrictWireModel):
    type: NonBlank = Field(max_length=60)
    date_time: IsoDateTime
    stop_number: int | None = Field(default=None, ge=1, le=INT32_MAX)


class TruckloadPosition(StrictWireModel):
    latitude: float = Field(ge=-LATITUDE_BOUND, le=LATITUDE_BOUND)
    longitude: float = Field(ge=-LONGITUDE_BOUND, le=LONGITUDE_BOUND)
    speed: float | None = Field(default=None, ge=0)
    heading: float | None = Field(default=None, ge=0, le=360)
    # The units the service can convert (speeds are kept in km/h); without one, km/h.
    speed_unit: SpeedUnit | None = None


class Reefer(StrictWireModel):
    state: str | None = None
    power_source: str | None = None
    operating_mode: str | None = None
    engine_rpm: float | None = Field(default=None, ge=0)
    engine_hours: float | None = Field(default=None, ge=0)
    voltage: float | None = None


class Fuel(StrictWireModel):
    type: str | None = None
    fuel_unit: str | None = None
    current_level: float | None = Field(default=None, ge=0)
    capacity: float | None = Field(default=None, ge=0)


class Temperature(StrictWireModel):
    value: float
    unit: NonBlank = Field(max_length=40)


class TirePressure(StrictWireModel):
    axle: Int32 | None = None
    position: str | None = None
    psi: float | None = Field(default=None, ge=0)
    alarm_state: str | None = None


class Percentage(StrictWireModel):
    percentage: float = Field(ge=0, le=100)


class ReeferZone(StrictWireModel):
    id: str | Int64 | None = None
    return_air_temperature: float | None = None
    discharge_air_temperature: float | None = None
    set_point: float | None = None
    temperature_unit: str | None = None
    humidity: Percentage | None = None
    battery: Percentage | None = None
    door_state: str | None = None


class Sensor(StrictWireModel):
    ignition_status: str | None = None
    reefer: Reefer | None = None
    fuel: Fuel | None = None
    ambient_temperature: Temperature | None = None
    tire_pressure: list[TirePressure] | None = Field(default=None, max_length=64)
    zones: list[ReeferZone] | None = Field(default=None, max_length=16)

    @model_validator(mode="after")
    def _not_empty(self) -> Sensor:
        if not any(getattr(self, name) for name in type(self).model_fields):
            raise _problem(type(self).__name__, (), "carries no reading", "missing")
        return self


class Readings(StrictWireModel):
    date_time: IsoDateTime
    position: TruckloadPosition | None = None
    sensor: Sensor | None = None

    @model_validator(mode="after")
    def _one_needed(self) -> Readings:
        if self.position is None and self.sensor is None:
            raise _problem(
                type(self).__name__, (), "needs at least one of position or sensor", "missing"
            )
        return self


class Truckload(StrictWireModel):
    identifiers: TruckloadIdentifiers
    shipment_event: TruckloadShipmentEvent | None = None
    readings: Readings | None = None

    @model_validator(mode="after")
    def _one_needed(self) -> Truckload:
        if self.shipment_event is None and self.readings is None:
            raise _problem(
                type(self).__name__,
                (),
                "needs at least one of shipmentEvent or readings",
                "missing",
            )
        return self


class TruckloadTrackingUpdate(StrictWireModel):
    """POST /services/carrier-push/v1/tracking-updates."""

    customer_account_number: NonBlank | None = Field(
        default=None, max_length=MAX_CUSTOMER_ACCOUNT_NUMBER
    )
    truckload: Truckload


# --- the sensor's other readings, one by one ---------------------------------------------


@dataclass(frozen=True)
class SensorReading:
    """A reading of `Sensor` a form takes one at a time: where it goes under `sensor` (a
    zone's or a tire's inside its entry of `zones` or `tirePressure`), in words, and its unit:
    the codes to choose from (`chosen`: sent as the entry's `unit_field`), or a fixed one in
    words (`fixed`, not sent)."""

    path: str  # "reefer.engineRpm", "zones.humidity.percentage"
    words: str
    number: bool = True
    fixed: str = ""
    chosen: tuple[str, ...] = ()
    unit_field: str = ""


TEMPERATURE_UNITS = ("CELSIUS", "FAHRENHEIT")
FUEL_UNITS = ("PERCENT_REMAINING", "GALLONS", "LITERS")
ZONES = "zones"
TIRES = "tirePressure"

SENSOR_READINGS: dict[str, SensorReading] = {
    r.path: r
    for r in (
        SensorReading("reefer.state", "Reefer state", number=False),
        SensorReading("reefer.powerSource", "Reefer power source", number=False),
        SensorReading("reefer.operatingMode", "Reefer operating mode", number=False),
        SensorReading("reefer.engineRpm", "Reefer engine speed", fixed="RPM"),
        SensorReading("reefer.engineHours", "Reefer engine hours", fixed="hours"),
        SensorReading("reefer.voltage", "Reefer voltage", fixed="volts"),
        SensorReading("fuel.type", "Fuel type", number=False),
        SensorReading("fuel.capacity", "Fuel capacity", chosen=FUEL_UNITS, unit_field="fuelUnit"),
        SensorReading(f"{TIRES}.psi", "Tire pressure", fixed="psi"),
        SensorReading(f"{TIRES}.alarmState", "Tire alarm", number=False),
        *(
            SensorReading(
                f"{ZONES}.{field}", words, chosen=TEMPERATURE_UNITS, unit_field="temperatureUnit"
            )
            for field, words in (
                ("setPoint", "Zone set point"),
                ("returnAirTemperature", "Zone return air temperature"),
                ("dischargeAirTemperature", "Zone discharge air temperature"),
            )
        ),
        SensorReading(f"{ZONES}.humidity.percentage", "Zone humidity", fixed="%"),
        SensorReading(f"{ZONES}.battery.percentage", "Zone battery", fixed="%"),
        SensorReading(f"{ZONES}.doorState", "Zone door", number=False),
    )
}


# --- rules in words, and the clock rule ------------------------------------------------

_FUTURE = "at most 5 minutes in the future"
_ISO = "ISO 8601 with an offset, e.g. 2026-11-22T14:05:00Z"

TRUCKLOAD_RULES: dict[str, str] = {
    "customerAccountNumber": (
        f"Optional: the customer's company id, at most {MAX_CUSTOMER_ACCOUNT_NUMBER} characters; "
        "empty for your own shipments (only a carrier's account may name another company)"
    ),
    "truckload": "A shipment event, readings, or both",
    "truckload.identifiers": (
        "At least one of bill of lading number or order number, "
        f"each at most {MAX_TRUCKLOAD_IDENTIFIER} characters"
    ),
    "truckload.identifiers.orderNumber": (
        f"Optional with a bill of lading; at most {MAX_TRUCKLOAD_IDENTIFIER} characters"
    ),
    "truckload.shipmentEvent.type": "Required with an event (at most 60 characters)",
    "truckload.shipmentEvent.dateTime": f"Required with an event; {_ISO}; {_FUTURE}",
    "truckload.shipmentEvent.stopNumber": "Optional: a whole number from 1",
    "truckload.readings": "At least one of a position or a sensor reading",
    "truckload.readings.dateTime": f"Required with readings; {_ISO}; {_FUTURE}",
    "truckload.readings.position.latitude": "-90 to 90; required with a position",
    "truckload.readings.position.longitude": "-180 to 180; required with a position",
    "truckload.readings.position.speed": "Optional: 0 or more",
    "truckload.readings.position.heading": "Optional: 0 to 360 degrees",
    "truckload.readings.position.speedUnit": (
        f"{SpeedUnit.KILOMETERS_PER_HOUR.value} when not given"
    ),
    "truckload.readings.sensor.ignitionStatus": "Optional, e.g. ON or OFF",
    "truckload.readings.sensor.ambientTemperature": "A value with its unit (e.g. CELSIUS)",
    "truckload.readings.sensor.fuel": "0 or more; a fuel capacity (More sensors) in its unit",
    "truckload.readings.sensor": (
        "Other readings, one a row. Zone or tire: the zone's id (e.g. 1), or the tire's axle "
        "and position (e.g. 2 LO); at most 16 zones and 64 tires, one temperature unit a zone"
    ),
}

PARCEL_RULES: dict[str, str] = {
    "carrierIdentifier": "Required: type (e.g. SCAC) and value",
    "shipmentIdentifiers": "Required: 1 to 250 tracking numbers, separated by commas",
    "eventType": "Required",
    "timestamp": "Required; yyyy-MM-dd'T'HH:mm:ssZ, e.g. 2026-11-22T14:05:00+0000; " + _FUTURE,
    "description": "Optional: at most 1000 characters",
    "estimatedTimeOfArrival": "Required for ETA; yyyy-MM-dd'T'HH:mm:ssZ",
    "location": "Required for POSITION_UPDATE: coordinates or an address",
    "location.address": (
        "Optional; the country's two-letter code, e.g. US or CA (US when not given)"
    ),
    "location.geoCoordinates.latitude": "-90 to 90",
    "location.geoCoordinates.longitude": "-180 to 180",
    "customerAccountNumber": TRUCKLOAD_RULES["customerAccountNumber"],
}


def future_problems(
    update: TruckloadTrackingUpdate | ParcelStatusUpdate, now: datetime
) -> list[tuple[str, str]]:
    """Timestamps more than 5 minutes ahead of `now`, with their paths.

    An estimated time of arrival is about the future by nature and is not checked.
    """
    stamps: list[tuple[str, datetime]] = []
    if isinstance(update, TruckloadTrackingUpdate):
        truckload = update.truckload
        if truckload.shipment_event is not None:
            stamps.append(("truckload.shipmentEvent.dateTime", truckload.shipment_event.date_time))
        if truckload.readings is not None:
            stamps.append(("truckload.readings.dateTime", truckload.readings.date_time))
    else:
        stamps.append(("timestamp", update.timestamp))
    limit = now + timedelta(seconds=MAX_FUTURE_SECONDS)
    return [
        (path, f"is more than 5 minutes in the future ({value.isoformat()})")
        for path, value in stamps
        if value > limit
    ]


# --- receipts ----------------------------------------------------------------------------


class IngestionAccepted(WireModel):
    """The 202 body of both push operations."""

    ingestion_id: str


class IngestionStatus(StrEnum):
    PENDING = "PENDING"
    PROCESSED = "PROCESSED"
    UNMATCHED = "UNMATCHED"
    FAILED = "FAILED"


class Ingestion(WireModel):
    """GET /services/carrier-push/v1/ingestions/{ingestionId} (extension)."""

    ingestion_id: str
    received_date_time: datetime
    status: IngestionStatus
    matched_shipment_ids: list[str] = Field(default_factory=list)
    processed_date_time: datetime | None = None
    error: str | None = None
