"""Booking: bookings and their carrier answers, plus the simulated carriers' profiles.

Lenient shapes (see :mod:`freightdesk.models.rating`); the local service validates request
bodies with ``extra="forbid"`` at run time. Coded fields whose full vocabulary the interface
does not show are enumerated here and recorded in docs/spec-gaps.md.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any
from uuid import UUID

from pydantic import AwareDatetime, Field

from freightdesk.models.base import WireModel
from freightdesk.models.common import (
    Address,
    ContactInfo,
    Currency,
    Dimensions,
    Length,
    LogisticsIdentifier,
    LtlContact,
    Money,
    PaginationInfo,
    Volume,
    Weight,
)
from freightdesk.models.rating import (
    Accessorial,
    CapacityProviderIdentifier,
    HandlingUnit,
    LoadPreference,
    RateIdentifier,
    RateStopLocation,
    Scac,
    TrailerType,
)

MAX_PAGE_SIZE = 100
# The interface caps what initiates tracking at 25 key/value-list pairs in total.
MAX_TRACKING_KEYS = 25

_Value = Annotated[str, Field(max_length=500)]
# Names become attributes of the tracked shipment, which takes at most 100 characters.
_Name = Annotated[str, Field(min_length=1, max_length=100, pattern=r"\S")]


class BookingStatus(StrEnum):
    PROCESSING = "PROCESSING"
    UNDER_REVIEW = "UNDER_REVIEW"
    BOOKED = "BOOKED"
    REJECTED = "REJECTED"
    CANCELLED = "CANCELLED"
    EXPIRED = "EXPIRED"


# States in which the carrier has not answered for good yet.
OPEN_STATUSES = (BookingStatus.PROCESSING, BookingStatus.UNDER_REVIEW)
# States in which a booking made from a quote holds its rate request: one such booking per
# rate request (the service refuses another; the app keeps the request's other quotes from
# being booked). Rejected, cancelled and expired bookings let go of it.
LIVE_STATUSES = (*OPEN_STATUSES, BookingStatus.BOOKED)


class RejectionReason(StrEnum):
    COST_NOT_AGREED = "COST_NOT_AGREED"
    NO_CAPACITY = "NO_CAPACITY"
    EQUIPMENT_UNAVAILABLE = "EQUIPMENT_UNAVAILABLE"
    LANE_NOT_SERVICED = "LANE_NOT_SERVICED"
    SCHEDULE_NOT_FEASIBLE = "SCHEDULE_NOT_FEASIBLE"
    OTHER = "OTHER"


class CarrierResponseMethod(StrEnum):
    API = "API"
    EMAIL = "EMAIL"
    PHONE = "PHONE"
    PORTAL = "PORTAL"


class ServiceType(StrEnum):
    PORT_TO_PORT = "PORT_TO_PORT"
    PORT_TO_DOOR = "PORT_TO_DOOR"
    DOOR_TO_PORT = "DOOR_TO_PORT"
    DOOR_TO_DOOR = "DOOR_TO_DOOR"


class PartyType(StrEnum):
    SHIPPER = "SHIPPER"
    CONSIGNEE = "CONSIGNEE"
    BOOKING_AGENT = "BOOKING_AGENT"
    NOTIFY_PARTY = "NOTIFY_PARTY"
    BILL_TO = "BILL_TO"
    FREIGHT_FORWARDER = "FREIGHT_FORWARDER"


class BookingCharge(WireModel):
    """An itemized charge; codes may repeat and are not reconciled against `totalRate`."""

    code: str = Field(min_length=1, max_length=60)
    amount: float
    currency: Currency


class BookingAttribute(WireModel):
    """A shipper key and value list shared with the carrier."""

    name: _Name
    values: list[_Value] = Field(default_factory=list, max_length=100)


class ReferenceKey(WireModel):
    """A carrier-supplied key and value list used to initiate tracking."""

    key: _Name
    values: list[_Value] = Field(default_factory=list, max_length=100)


class BookingShipmentDetail(WireModel):
    pickup_stop_id: UUID | None = None
    delivery_stop_id: UUID | None = None
    handling_units: list[HandlingUnit] = Field(default_factory=list, max_length=100)
    description: str | None = Field(default=None, max_length=2000)
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=50)
    accessorials: list[Accessorial] = Field(default_factory=list, max_length=30)


class Party(WireModel):
    party_type: PartyType
    contact_info: ContactInfo | None = None
    address_info: Address | None = None
    vat_number: str | None = Field(default=None, max_length=60)


class CargoMeasurements(WireModel):
    volume: Volume | None = None
    weight: Weight | None = None
    dimensions: Dimensions | None = None


class BookingShippingDetails(WireModel):
    accessorials: list[Accessorial] = Field(default_factory=list, max_length=30)
    flatbed_type: str | None = Field(default=None, max_length=60)
    load_preference: LoadPreference | None = None
    trailer_type: TrailerType | None = None
    # Free-form: the interface names the object but not its fields.
    trailer_details: dict[str, Any] | None = None
    trailer_length: Length | None = None
    trailer_volume: Volume | None = None
    parties: list[Party] = Field(default_factory=list, max_length=20)
    service_type: ServiceType | None = None
    cargo_measurements: CargoMeasurements | None = None


class BookingApiConfiguration(WireModel):
    booking_webhook_name: str | None = Field(default=None, max_length=200)


class RouteSegmentPair(WireModel):
    """A route segment of the booking's rate request, with the locations it joins."""

    id: UUID
    from_stop_id: UUID
    to_stop_id: UUID
    from_location: RateStopLocation | None = None
    to_location: RateStopLocation | None = None


