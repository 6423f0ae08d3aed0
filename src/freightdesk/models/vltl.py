"""Volume LTL: rate quotes and dispatch.

Lenient shapes (see :mod:`freightdesk.models.rating`); the local service validates request
bodies with ``extra="forbid"`` at run time. Quantities are plain numbers in the request's
`weightUnit` and `lengthUnit`, as the interface has them.
"""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Annotated
from uuid import UUID

from pydantic import AwareDatetime, Field, field_validator

from freightdesk.models.base import WireModel
from freightdesk.models.common import (
    INT32_MAX,
    NOT_BLANK,
    Address,
    ContactInfo,
    Currency,
    Int64,
    LengthUnit,
    LocalDateWindow,
    LogisticsIdentifier,
    LtlContact,
    LtlLocation,
    Money,
    Weight,
    WeightUnit,
)
from freightdesk.models.rating import AccountRef, FreightClass

MAX_LINE_ITEMS = 100
# Accessorial services of volume LTL quotes and dispatch (LTL codes) and their names; the
# service prices them. The service codes choose the service level, one at most.
VLTL_ACCESSORIAL_NAMES: dict[str, str] = {
    "LGPU": "Liftgate at pickup",
    "LGDEL": "Liftgate at delivery",
    "INPU": "Inside pickup",
    "INDEL": "Inside delivery",
    "RESPU": "Residential pickup",
    "RESDEL": "Residential delivery",
    "APPTPU": "Appointment at pickup",
    "APPTDEL": "Appointment at delivery",
    "LTDPU": "Limited access pickup",
    "LTDDEL": "Limited access delivery",
    "NOTIFY": "Notify before delivery",
    "HAZM": "Hazardous materials",
    "PFZ": "Protect from freezing",
    "SORTSEG": "Sort and segregate",
    "MARKTAG": "Mark and tag",
    "GUR": "Guaranteed by 5 PM",
    "GURAM": "Guaranteed by noon",
    "EXPEDITE": "Expedited",
}
VLTL_SERVICE_CODES = ("GUR", "GURAM", "EXPEDITE")
_Text = Annotated[str, Field(max_length=500)]
# Bounds that keep every figure finite; far beyond any real freight.
_Size = Annotated[float, Field(gt=0, le=10_000)]
_Weight = Annotated[float, Field(gt=0, le=1_000_000)]
_Count = Annotated[int, Field(ge=1, le=100_000)]
_Amount = Annotated[float, Field(ge=0, le=1_000_000_000)]


class TenantPurpose(StrEnum):
    DEFAULT = "DEFAULT"
    DEMO = "DEMO"
    PROOF_OF_CONCEPT = "PROOF_OF_CONCEPT"
    INTERNAL_TEST = "INTERNAL_TEST"
    TEST = "TEST"
    PRODUCTION = "PRODUCTION"
    ARCHIVED = "ARCHIVED"
    INTERNAL_INFRASTRUCTURE = "INTERNAL_INFRASTRUCTURE"


class Direction(StrEnum):
    SHIPPER = "SHIPPER"
    CONSIGNEE = "CONSIGNEE"
    THIRD_PARTY = "THIRD_PARTY"


class PaymentTerms(StrEnum):
    PREPAID = "PREPAID"
    COLLECT = "COLLECT"
    THIRD_PARTY = "THIRD_PARTY"


class PreferredSystemOfMeasurement(StrEnum):
    METRIC = "METRIC"
    IMPERIAL = "IMPERIAL"


class PackingGroup(StrEnum):
    I = "I"  # noqa: E741  (the packing group is called I)
    II = "II"
    III = "III"


_UN_NUMBER = re.compile(r"^(UN|NA)\d{4}$")
_HAZARD_CLASS = re.compile(r"^[1-9](\.[1-6])?$")


