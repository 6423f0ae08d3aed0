"""Stop locations: named places (warehouses, docks, yards) with hours, contacts and geofence.

The plain shapes are lenient (what the service answers, read by the client); the `...Input`
shapes are what a create or update sends, strict so that a misspelt field such as
`appliesMonady` is refused instead of silently dropped. The rules beyond shape (a name plus a
street address or coordinates, valid hours, geofence value, ...) are checked by the service.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Any, TypeVar
from uuid import UUID

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field

from freightdesk.models.addresses import AddressInput
from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import (
    INT64_MAX,
    NO_CONTROL,
    PRINTABLE,
    Address,
    GeoCoordinates,
    printable,
)

MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 10
MAX_CONTACTS = 50
MAX_OPENING_HOURS = 50
MAX_SPECIAL_OPENING_HOURS = 366


class AddressSpecificity(StrEnum):
    """How precisely the address pins the place, from the whole country to one building."""

    COUNTRY = "COUNTRY"
    STATE = "STATE"
    COUNTY = "COUNTY"
    CITY = "CITY"
    DISTRICT = "DISTRICT"
    POSTAL_CODE = "POSTAL_CODE"
    STREET = "STREET"
    INTERSECTION = "INTERSECTION"
    LANDMARK = "LANDMARK"
    HOUSE_NUMBER = "HOUSE_NUMBER"


class GeofenceType(StrEnum):
    """What a geofence's `value` measures: travel time or distance around the location."""

    TIME = "TIME"
    DISTANCE = "DISTANCE"


class GeofenceUnits(StrEnum):
    SECONDS = "SECONDS"
    MINUTES = "MINUTES"
    HOURS = "HOURS"
    METERS = "METERS"
    KILOMETERS = "KILOMETERS"
    FEET = "FEET"
    MILES = "MILES"


# Which units fit which geofence type.
GEOFENCE_UNITS: dict[GeofenceType, tuple[GeofenceUnits, ...]] = {
    GeofenceType.TIME: (GeofenceUnits.SECONDS, GeofenceUnits.MINUTES, GeofenceUnits.HOURS),
    GeofenceType.DISTANCE: (
        GeofenceUnits.METERS,
        GeofenceUnits.KILOMETERS,
        GeofenceUnits.FEET,
        GeofenceUnits.MILES,
    ),
}

# Unknown fields are a mistake; NaN and Infinity (which Python's JSON parser accepts) too.
_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False)

_T = TypeVar("_T")


def _no_control(value: str | None) -> str | None:
    return None if value is None else printable(value)


def _none_as_empty(value: object) -> object:
    return [] if value is None else value


# A list that may arrive as null, which means the same as empty.
Items = Annotated[list[_T], BeforeValidator(_none_as_empty)]


class GeofenceCrs(WireModel):
    """A GeoJSON-style named CRS, e.g. `{"type": "name", "properties": {"name": "EPSG:4326"}}`."""

    type: str | None = Field(default=None, max_length=100)
    properties: dict[str, Any] | None = None


class GeofenceGeometry(WireModel):
    bbox: list[float] | None = Field(default=None, max_length=6)
    crs: GeofenceCrs | None = None
    type: str | None = Field(default=None, max_length=100)


class Geofence(WireModel):
    geometry: GeofenceGeometry | None = None
    type: str | None = Field(default=None, max_length=50)
    units: str | None = Field(default=None, max_length=50)
    value: float | None = None


class StopLocationContact(WireModel):
    contact_id: str | None = Field(default=None, max_length=100)
    type: str | None = Field(default=None, max_length=100)