class BookingInput(WireModel):
    """The body of POST and PUT bookings (PUT replaces every one of these fields)."""

    attributes: list[BookingAttribute] = Field(default_factory=list, max_length=100)
    capacity_provider_identifier: CapacityProviderIdentifier
    carrier_contacts: list[ContactInfo] = Field(default_factory=list, max_length=20)
    charges: list[BookingCharge] = Field(default_factory=list, max_length=100)
    total_rate: Money | None = None
    fuel_surcharge_rate: Money | None = None
    rate_identifiers: list[RateIdentifier] = Field(min_length=1, max_length=20)
    # Must carry an offset: a naive date-time is refused, since it names no instant.
    expiration_date_time: AwareDatetime | None = None
    route_segment_ids: list[UUID] = Field(default_factory=list, max_length=50)
    notes: str | None = Field(default=None, max_length=4000)
    shipment_id: UUID | None = None
    shipment_details: list[BookingShipmentDetail] = Field(default_factory=list, max_length=50)
    shipper_contact_info: ContactInfo | None = None
    shipping_details: BookingShippingDetails | None = None


class Booking(WireModel):
    id: UUID
    status: BookingStatus
    shipment_id: UUID | None = None
    master_shipment_id: UUID | None = None
    capacity_provider_identifier: CapacityProviderIdentifier
    carrier_contacts: list[ContactInfo] = Field(default_factory=list)
    total_rate: Money | None = None
    fuel_surcharge_rate: Money | None = None
    charges: list[BookingCharge] = Field(default_factory=list)
    rate_identifiers: list[RateIdentifier] = Field(default_factory=list)
    expiration_date_time: AwareDatetime | None = None
    notes: str | None = None
    attributes: list[BookingAttribute] = Field(default_factory=list)
    route_segment_ids: list[UUID] = Field(default_factory=list)
    route_segments: list[RouteSegmentPair] = Field(default_factory=list)
    shipment_details: list[BookingShipmentDetail] = Field(default_factory=list)
    shipping_details: BookingShippingDetails | None = None
    shipper_contact_info: ContactInfo | None = None
    shipment_identifiers: list[LogisticsIdentifier] = Field(default_factory=list)
    carrier_provided_identifiers: list[LogisticsIdentifier] = Field(default_factory=list)
    capacity_provider_reference_keys: list[ReferenceKey] = Field(default_factory=list)
    carrier_response_method: str | None = None
    carrier_rejection_notes: str | None = None
    rejection_reason: str | None = None
    automated_failure_reason: str | None = None
    booking_source_method: str = "API"
    api_configuration: BookingApiConfiguration | None = None
    transportation_mode: str | None = None
    created_date_time: AwareDatetime
    last_modified_date_time: AwareDatetime
    last_accepted_date_time: AwareDatetime | None = None


