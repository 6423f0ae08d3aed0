"""Shapes shared by every area of the interface (the spec's "Common shapes")."""

from __future__ import annotations

import unicodedata
from datetime import UTC, date, datetime, time
from enum import StrEnum
from typing import Annotated

from pydantic import AwareDatetime, Field
from pydantic.config import JsonDict

from freightdesk.models.base import WireModel
from freightdesk.models.enums import TransportationMode as TransportationMode

# What the databases hold: an integer the interface takes is checked against the column it
# ends up in (BIGINT or INTEGER on PostgreSQL; SQLite's INTEGER is 64-bit), so that a value out
# of range is the caller's 400 naming the field, never the database driver's overflow. Use
# these in request models and, wrapped in `Path(...)`/`Query(...)`, in route parameters.
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
Int32 = Annotated[int, Field(ge=INT32_MIN, le=INT32_MAX)]
Int64 = Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
# Page numbers of the paged lists: >= 1, and bounded so that the row offset stays in range.
MAX_PAGE_NUMBER = 1_000_000
PageNumber = Annotated[int, Field(ge=1, le=MAX_PAGE_NUMBER)]
# The longest string any JSON body may hold (the largest a field allows: a webhook secret);
# fields state tighter bounds of their own. The service's body check refuses longer ones and
# the OpenAPI document states it as the maxLength of every string that states none.
MAX_JSON_STRING = 16384
# What the OpenAPI document states for path and query strings without a bound of their own.
MAX_PARAMETER_STRING = 1024
# The OpenAPI document's pattern for date-times the service takes between the years 1900 and
# 2999 (a date-time's text starts with its year).
YEARS_1900_TO_2999: JsonDict = {"pattern": r"^(19|2[0-9])[0-9]{2}-"}
# The OpenAPI document's pattern for text the service trims before it must not be empty.
NOT_BLANK: JsonDict = {"pattern": r"\S"}


def printable(value: str) -> str:
    """A validator: no character of Unicode category Cc (control characters have no place in
    names and codes, and PostgreSQL refuses NUL)."""
    if any(unicodedata.category(ch) == "Cc" for ch in value):
        raise ValueError("must not contain control characters")
    return value


# printable's rule for the document: no character of Unicode category Cc; and the fields it
# serves are trimmed before their minimum length is checked, so one character is not a space.
_TEXT = "[^\\u0000-\\u001F\\u007F-\\u009F]"
PRINTABLE: JsonDict = {"pattern": f"^{_TEXT}*[^\\s\\u0000-\\u001F\\u007F-\\u009F]{_TEXT}*$"}
# printable's rule alone, for text that may be blank.
NO_CONTROL: JsonDict = {"pattern": f"^{_TEXT}*$"}


class Currency(StrEnum):
    USD = "USD"
    CAD = "CAD"
    MXN = "MXN"
    EUR = "EUR"


class WeightUnit(StrEnum):
    LB = "LB"
    KG = "KG"


class LengthUnit(StrEnum):
    IN = "IN"
    CM = "CM"
    FT = "FT"
    M = "M"


class VolumeUnit(StrEnum):
    CUBIC_FT = "CUBIC_FT"


