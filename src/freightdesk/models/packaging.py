"""Packages planned for shipping (the spec's "Package" and "Packaging")."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Self
from uuid import UUID

from pydantic import Field, field_validator, model_validator

from freightdesk.models.base import IanaZone, StrictWireModel, WireModel
from freightdesk.models.common import (
    Address,
    Dimensions,
    GeoCoordinates,
    LogisticsIdentifier,
    PaginationInfo,
    Volume,
    Weight,
)

MAX_ITEMS = 500
MAX_IDENTIFIERS = 50
MAX_IDENTIFIER_TYPE = 60
MAX_IDENTIFIER_VALUE = 200


class PackageIdentifier(LogisticsIdentifier):
    """A package's identifier: a type of at most 60 characters, a value of at most 200."""

    type: str = Field(min_length=1, max_length=MAX_IDENTIFIER_TYPE)
    value: str = Field(min_length=1, max_length=MAX_IDENTIFIER_VALUE)


class PackageStatus(StrEnum):
    UNASSIGNED = "UNASSIGNED"
    ASSIGNED = "ASSIGNED"
    CONFIRMED = "CONFIRMED"


class AccessorialType(StrEnum):
    REFRIGERATED = "REFRIGERATED"
    LIFTGATE = "LIFTGATE"
    HAZMAT = "HAZMAT"


class TemperatureUnit(StrEnum):
    CELSIUS = "CELSIUS"
    FAHRENHEIT = "FAHRENHEIT"


class PackingGroup(StrEnum):
    I = "I"  # noqa: E741  (the packing group's official name)
    II = "II"
    III = "III"


class LiftgateStop(StrEnum):
    PICKUP = "PICKUP"
    DELIVERY = "DELIVERY"
    BOTH = "BOTH"


class OrderIdentifier(WireModel):
    type: str = Field(min_length=1, max_length=60)
    value: str = Field(min_length=1, max_length=200)


class PackageItem(WireModel):
    identifiers: list[PackageIdentifier] = Field(default_factory=list, max_length=MAX_IDENTIFIERS)
    order_identifier: OrderIdentifier | None = None
    unit_quantity: int = Field(ge=1, le=1_000_000)


class PackageDetails(WireModel):
    # Open vocabulary: the interface gives BAG and PALLET only as examples.
    type: str | None = Field(default=None, min_length=1, max_length=40)
    dimensions: Dimensions | None = None
    volume: Volume | None = None
    weight: Weight | None = None


class TemperatureRange(WireModel):
    minimum: float
    maximum: float
    unit: TemperatureUnit

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.minimum > self.maximum:
            raise ValueError("minimum must not be above maximum")
        return self


_UN_NUMBER = re.compile(r"^(UN|NA)\d{4}$")


class HazmatDetail(WireModel):
    un_number: str = Field(
        description="UN or NA number, for example UN1203",
        json_schema_extra={"pattern": r"^(UN|NA)[0-9]{4}$"},
    )
    hazard_class: str = Field(min_length=1, max_length=10)
    packing_group: PackingGroup | None = None
    proper_shipping_name: str = Field(min_length=1, max_length=200)

    @field_validator("un_number")
    @classmethod
    def _un_number(cls, value: str) -> str:
        normalized = value.strip().upper().replace(" ", "")
        if not _UN_NUMBER.match(normalized):
            raise ValueError("must be UN or NA followed by four digits, for example UN1203")
        return normalized


class Accessorial(WireModel):
    """One accessorial; the fields besides `type` belong to that type (a gap we filled)."""

    type: AccessorialType
    temperature_range: TemperatureRange | None = None
    hazmat_detail: HazmatDetail | None = None
    stop: LiftgateStop | None = None

    @model_validator(mode="after")
    def _fields_of_type(self) -> Self:
        if self.type is AccessorialType.REFRIGERATED and self.temperature_range is None:
            raise ValueError("a REFRIGERATED accessorial needs temperatureRange")
        if self.type is AccessorialType.HAZMAT and self.hazmat_detail is None:
            raise ValueError("a HAZMAT accessorial needs hazmatDetail")
        if self.type is not AccessorialType.REFRIGERATED and self.temperature_range is not None:
            raise ValueError("temperatureRange belongs to a REFRIGERATED accessorial only")
        if self.type is not AccessorialType.HAZMAT and self.hazmat_detail is not None:
            raise ValueError("hazmatDetail belongs to a HAZMAT accessorial only")
        if self.type is not AccessorialType.LIFTGATE and self.stop is not None:
            raise ValueError("stop belongs to a LIFTGATE accessorial only")
        return self


