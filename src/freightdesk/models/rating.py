"""Rating: rate requests, the quotes carriers and market rate providers answer, cancellation.

The shapes are lenient (unknown fields ignored) so the client keeps working against a newer
deployment; the local service validates request bodies with ``extra="forbid"`` at run time so a
misspelt field is reported with its path. Field names the interface leaves open are recorded in
docs/spec-gaps.md (quote items, `capacityProviderAccountGroups`, `quoteTypeFilter`, ...).
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated
from uuid import UUID

from pydantic import AwareDatetime, BeforeValidator, Field

from freightdesk.models.base import IanaZone, WireModel
from freightdesk.models.common import (
    INT32_MAX,
    Address,
    ContactInfo,
    CustomAttribute,
    Dimensions,
    GeoCoordinates,
    Length,
    LogisticsIdentifier,
    Measure,
    Money,
    PaginationInfo,
    Volume,
    Weight,
)

MAX_STOPS = 25
MAX_CARRIERS = 100
MAX_ACCOUNT_GROUPS = 20
MAX_HANDLING_UNITS = 100
# The tenant's rate requests a page (an extension; see docs/spec-gaps.md).
MAX_PAGE_SIZE = 100
# Bounds that keep every figure finite; far beyond any real freight.
MAX_UNIT_WEIGHT = 100_000
MAX_SIZE = 10_000

# The NMFC classes the interface lists, in their canonical spelling.
FREIGHT_CLASSES: tuple[str, ...] = (
    "50",
    "55",
    "60",
    "65",
    "70",
    "77.5",
    "85",
    "92.5",
    "100",
    "110",
    "125",
    "150",
    "175",
    "200",
    "250",
    "300",
    "400",
    "500",
)


def _freight_class(value: object) -> object:
    """77.5, "77.5" and "77.50" are the same class; anything off the list is refused."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        number = -1.0
    text = str(int(number)) if number.is_integer() else str(number)
    if text not in FREIGHT_CLASSES:
        listed = ", ".join(FREIGHT_CLASSES)
        raise ValueError(f"{value!r} is not a freight class; use one of {listed}")
    return text


# The document lists the classes (the service also takes them as numbers, 77.5 for "77.5").
FreightClass = Annotated[
    str, BeforeValidator(_freight_class), Field(json_schema_extra={"enum": list(FREIGHT_CLASSES)})
]
Scac = Annotated[str, Field(pattern=r"^[A-Za-z]{2,4}$")]


class RateRequestStatus(StrEnum):
    """QUOTES_REQUESTED -> QUOTES_RECEIVED (every carrier answered); EXPIRED; CANCELLED."""

    QUOTES_REQUESTED = "QUOTES_REQUESTED"
    QUOTES_RECEIVED = "QUOTES_RECEIVED"
    EXPIRED = "EXPIRED"
    CANCELLED = "CANCELLED"


class QuoteTypeFilter(StrEnum):
    CONTRACT = "CONTRACT"
    SPOT = "SPOT"
    ALL = "ALL"


class QuoteType(StrEnum):
    CONTRACT = "CONTRACT"
    SPOT = "SPOT"


class RatingMode(StrEnum):
    TL = "TL"
    LTL = "LTL"


class RateStopType(StrEnum):
    PICKUP = "PICKUP"
    DELIVERY = "DELIVERY"


class LoadPreference(StrEnum):
    FULL = "FULL"
    PARTIAL = "PARTIAL"


class TrailerType(StrEnum):
    DRY_VAN = "DRY_VAN"
    REEFER = "REEFER"
    FLATBED = "FLATBED"
    STEP_DECK = "STEP_DECK"
    DOUBLE_DROP = "DOUBLE_DROP"
    LOWBOY = "LOWBOY"
    CONESTOGA = "CONESTOGA"
    CONTAINER = "CONTAINER"
    POWER_ONLY = "POWER_ONLY"
    TANKER = "TANKER"
    BOX_TRUCK = "BOX_TRUCK"
    SPRINTER_VAN = "SPRINTER_VAN"