class IdentifierType(StrEnum):
    """The identifier types that appear as shapes in the interface."""

    AIR_WAYBILL = "AIR_WAYBILL"
    HOUSE_AIR_WAYBILL = "HOUSE_AIR_WAYBILL"
    CARRIER_SCAC = "CARRIER_SCAC"
    FFW_SCAC = "FFW_SCAC"
    SCAC = "SCAC"
    WAGON_ID = "WAGON_ID"
    TRAIN_NUMBER = "TRAIN_NUMBER"
    CONTAINER_ID = "CONTAINER_ID"
    TRAILER_ID = "TRAILER_ID"
    RAIL_CAR_ID = "RAIL_CAR_ID"
    BILL_OF_LADING = "BILL_OF_LADING"
    WAYBILL = "WAYBILL"
    BOOKING_NUMBER = "BOOKING_NUMBER"
    HOUSE_BILL_OF_LADING = "HOUSE_BILL_OF_LADING"
    TRACKING_NUMBER = "TRACKING_NUMBER"
    REFERENCE_NUMBER = "REFERENCE_NUMBER"
    CAPACITY_PROVIDER_ACCOUNT_GROUP = "CAPACITY_PROVIDER_ACCOUNT_GROUP"
    CAPACITY_PROVIDER_ACCOUNT_CODE = "CAPACITY_PROVIDER_ACCOUNT_CODE"
    PRO = "PRO"
    PRO_NUMBER = "PRO_NUMBER"
    PICKUP = "PICKUP"
    PURCHASE_ORDER = "PURCHASE_ORDER"
    CUSTOMER_REFERENCE = "CUSTOMER_REFERENCE"
    SYSTEM_GENERATED = "SYSTEM_GENERATED"
    EXTERNAL = "EXTERNAL"
    DELIVERY_NUMBER = "DELIVERY_NUMBER"
    OLPN = "OLPN"
    SKU = "SKU"
    CONTAINER_NUMBER = "CONTAINER_NUMBER"
    SALES_ORDER = "SALES_ORDER"
    UNKNOWN = "UNKNOWN"


class Address(WireModel):
    # Always an array on the wire, possibly empty, never absent.
    address_lines: list[str] = Field(default_factory=list, max_length=3)
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str = "US"


# The bound either side of zero of a point's latitude and longitude, in degrees (the models'
# fields and the app's check before sending, `service.validation.coordinate_problems`).
LATITUDE_BOUND = 90
LONGITUDE_BOUND = 180


class GeoCoordinates(WireModel):
    latitude: float = Field(ge=-LATITUDE_BOUND, le=LATITUDE_BOUND)
    longitude: float = Field(ge=-LONGITUDE_BOUND, le=LONGITUDE_BOUND)


class Money(WireModel):
    amount: float
    currency: Currency


class Measure(WireModel):
    """A value with a unit; the unit's vocabulary depends on what is measured."""

    value: float
    unit: str = Field(min_length=1)


class Weight(WireModel):
    value: float = Field(ge=0)
    unit: WeightUnit


class Length(WireModel):
    value: float = Field(ge=0)
    unit: LengthUnit


class Volume(WireModel):
    value: float = Field(ge=0)
    unit: VolumeUnit = VolumeUnit.CUBIC_FT


class Dimensions(WireModel):
    length: float = Field(ge=0)
    width: float = Field(ge=0)
    height: float = Field(ge=0)
    unit: LengthUnit


class LogisticsIdentifier(WireModel):
    """An identifier; its type vocabulary depends on the resource (kept open as a string)."""

    type: str = Field(min_length=1)
    value: str = Field(min_length=1)


class PaginationInfo(WireModel):
    page_number: int
    page_size: int
    total: int


class ContactInfo(WireModel):
    company_name: str | None = None
    given_name: str | None = None
    family_name: str | None = None
    phone_number: str | None = None
    mobile_phone_number: str | None = None
    email: str | None = None


class LtlContact(WireModel):
    company_name: str | None = None
    contact_name: str | None = None
    email: str | None = None
    fax_number: str | None = None
    fax_number_country_code: str | None = None
    phone_number: str | None = None
    phone_number_country_code: str | None = None
    phone_number2: str | None = Field(default=None, alias="phoneNumber2")
    phone_number2_country_code: str | None = Field(default=None, alias="phoneNumber2CountryCode")


class LtlLocation(WireModel):
    address: Address | None = None
    contact: LtlContact | None = None


class LocalDateWindow(WireModel):
    date: date
    start_time: time | None = None
    end_time: time | None = None


class OffsetDateTimeWindow(WireModel):
    start_date_time: AwareDatetime | None = None
    end_date_time: AwareDatetime | None = None


class CustomAttribute(WireModel):
    name: str = Field(min_length=1)
    value: str | None = None
    values: list[str] = Field(default_factory=list)


def utc_datetime(value: datetime) -> datetime:
    """The same instant with a UTC offset; naive values are taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)