class OpeningHours(WireModel):
    """Hours on the days marked true; `opens` and `closes` are local times `HH:MM`.

    `closes` earlier than `opens` means the next day (a night shift, 22:00 to 06:00);
    `closes` may be `24:00` for the end of the day.
    """

    applies_monday: bool = False
    applies_tuesday: bool = False
    applies_wednesday: bool = False
    applies_thursday: bool = False
    applies_friday: bool = False
    applies_saturday: bool = False
    applies_sunday: bool = False
    # HH:MM for the document; the service's check says so in its own words (24:00 closes a day).
    opens: str | None = Field(
        default=None,
        max_length=20,
        json_schema_extra={"pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$"},
    )
    closes: str | None = Field(
        default=None,
        max_length=20,
        json_schema_extra={"pattern": r"^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$"},
    )

    def weekdays(self) -> tuple[bool, ...]:
        """Monday to Sunday."""
        return (
            self.applies_monday,
            self.applies_tuesday,
            self.applies_wednesday,
            self.applies_thursday,
            self.applies_friday,
            self.applies_saturday,
            self.applies_sunday,
        )


class SpecialOpeningHours(WireModel):
    """Hours that replace the regular ones from `validFrom` through `validThrough`.

    `hours` without `opens` and `closes` means closed on its days (a holiday).
    """

    hours: OpeningHours | None = None
    valid_from: date | None = None
    valid_through: date | None = None


class StopLocation(WireModel):
    id: UUID | None = None
    name: str
    address: Address
    address_specificity: AddressSpecificity | None = None
    coordinates: GeoCoordinates | None = None
    geofence: Geofence | None = None
    contacts: Items[StopLocationContact] = Field(default_factory=list)
    opening_hours: Items[OpeningHours] = Field(default_factory=list)
    special_opening_hours: Items[SpecialOpeningHours] = Field(default_factory=list)
    supplied_id: str | None = None
    version: int | None = None


class StopLocationList(WireModel):
    locations: list[StopLocation]
    offset: int
    page_size: int
    total_items: int


# --- what a create or update sends -------------------------------------------------------


class GeofenceCrsInput(GeofenceCrs, StrictWireModel):
    model_config = _STRICT


class GeofenceGeometryInput(GeofenceGeometry, StrictWireModel):
    model_config = _STRICT
    crs: GeofenceCrsInput | None = None


class GeofenceInput(Geofence, StrictWireModel):
    model_config = _STRICT
    geometry: GeofenceGeometryInput | None = None


class StopLocationContactInput(StopLocationContact, StrictWireModel):
    # Both fields required (the answer's shape leaves them optional); a blank one is refused
    # by the rules in their own words (stop_location_rules.checked_contacts).
    model_config = _STRICT

    contact_id: Annotated[
        str, Field(max_length=100, json_schema_extra=PRINTABLE), AfterValidator(printable)
    ]
    type: Annotated[
        str, Field(max_length=100, json_schema_extra=PRINTABLE), AfterValidator(printable)
    ]


class OpeningHoursInput(OpeningHours, StrictWireModel):
    model_config = _STRICT


class SpecialOpeningHoursInput(SpecialOpeningHours, StrictWireModel):
    model_config = _STRICT
    hours: OpeningHoursInput | None = None


class StopLocationInput(StrictWireModel):
    """A stop location to create (`id` absent or null) or to replace (PUT).

    `addressSpecificity` is computed by the service; a value sent (as in a location read
    back and sent again) is ignored. `version`, on an update, is the version the caller
    edited: a different current version is a conflict.
    """

    model_config = ConfigDict(allow_inf_nan=False)

    id: UUID | None = None
    # Blank is refused by the rules in their own words; control characters here.
    name: Annotated[
        str, Field(max_length=200, json_schema_extra=PRINTABLE), AfterValidator(printable)
    ]
    address: AddressInput
    address_specificity: str | None = None
    coordinates: GeoCoordinates | None = None
    geofence: GeofenceInput | None = None
    contacts: Items[StopLocationContactInput] = Field(default_factory=list, max_length=MAX_CONTACTS)
    opening_hours: Items[OpeningHoursInput] = Field(
        default_factory=list, max_length=MAX_OPENING_HOURS
    )
    special_opening_hours: Items[SpecialOpeningHoursInput] = Field(
        default_factory=list, max_length=MAX_SPECIAL_OPENING_HOURS
    )
    supplied_id: Annotated[
        str | None,
        Field(default=None, max_length=100, json_schema_extra=NO_CONTROL),
        AfterValidator(_no_control),
    ]
    version: int | None = Field(default=None, ge=1, le=INT64_MAX)