class HazmatDetail(WireModel):
    """Every field is required once an item declares hazardous materials."""

    # Patterns for the document (the validators also take spaces and lower case).
    hazard_class: str = Field(json_schema_extra={"pattern": _HAZARD_CLASS.pattern})
    identification_number: str = Field(json_schema_extra={"pattern": _UN_NUMBER.pattern})
    proper_shipping_name: str = Field(min_length=1, max_length=500)
    packing_group: PackingGroup

    @field_validator("hazard_class")
    @classmethod
    def _class(cls, value: str) -> str:
        if not _HAZARD_CLASS.match(value.strip()):
            raise ValueError(f"{value!r} is not a hazard class such as 3 or 2.1")
        return value.strip()

    @field_validator("identification_number")
    @classmethod
    def _un_number(cls, value: str) -> str:
        compact = value.replace(" ", "").upper()
        if not _UN_NUMBER.match(compact):
            raise ValueError(f"{value!r} is not a UN or NA number such as UN1203")
        return compact


class PackageDimensions(WireModel):
    length: _Size
    width: _Size
    height: _Size


class LineItem(WireModel):
    commodity_type: str | None = Field(default=None, max_length=60)
    country_of_manufacture: str | None = Field(default=None, max_length=60)
    description: _Text | None = None
    freight_class: FreightClass | None = None
    hazmat_detail: HazmatDetail | None = None
    harmonized_code: str | None = Field(default=None, max_length=20)
    id: Int64 | None = None
    insurance_amount: _Amount | None = None
    nmfc_item_code: str | None = Field(default=None, max_length=20)
    nmfc_sub_code: str | None = Field(default=None, max_length=20)
    package_dimensions: PackageDimensions | None = None
    package_type: str | None = Field(default=None, max_length=40)
    stackable: bool = False
    total_weight: _Weight | None = None
    total_packages: _Count | None = None
    total_pieces: _Count | None = None
    total_value: _Amount | None = None


class NmfcCode(WireModel):
    code: str = Field(min_length=1, max_length=20)


class IdentifyingCode(WireModel):
    code_list_provider: str | None = Field(default=None, max_length=100)
    code_list_name: str | None = Field(default=None, max_length=100)
    party_code: str | None = Field(default=None, max_length=100)


class PartyAddress(Address):
    address_label: str | None = Field(default=None, max_length=100)
    id: UUID | None = None


class InvolvedParty(WireModel):
    address_info: PartyAddress | None = None
    contact_info: ContactInfo | None = None
    identifying_codes: list[IdentifyingCode] = Field(default_factory=list, max_length=20)
    location_identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=20)
    party_type: str | None = Field(default=None, max_length=60)
    vat_number: str | None = Field(default=None, max_length=60)


class PackageContent(WireModel):
    country_of_manufacture: str | None = Field(default=None, max_length=60)
    description: _Text | None = None
    hazmat_details: list[HazmatDetail] = Field(default_factory=list, max_length=10)
    package_content_quantity: _Count | None = None
    package_content_identifiers: list[LogisticsIdentifier] = Field(
        default_factory=list, max_length=20
    )


class HandlingUnitPackage(WireModel):
    contact: LtlContact | None = None
    description: _Text | None = None
    freight_class: FreightClass | None = None
    involved_parties: list[InvolvedParty] = Field(default_factory=list, max_length=10)
    nmfc_codes: list[NmfcCode] = Field(default_factory=list, max_length=10)
    package_quantity: _Count | None = None
    package_container_type: str | None = Field(default=None, max_length=40)
    package_dimensions: PackageDimensions | None = None
    package_contents: list[PackageContent] = Field(default_factory=list, max_length=50)
    weight_per_package: _Weight | None = None


class EnhancedHandlingUnit(WireModel):
    commodity_type: str | None = Field(default=None, max_length=60)
    contact: LtlContact | None = None
    delivery_stop_number: int | None = Field(default=None, ge=1, le=INT32_MAX)
    pickup_stop_number: int | None = Field(default=None, ge=1, le=INT32_MAX)
    description: _Text | None = None
    freight_classes: list[FreightClass] = Field(default_factory=list, max_length=10)
    handling_unit_type: str | None = Field(default=None, max_length=40)
    harmonized_code: str | None = Field(default=None, max_length=20)
    handling_unit_quantity: int = Field(default=1, ge=1, le=1000)
    handling_unit_dimensions: PackageDimensions | None = None
    nmfc_codes: list[NmfcCode] = Field(default_factory=list, max_length=10)
    packages: list[HandlingUnitPackage] = Field(default_factory=list, max_length=100)
    stackable: bool = False
    total_value: Money | None = None
    weight_per_handling_unit: _Weight | None = None