class BookingList(WireModel):
    pagination_info: PaginationInfo
    results: list[Booking]


class CarrierDecision(StrEnum):
    ACCEPT = "ACCEPT"
    REJECT = "REJECT"


class CarrierResponse(WireModel):
    """The carrier's answer to a booking still PROCESSING or UNDER_REVIEW (an extension)."""

    decision: CarrierDecision
    rejection_reason: RejectionReason | None = None
    carrier_rejection_notes: str | None = Field(default=None, max_length=4000)
    carrier_provided_identifiers: list[LogisticsIdentifier] = Field(
        default_factory=list, max_length=50
    )
    capacity_provider_reference_keys: list[ReferenceKey] = Field(
        default_factory=list, max_length=100
    )
    response_method: CarrierResponseMethod = CarrierResponseMethod.API


# --- simulated carriers (an extension of the local service) --------------------------------


class CarrierBehaviour(StrEnum):
    """How a simulated carrier answers a booking.

    ACCEPT and DECLINE answer after `responseDelaySeconds`; REVIEW moves the booking to
    UNDER_REVIEW and waits for a carrier response; SLOW accepts, but only after a long delay
    (15 minutes unless set), so that expiry and cancellation can overtake it.
    """

    ACCEPT = "ACCEPT"
    DECLINE = "DECLINE"
    REVIEW = "REVIEW"
    SLOW = "SLOW"


class CarrierMode(StrEnum):
    TL = "TL"
    LTL = "LTL"
    VLTL = "VLTL"


class DistanceUnit(StrEnum):
    MI = "MI"
    KM = "KM"


class SystemOfMeasurement(StrEnum):
    METRIC = "METRIC"
    IMPERIAL = "IMPERIAL"


class DefaultContacts(WireModel):
    """Contacts used for a volume LTL dispatch whose location has no contact of its own."""

    origin: LtlContact | None = None
    destination: LtlContact | None = None
    requester: LtlContact | None = None


class CarrierProfileInput(WireModel):
    """The body of PUT carrier profile; an absent field keeps the carrier's default."""

    name: str | None = Field(default=None, min_length=1, max_length=200)
    behaviour: CarrierBehaviour | None = None
    response_delay_seconds: float | None = Field(default=None, ge=0, le=7 * 86400)
    quote_delay_seconds: float | None = Field(default=None, ge=0, le=60)
    account_group_codes: list[str] | None = Field(default=None, max_length=50)
    modes: list[CarrierMode] | None = Field(default=None, min_length=1, max_length=3)
    distance_unit: DistanceUnit | None = None
    currency: Currency | None = None
    system_of_measurement: SystemOfMeasurement | None = None
    max_line_items: int | None = Field(default=None, ge=1, le=100)
    supports_enhanced_handling_units: bool | None = None
    accepts_terms_overrides: bool | None = None
    alternate_scacs: list[Scac] | None = Field(default=None, max_length=10)
    default_contacts: DefaultContacts | None = None


class CarrierProfile(WireModel):
    scac: str
    name: str
    behaviour: CarrierBehaviour
    response_delay_seconds: float
    quote_delay_seconds: float
    account_group_codes: list[str] = Field(default_factory=list)
    modes: list[CarrierMode]
    distance_unit: DistanceUnit
    currency: Currency
    system_of_measurement: SystemOfMeasurement
    max_line_items: int
    supports_enhanced_handling_units: bool
    accepts_terms_overrides: bool
    alternate_scacs: list[str] = Field(default_factory=list)
    default_contacts: DefaultContacts | None = None
    # False for a carrier the tenant has not configured (the built-in or derived defaults).
    configured: bool


class CarrierProfileList(WireModel):
    carriers: list[CarrierProfile]


class CarrierName(WireModel):
    carrier_code: str
    carrier_name: str


class CarrierNameList(WireModel):
    """The carriers the service knows a name of (an extension): what the app shows a
    shipment's or a booking's carrier code by."""

    carriers: list[CarrierName]