# The accessorial services rate requests and bookings may ask for, in words a dispatcher reads
# (the local service rates each; server/domain/rate_engine.py). STOP_OFF is charged for every
# stop beyond two and never asked for.
ACCESSORIAL_NAMES: dict[str, str] = {
    "LIFTGATE": "Liftgate",
    "INSIDE_PICKUP": "Inside pickup",
    "INSIDE_DELIVERY": "Inside delivery",
    "RESIDENTIAL": "Residential pickup or delivery",
    "APPOINTMENT": "Delivery appointment",
    "NOTIFY_BEFORE_DELIVERY": "Notify before delivery",
    "LIMITED_ACCESS": "Limited access location",
    "HAZMAT": "Hazardous materials",
    "DRIVER_ASSIST": "Driver assist",
    "PROTECT_FROM_FREEZING": "Protect from freezing",
    "BLIND_SHIPMENT": "Blind shipment",
    "REFRIGERATED": "Temperature control",
    "TARP": "Tarping",
    "LUMPER": "Lumper service",
    "TEAM_DRIVERS": "Team drivers",
    "STOP_OFF": "Additional stop",
}
CHARGED_NOT_ASKED = frozenset({"STOP_OFF"})
REQUESTABLE_ACCESSORIALS: dict[str, str] = {
    code: name for code, name in ACCESSORIAL_NAMES.items() if code not in CHARGED_NOT_ASKED
}
# Services a truck gives that LTL carriers do not offer.
TRUCKLOAD_ONLY_ACCESSORIALS = frozenset({"TARP", "LUMPER", "TEAM_DRIVERS", "REFRIGERATED"})
# Trailers open to the weather, which a tarp covers.
OPEN_TRAILERS = frozenset(
    {TrailerType.FLATBED, TrailerType.STEP_DECK, TrailerType.DOUBLE_DROP, TrailerType.LOWBOY,
     TrailerType.CONESTOGA}
)  # fmt: skip


class CarrierIdentifierType(StrEnum):
    CARRIER_SCAC = "CARRIER_SCAC"
    FFW_SCAC = "FFW_SCAC"
    SCAC = "SCAC"


class CapacityProviderIdentifier(WireModel):
    type: CarrierIdentifierType
    value: Scac


class RateIdentifier(WireModel):
    """`source` (e.g. EXTERNAL, CAPACITY_PROVIDER), `type` (e.g. CONTRACT, SPOT), `value`."""

    source: str = Field(min_length=1, max_length=60)
    type: str = Field(min_length=1, max_length=60)
    value: str = Field(min_length=1, max_length=200)


class AccessorialDetails(WireModel):
    min: float | None = None
    max: float | None = None
    unit: str | None = Field(default=None, max_length=40)


class Accessorial(WireModel):
    code: str = Field(min_length=1, max_length=60)
    details: AccessorialDetails | None = None


# --- the request ---------------------------------------------------------------------------


class RateStopLocation(WireModel):
    name: str | None = Field(default=None, max_length=200)
    address: Address | None = None
    # Not listed by the interface for rating stops, but the tracked shipment's stop has it, and
    # it makes the distance exact; without it the stop is placed by its state or province.
    coordinates: GeoCoordinates | None = None
    time_zone: IanaZone | None = None


class RateStop(WireModel):
    # Service-generated when absent; supply it to refer to the stop from segments and details.
    id: UUID | None = None
    type: RateStopType
    location: RateStopLocation
    contacts: list[ContactInfo] = Field(default_factory=list, max_length=20)


class RateRouteSegment(WireModel):
    # Service-generated when absent; bookings name segments by this id (`routeSegmentIds`).
    id: UUID | None = None
    from_stop_id: UUID
    to_stop_id: UUID


class RateRouteInfo(WireModel):
    stops: list[RateStop] = Field(min_length=2, max_length=MAX_STOPS)
    route_segments: list[RateRouteSegment] = Field(default_factory=list, max_length=MAX_STOPS)


# The bounds of rating's sizes and weights, on the shapes others share, so that the OpenAPI
# document states them (maximum) rather than a validator that it cannot show.
class TrailerLength(Length):
    value: float = Field(ge=0, le=MAX_SIZE)


class UnitDimensions(Dimensions):
    length: float = Field(ge=0, le=MAX_SIZE)
    width: float = Field(ge=0, le=MAX_SIZE)
    height: float = Field(ge=0, le=MAX_SIZE)


class UnitWeight(Weight):
    value: float = Field(ge=0, le=MAX_UNIT_WEIGHT)


class TruckDetails(WireModel):
    load_preference: LoadPreference = LoadPreference.FULL
    trailer_type: TrailerType = TrailerType.DRY_VAN
    trailer_length: TrailerLength | None = None
    trailer_volume: Volume | None = None


class AccountRef(WireModel):
    code: str = Field(min_length=1, max_length=100)


class LtlAccountGroup(WireModel):
    code: str | None = Field(default=None, min_length=1, max_length=100)
    accounts: list[AccountRef] = Field(default_factory=list, max_length=MAX_CARRIERS)


class LtlDetails(WireModel):
    capacity_provider_account_group: LtlAccountGroup | None = None


class RateShippingDetails(WireModel):
    """`truck` rates a truckload, `ltl` rates less than truckload by freight class and weight."""

    truck: TruckDetails | None = None
    ltl: LtlDetails | None = None
    accessorials: list[Accessorial] = Field(default_factory=list, max_length=30)