class AccessorialService(WireModel):
    code: str = Field(min_length=1, max_length=40)


class AccessorialServiceConfiguration(WireModel):
    allow_unaccepted_accessorials: bool = False
    fetch_all_service_levels: bool = False
    fetch_all_guaranteed: bool = False
    fetch_all_inside_delivery: bool = False


class QuoteApiConfiguration(WireModel):
    accessorial_service_configuration: AccessorialServiceConfiguration | None = None
    enable_unit_conversion: bool = False
    fall_back_to_default_account_group: bool = False
    # Seconds the caller is willing to wait for carriers; carriers slower than this are left out.
    timeout: int | None = Field(default=None, ge=1, le=300)


class AccountGroupSelection(WireModel):
    code: str | None = Field(default=None, min_length=1, max_length=100)
    accounts: list[AccountRef] = Field(default_factory=list, max_length=100)


class QuoteAddress(Address):
    """A quote's origin or destination: carriers rate by postal code, so one is required."""

    postal_code: str = Field(max_length=40, json_schema_extra=NOT_BLANK)


class VltlQuoteRequest(WireModel):
    """The body of both volume LTL rate query operations."""

    origin_address: QuoteAddress
    destination_address: QuoteAddress
    pickup_window: LocalDateWindow | None = None
    delivery_window: LocalDateWindow | None = None
    line_items: list[LineItem] = Field(default_factory=list, max_length=MAX_LINE_ITEMS)
    enhanced_handling_units: list[EnhancedHandlingUnit] = Field(
        default_factory=list, max_length=MAX_LINE_ITEMS
    )
    accessorial_services: list[AccessorialService] = Field(default_factory=list, max_length=40)
    api_configuration: QuoteApiConfiguration | None = None
    capacity_provider_account_group: AccountGroupSelection | None = None
    direction_override: Direction | None = None
    payment_terms_override: PaymentTerms | None = None
    preferred_currency: Currency | None = None
    preferred_system_of_measurement: PreferredSystemOfMeasurement | None = None
    length_unit: LengthUnit = LengthUnit.FT
    weight_unit: WeightUnit = WeightUnit.LB
    total_linear_feet: int | None = Field(default=None, ge=1, le=53 * 4)


class VltlUser(WireModel):
    """The `user` query object, sent flattened as query parameters."""

    account_non_expired: bool | None = None
    account_non_locked: bool | None = None
    credentials_non_expired: bool | None = None
    enabled: bool | None = None
    id: Int64 | None = None
    locale: str | None = None
    registration_date: AwareDatetime | None = None
    tenant_id: Int64 | None = None
    tenant_uuid: UUID | None = None
    tenant_purpose: TenantPurpose | None = None
    username: str | None = None


class AlertSeverity(StrEnum):
    ERROR = "ERROR"
    WARNING = "WARNING"
    INFO = "INFO"


class QuoteAlert(WireModel):
    code: str
    severity: AlertSeverity
    message: str


class ServiceLevel(WireModel):
    code: str
    description: str


class RateCharge(WireModel):
    code: str
    description: str
    amount: float


class RateQuoteDetail(WireModel):
    total: float
    subtotal: float
    charges: list[RateCharge]


class RateQuote(WireModel):
    """One carrier's volume LTL price, or its reasons for not quoting (in `alerts`).

    Dispatch it by sending `capacityProviderQuoteNumber` (and this `id` as `rateQuoteId`).
    """

    id: UUID
    capacity_provider_quote_number: str | None = None
    carrier_code: str
    carrier_name: str
    capacity_provider_account_group: AccountGroupSelection
    mode: str = "VOLUME_LTL"
    service_level: ServiceLevel | None = None
    transit_days: int | None = None
    delivery_date: date | None = None
    currency_code: Currency | None = None
    rate_quote_detail: RateQuoteDetail | None = None
    total_linear_feet: int | None = None
    billed_weight: Weight | None = None
    direction: Direction | None = None
    payment_terms: PaymentTerms | None = None
    expiration_date_time: AwareDatetime | None = None
    alerts: list[QuoteAlert] = Field(default_factory=list)