class PackageLocation(WireModel):
    address: Address | None = None
    geo_coordinates: GeoCoordinates | None = None
    id: UUID | None = None
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=MAX_IDENTIFIERS)
    name: str | None = Field(default=None, max_length=200)
    time_zone: IanaZone | None = None


class PackageWrite(StrictWireModel):
    """The body of create and full update.

    `status` moves a package along its workflow (see docs/spec-gaps.md); the two locations
    stand in for the related orders' locations, which this service has no resource for.
    """

    items: list[PackageItem] = Field(min_length=1, max_length=MAX_ITEMS)
    identifiers: list[PackageIdentifier] = Field(min_length=1, max_length=MAX_IDENTIFIERS)
    is_stackable: bool = False
    package: PackageDetails | None = None
    accessorials: list[Accessorial] = Field(default_factory=list, max_length=3)
    status: PackageStatus | None = None
    origin_location: PackageLocation | None = None
    destination_location: PackageLocation | None = None

    @field_validator("identifiers")
    @classmethod
    def _distinct_identifiers(cls, value: list[PackageIdentifier]) -> list[PackageIdentifier]:
        seen: set[tuple[str, str]] = set()
        for identifier in value:
            key = (identifier.type, identifier.value)
            if key in seen:
                raise ValueError(f"identifier {identifier.type} {identifier.value!r} is repeated")
            seen.add(key)
        return value

    @field_validator("accessorials")
    @classmethod
    def _one_per_type(cls, value: list[Accessorial]) -> list[Accessorial]:
        types = [a.type for a in value]
        if len(types) != len(set(types)):
            raise ValueError("each accessorial type may appear once")
        return value


class Package(WireModel):
    id: UUID
    items: list[PackageItem]
    identifiers: list[LogisticsIdentifier]
    is_stackable: bool = False
    package: PackageDetails | None = None
    accessorials: list[Accessorial] = Field(default_factory=list)
    status: PackageStatus = PackageStatus.UNASSIGNED
    origin_location: PackageLocation | None = None
    destination_location: PackageLocation | None = None
    created_date_time: datetime | None = None
    last_modified_date_time: datetime | None = None


class PackageList(WireModel):
    pagination_info: PaginationInfo
    results: list[Package]


class DeletedPackage(WireModel):
    id: UUID
    identifiers: list[LogisticsIdentifier]


# A package search's filters: Python name -> query parameter, in the interface's order.
_PARAMETERS = {
    "shipper_tenant_id": "shipperTenantId",
    "shipper_tenant_uuid": "shipperTenantUuid",
    "identifier_type": "identifier.type",
    "identifier_value": "identifier.value",
    "sku_identifier": "skuIdentifier",
    "origin_city": "origin.city",
    "origin_state": "origin.state",
    "origin_country": "origin.country",
    "origin_postal_code": "origin.postalCode",
    "destination_city": "destination.city",
    "destination_state": "destination.state",
    "destination_country": "destination.country",
    "destination_postal_code": "destination.postalCode",
}


@dataclass(frozen=True)
class PackageSearch:
    """The filters of a package search; a blank filter is not sent. `identifier_type` and
    `identifier_value` go together (an exact match)."""

    shipper_tenant_id: str | None = None
    shipper_tenant_uuid: str | None = None
    identifier_type: str | None = None
    identifier_value: str | None = None
    sku_identifier: str | None = None
    origin_city: str | None = None
    origin_state: str | None = None
    origin_country: str | None = None
    origin_postal_code: str | None = None
    destination_city: str | None = None
    destination_state: str | None = None
    destination_country: str | None = None
    destination_postal_code: str | None = None

    def params(self) -> dict[str, str]:
        """The query parameters (wire names) of the filters that are set."""
        found: dict[str, str] = {}
        for name, value in asdict(self).items():
            text = (value or "").strip()
            if text:
                found[_PARAMETERS[name]] = text
        return found

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> PackageSearch:
        """The search for query parameters as `params()` spells them (unknown keys ignored)."""
        by_wire = {wire: name for name, wire in _PARAMETERS.items()}
        return cls(**{by_wire[k]: str(v) for k, v in params.items() if k in by_wire and v})