class ShipmentItem(WireModel):
    description: str | None = Field(default=None, max_length=500)
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=50)
    unit_quantity: int | None = Field(default=None, ge=0, le=INT32_MAX)
    unit_type: str | None = Field(default=None, max_length=40)


class HandlingUnit(WireModel):
    """One line of handling units; `weight` and `dimensions` are those of one unit."""

    description: str | None = Field(default=None, max_length=500)
    freight_class: FreightClass | None = None
    monetary_value: Money | None = None
    quantity: int = Field(default=1, ge=1, le=10_000)
    handling_unit_type: str | None = Field(default=None, max_length=40)
    stackable: bool = False
    dimensions: UnitDimensions | None = None
    weight: UnitWeight | None = None
    items: list[ShipmentItem] = Field(default_factory=list, max_length=200)


class RateShipmentDetail(WireModel):
    pickup_stop_id: UUID | None = None
    delivery_stop_id: UUID | None = None
    handling_units: list[HandlingUnit] = Field(default_factory=list, max_length=MAX_HANDLING_UNITS)
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=50)


class RateDetail(WireModel):
    route_info: RateRouteInfo
    shipping_details: RateShippingDetails | None = None
    shipment_details: list[RateShipmentDetail] = Field(default_factory=list, max_length=50)
    pickup_date: date | None = None
    shipper_contact_info: ContactInfo | None = None


class AccountGroupRef(WireModel):
    """A capacity provider account group of the caller's tenant, named by its code."""

    code: str = Field(min_length=1, max_length=100)


class RateRequestCreate(WireModel):
    """The body of POST rate-requests."""

    name: str | None = Field(default=None, max_length=200)
    # Default: 72 hours after creation. Must carry an offset and lie in the future.
    expiration_date_time: AwareDatetime | None = None
    rate_detail: RateDetail
    capacity_provider_identifiers: list[CapacityProviderIdentifier] = Field(
        default_factory=list, max_length=MAX_CARRIERS
    )
    capacity_provider_account_groups: list[AccountGroupRef] = Field(
        default_factory=list, max_length=MAX_ACCOUNT_GROUPS
    )
    # CONTRACT, SPOT or ALL; absent means ALL.
    quote_type_filter: QuoteTypeFilter | None = None
    attributes: list[CustomAttribute] = Field(default_factory=list, max_length=25)
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=250)


# --- the answer ----------------------------------------------------------------------------


class Charge(WireModel):
    code: str
    description: str | None = None
    amount: Money


class Quote(WireModel):
    """One carrier's priced answer; book it by sending its `rateIdentifiers` in a booking."""

    id: UUID
    capacity_provider_identifier: CapacityProviderIdentifier
    carrier_name: str
    quote_type: QuoteType
    transportation_mode: RatingMode
    service_level: str
    total_rate: Money
    line_haul: Money
    fuel_surcharge: Money
    accessorial_charges: list[Charge] = Field(default_factory=list)
    distance: Measure
    rate_per_distance: Money | None = None
    billed_weight: Weight | None = None
    transit_days: int
    estimated_delivery_date: date | None = None
    expiration_date_time: AwareDatetime
    rate_identifiers: list[RateIdentifier]
    created_date_time: AwareDatetime


class MarketQuote(WireModel):
    """A market rate provider's view of the lane: the range shippers pay today."""

    id: UUID
    provider_name: str
    quote_type: QuoteType
    transportation_mode: RatingMode
    low_rate: Money
    average_rate: Money
    high_rate: Money
    average_rate_per_distance: Money
    distance: Measure
    sample_size: int
    created_date_time: AwareDatetime


class RateRequest(WireModel):
    id: UUID
    name: str | None = None
    expiration_date_time: AwareDatetime
    rate_detail: RateDetail
    capacity_provider_identifiers: list[CapacityProviderIdentifier] = Field(default_factory=list)
    capacity_provider_account_groups: list[AccountGroupRef] = Field(default_factory=list)
    quote_type_filter: QuoteTypeFilter = QuoteTypeFilter.ALL
    attributes: list[CustomAttribute] = Field(default_factory=list)
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list)
    quotes: list[Quote] = Field(default_factory=list)
    market_quotes: list[MarketQuote] = Field(default_factory=list)
    status: RateRequestStatus
    rating_source_method: str = "API"
    created_date_time: AwareDatetime
    last_modified_date_time: AwareDatetime


class RateRequestCancellation(WireModel):
    rate_request_id: UUID
    # The booking that was in progress and was cancelled with the request, if there was one.
    booking_id: UUID | None = None


class RateRequestList(WireModel):
    """A page of the tenant's rate requests, newest first (an extension)."""

    pagination_info: PaginationInfo
    results: list[RateRequest]