class RateQuoteList(WireModel):
    rate_quotes: list[RateQuote]


# --- dispatch ------------------------------------------------------------------------------


class NoteSectionName(StrEnum):
    PICKUP_NOTE = "PICKUP_NOTE"
    DELIVERY_NOTE = "DELIVERY_NOTE"
    UNSUPPORTED_ACCESSORIALS = "UNSUPPORTED_ACCESSORIALS"


class NoteSection(WireModel):
    name: NoteSectionName


class NoteConfiguration(WireModel):
    enable_truncation: bool = False
    note_sections: list[NoteSection] = Field(default_factory=list, max_length=3)


class DispatchApiConfiguration(WireModel):
    allow_unsupported_accessorials: bool = False
    enable_unit_conversion: bool = False
    fall_back_to_default_account_group: bool = False
    pickup_only: bool = False
    pre_scheduled_pickup: bool = False
    note_configuration: NoteConfiguration | None = None


class CustomsInfo(WireModel):
    customs_broker_location: LtlLocation | None = None


class HandlingUnitTypeQuantity(WireModel):
    handling_unit_type: str = Field(min_length=1, max_length=40)
    quantity: int = Field(ge=1, le=10_000)


class DispatchRequest(WireModel):
    """The body of POST dispatchedshipments."""

    capacity_provider_account_group: AccountGroupSelection
    origin_location: LtlLocation
    destination_location: LtlLocation
    requester_location: LtlLocation
    line_items: list[LineItem] = Field(default_factory=list, max_length=MAX_LINE_ITEMS)
    enhanced_handling_units: list[EnhancedHandlingUnit] = Field(
        default_factory=list, max_length=MAX_LINE_ITEMS
    )
    pickup_window: LocalDateWindow
    delivery_window: LocalDateWindow | None = None
    carrier_code: str | None = Field(default=None, pattern=r"^[A-Za-z]{2,4}$")
    emergency_contact: LtlContact | None = None
    capacity_provider_quote_number: str = Field(min_length=1, max_length=100)
    accessorial_services: list[AccessorialService] = Field(default_factory=list, max_length=40)
    api_configuration: DispatchApiConfiguration | None = None
    currency_code: Currency | None = None
    customs_info: CustomsInfo | None = None
    delivery_note: str | None = Field(default=None, max_length=2000)
    pickup_note: str | None = Field(default=None, max_length=2000)
    destination_involved_parties: list[InvolvedParty] = Field(default_factory=list, max_length=10)
    origin_involved_parties: list[InvolvedParty] = Field(default_factory=list, max_length=10)
    direction_override: Direction | None = None
    payment_terms_override: PaymentTerms | None = None
    handling_unit_type_quantities: list[HandlingUnitTypeQuantity] = Field(
        default_factory=list, max_length=20
    )
    length_unit: LengthUnit = LengthUnit.IN
    weight_unit: WeightUnit = WeightUnit.LB
    rate_quote_id: UUID | None = None
    shipment_identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=20)
    total_handling_units: int | None = Field(default=None, ge=1, le=10_000)
    total_linear_feet: int | None = Field(default=None, ge=1, le=53 * 4)


class DispatchStatus(StrEnum):
    DISPATCHED = "DISPATCHED"


class DispatchedShipment(WireModel):
    """The answer of a dispatch: what the carrier confirmed, and how to track it."""

    id: UUID
    # The tracked shipment (master shipment id) the dispatch created.
    shipment_id: UUID | None = None
    capacity_provider_quote_number: str
    carrier_code: str
    carrier_name: str
    pickup_number: str | None = None
    pro_number: str | None = None
    shipment_identifiers: list[LogisticsIdentifier]
    status: DispatchStatus
    pickup_window: LocalDateWindow
    pickup_note: str | None = None
    rate_quote_id: UUID | None = None
    created_date_time: AwareDatetime
    alerts: list[QuoteAlert] = Field(default_factory=list)
