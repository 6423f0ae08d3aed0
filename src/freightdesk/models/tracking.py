"""Shipment tracking: the tracked shipment, its events, route, history and sharing context.

The same nested shapes serve requests and responses. They are lenient (unknown fields are
ignored) so the client keeps working against a newer deployment; the local service validates
request bodies with ``extra="forbid"`` at run time so that a misspelt field is reported with its
path instead of silently dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated
from uuid import UUID

from pydantic import AfterValidator, AwareDatetime, Field, model_validator

from freightdesk.models.base import IanaZone, StrictWireModel, WireModel
from freightdesk.models.common import (
    LATITUDE_BOUND,
    LONGITUDE_BOUND,
    Address,
    CustomAttribute,
    GeoCoordinates,
    Int32,
    LogisticsIdentifier,
    Measure,
    Money,
    TransportationMode,
    utc_datetime,
)
from freightdesk.models.enums import ShipmentStateType as ShipmentStateType

# What an estimate without a calculation or receipt time sorts by: before all others.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _to_utc(value: datetime) -> datetime:
    try:
        return utc_datetime(value)
    except OverflowError:  # e.g. 9999-12-31T23:00:00-05:00 is past the last representable instant
        raise ValueError("is outside the supported range of date-times") from None


# Instants with an offset, kept and answered in UTC (the zone of a stop is named separately).
UtcTime = Annotated[AwareDatetime, AfterValidator(_to_utc)]

# The interface's limits, plus our own where it names none (see docs/spec-gaps.md).
MAX_IDENTIFIERS = 250
MAX_ATTRIBUTES = 25
MAX_COSTS = 25
MAX_RELATED_SHIPMENTS = 250
MAX_ACCESS_GROUPS = 100
MAX_STOPS = 100
MAX_ROUTE_SEGMENTS = 100
MAX_EVENTS_PER_REQUEST = 1000
MAX_ATTRIBUTE_VALUES = 100
MAX_ATTRIBUTE_NAME = 100  # characters of a custom attribute's name
MAX_ATTRIBUTE_VALUE = 500  # characters of each of its values


class ExceptionStatus(StrEnum):
    OPEN = "OPEN"
    CLOSED = "CLOSED"


class ExceptionSeverity(StrEnum):
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"
    CRITICAL = "CRITICAL"


class StopType(StrEnum):
    PICKUP = "PICKUP"
    DELIVERY = "DELIVERY"
    WAYPOINT = "WAYPOINT"
    TERMINAL = "TERMINAL"
    PORT_OF_LOADING = "PORT_OF_LOADING"
    PORT_OF_DISCHARGE = "PORT_OF_DISCHARGE"
    TRANSSHIPMENT = "TRANSSHIPMENT"


class SpeedUnit(StrEnum):
    KILOMETERS_PER_HOUR = "KILOMETERS_PER_HOUR"
    MILES_PER_HOUR = "MILES_PER_HOUR"
    KNOTS = "KNOTS"


class RelationType(StrEnum):
    PARENT = "PARENT"
    CHILD = "CHILD"


# --- user-provided parts -------------------------------------------------------------------


class AccessGroup(WireModel):
    id: UUID


class Cost(WireModel):
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=25)
    # Vocabularies of cost type and tier are not shown; FREIGHT, FUEL_SURCHARGE, ... / PLANNED,
    # ACTUAL are what we use ourselves.
    type: str = Field(min_length=1, max_length=60)
    total_cost: Money
    tier: str | None = Field(default=None, max_length=60)


class Plan(WireModel):
    expected_transportation_modes: list[TransportationMode] = Field(
        default_factory=list, max_length=8
    )


class RelatedShipment(WireModel):
    id: UUID
    relation_type: RelationType | None = None


class RouteStopLocation(WireModel):
    address: Address | None = None
    coordinates: GeoCoordinates | None = None
    # The id of a saved stop location (stop locations area), when the stop is one.
    id: UUID | None = None
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=25)


class AppointmentWindow(WireModel):
    """When a stop is to be served: a tracked shipment's stop and a rail leg's stop have this
    one shape (the interface gives it for rail); its instants are answered in UTC."""

    start_date_time: UtcTime | None = None
    end_date_time: UtcTime | None = None
    # The stop's zone, so that a dispatcher sees the stop's local time.
    local_time_zone_identifier: IanaZone | None = None

    @model_validator(mode="after")
    def _ordered(self) -> AppointmentWindow:
        if (
            self.start_date_time is not None
            and self.end_date_time is not None
            and self.end_date_time < self.start_date_time
        ):
            raise ValueError("endDateTime must not be before startDateTime")
        return self


class RouteStop(WireModel):
    # Service-generated when absent; supply it to refer to the stop from route segments.
    id: UUID | None = None
    type: StopType | None = None
    name: str | None = Field(default=None, max_length=200)
    location: RouteStopLocation | None = None
    appointment_window: AppointmentWindow | None = None


def place_name(stop: RouteStop) -> str:
    """A stop as a dispatcher names it: its name, else its city and state."""
    if stop.name:
        return stop.name
    address = stop.location.address if stop.location else None
    if address is not None and address.city:
        return ", ".join(p for p in (address.city, address.state) if p)
    return "Unnamed stop"


class Co2EmissionIntensity(WireModel):
    unit: str = Field(min_length=1, max_length=40)
    value: float


class VehicleType(WireModel):
    enum_value: str = Field(min_length=1, max_length=60)


class VehicleInfo(WireModel):
    type: VehicleType | None = None
    weight: Measure | None = None


class Emissions(WireModel):
    cargo_weight: Measure | None = None
    co2_emission_intensity: Co2EmissionIntensity | None = Field(
        default=None, alias="co2EmissionIntensity"
    )
    distance: Measure | None = None
    load_factor: float | None = Field(default=None, ge=0)
    total_co2_emissions: Measure | None = Field(default=None, alias="totalCO2Emissions")
    vehicle_info: VehicleInfo | None = None


class RouteSegment(WireModel):
    id: UUID | None = None
    from_stop_id: UUID | None = None
    to_stop_id: UUID | None = None
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=25)
    transportation_mode: TransportationMode | None = None
    emissions: Emissions | None = None


class RouteInfo(WireModel):
    stops: list[RouteStop] = Field(default_factory=list, max_length=MAX_STOPS)
    route_segments: list[RouteSegment] = Field(default_factory=list, max_length=MAX_ROUTE_SEGMENTS)


# --- events --------------------------------------------------------------------------------


class EventDateTime(WireModel):
    date_time: UtcTime | None = None
    end_date_time: UtcTime | None = None
    last_modified_date_time: UtcTime | None = None
    source: str | None = Field(default=None, max_length=60)
    source_identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=25)
    selected: bool | None = None
    sequence: Int32 | None = None
    type: str | None = Field(default=None, max_length=60)


class EventCode(WireModel):
    code: str | None = Field(default=None, max_length=60)


class RolloverDetails(WireModel):
    """An ocean container rolled over to a later vessel (fields not shown by the interface)."""

    reason: str | None = Field(default=None, max_length=500)
    previous_vessel_name: str | None = Field(default=None, max_length=100)
    previous_voyage_number: str | None = Field(default=None, max_length=60)
    vessel_name: str | None = Field(default=None, max_length=100)
    voyage_number: str | None = Field(default=None, max_length=60)
    previous_departure_date_time: UtcTime | None = None
    new_departure_date_time: UtcTime | None = None


class EventDetails(WireModel):
    mobile_tracking: EventCode | None = None
    ocean: EventCode | None = None
    quality_control: EventCode | None = None
    rollover_details: RolloverDetails | None = None


class TrackedShipmentEvent(WireModel):
    id: UUID | None = None
    # Event type vocabulary is not shown; ARRIVAL_AT_STOP, DEPARTURE_FROM_STOP, PICKED_UP,
    # DELIVERED, ETA, ... are what our sources use.
    type: str = Field(min_length=1, max_length=60)
    date_time: UtcTime | None = None
    description: str | None = Field(default=None, max_length=1000)
    date_times: list[EventDateTime] = Field(default_factory=list, max_length=50)
    details: EventDetails | None = None
    estimate_date_time: UtcTime | None = None
    estimate_last_calculated_date_time: UtcTime | None = None
    planned_date_time: UtcTime | None = None
    planned_end_date_time: UtcTime | None = None
    received_date_time: UtcTime | None = None
    route_segment_id: UUID | None = None
    stop_id: UUID | None = None


# --- the tracked shipment ------------------------------------------------------------------


class _ShipmentData(WireModel):
    """The user-provided data of a tracked shipment: what PUT tracking replaces."""

    identifiers: list[LogisticsIdentifier] = Field(default_factory=list, max_length=MAX_IDENTIFIERS)
    attributes: list[CustomAttribute] = Field(default_factory=list, max_length=MAX_ATTRIBUTES)
    access_groups: list[AccessGroup] = Field(default_factory=list, max_length=MAX_ACCESS_GROUPS)
    costs: list[Cost] = Field(default_factory=list, max_length=MAX_COSTS)
    plan: Plan | None = None
    route_info: RouteInfo | None = None
    related_shipments: list[RelatedShipment] = Field(
        default_factory=list, max_length=MAX_RELATED_SHIPMENTS
    )


class TrackedShipmentInput(_ShipmentData):
    """The body of PUT tracking.

    `id` absent creates a shipment; `id` present replaces that shipment's user-provided data.
    `events` are events the user records by hand; events received from tracking sources are not
    the user's to replace. Read-only fields are accepted (so a GET answer can be sent back after
    editing) and ignored.
    """

    id: UUID | None = None
    # minItems for the document only; the identifier rules answer an empty list themselves.
    identifiers: list[LogisticsIdentifier] = Field(
        default_factory=list, max_length=MAX_IDENTIFIERS, json_schema_extra={"minItems": 1}
    )
    events: list[TrackedShipmentEvent] = Field(
        default_factory=list, max_length=MAX_EVENTS_PER_REQUEST
    )
    shipment_share_link: str | None = None
    created_date_time: UtcTime | None = None
    last_modified_date_time: UtcTime | None = None


class TrackedShipment(_ShipmentData):
    """A tracked shipment as GET tracking answers it."""

    id: UUID
    events: list[TrackedShipmentEvent] = Field(default_factory=list)
    shipment_share_link: str | None = None
    created_date_time: UtcTime | None = None
    last_modified_date_time: UtcTime | None = None


class ShipmentAttribute(WireModel):
    attribute_name: str
    attribute_values: list[str]


# --- history -------------------------------------------------------------------------------


class ShipmentException(WireModel):
    """Something that needs a dispatcher's attention (fields not shown by the interface)."""

    id: UUID | None = None
    # DELAY, MISSED_APPOINTMENT, DAMAGE, CUSTOMS_HOLD, ROLLOVER, ... (vocabulary open).
    type: str = Field(min_length=1, max_length=60)
    status: ExceptionStatus = ExceptionStatus.OPEN
    severity: ExceptionSeverity = ExceptionSeverity.MEDIUM
    description: str | None = Field(default=None, max_length=1000)
    stop_id: UUID | None = None
    created_date_time: UtcTime | None = None
    resolved_date_time: UtcTime | None = None
    last_modified_date_time: UtcTime | None = None


class TrackedShipmentPosition(WireModel):
    """A reported position. Speeds are stored and answered in km/h."""

    date_time: UtcTime
    latitude: float = Field(ge=-LATITUDE_BOUND, le=LATITUDE_BOUND)
    longitude: float = Field(ge=-LONGITUDE_BOUND, le=LONGITUDE_BOUND)
    speed: float | None = Field(default=None, ge=0)
    speed_unit: SpeedUnit | None = None
    heading: float | None = Field(default=None, ge=0, le=360)
    # The tracking source that reported it (a transportation mode such as TL or OCEAN).
    source: str | None = None


class TrackedShipmentState(WireModel):
    id: UUID
    type: ShipmentStateType
    start_date_time: UtcTime
    end_date_time: UtcTime | None = None
    stop_id: UUID | None = None


class SharingParty(WireModel):
    tenant_name: str
    tenant_uuid: UUID
    shared_date_time: UtcTime | None = None


class SharingContext(WireModel):
    data_originators: list[SharingParty] = Field(default_factory=list)
    recipients: list[SharingParty] = Field(default_factory=list)


class EventHistory(WireModel):
    costs: list[Cost] = Field(default_factory=list)
    events: list[TrackedShipmentEvent] = Field(default_factory=list)
    exceptions: list[ShipmentException] = Field(default_factory=list)
    shipment: TrackedShipment
    states: list[TrackedShipmentState] = Field(default_factory=list)
    sharing_context: SharingContext | None = None


class PositionHistory(WireModel):
    positions: list[TrackedShipmentPosition] = Field(default_factory=list)
    shipment: TrackedShipment


class TrackingHistory(WireModel):
    costs: list[Cost] = Field(default_factory=list)
    events: list[TrackedShipmentEvent] = Field(default_factory=list)
    exceptions: list[ShipmentException] = Field(default_factory=list)
    positions: list[TrackedShipmentPosition] = Field(default_factory=list)
    shipment: TrackedShipment
    states: list[TrackedShipmentState] = Field(default_factory=list)
    sharing_context: SharingContext | None = None

    def current_state(self) -> TrackedShipmentState | None:
        """The shipment's state now, as the service keeps it (shipments.current_state): the
        one still open; else, all closed, the one that started last. The one rule for the
        list's row and the detail: a report dated before the open state's start adds a state
        that starts earlier yet is the current one, so "the latest start" alone would differ."""
        states = sorted(self.states, key=lambda s: s.start_date_time)
        open_states = [s for s in states if s.end_date_time is None]
        return (open_states or states)[-1] if states else None

    def newest_estimate(self) -> TrackedShipmentEvent | None:
        """The shipment's ETA as the service keeps it (its nextEta, the list's Latest ETA):
        `newest_estimate` of its events."""
        state = self.current_state()
        completed = state is not None and state.type is ShipmentStateType.COMPLETED
        return newest_estimate(self.events, completed=completed, passed=self.passed_stops())

    def route_stop_ids(self) -> list[str]:
        route = self.shipment.route_info
        return [str(s.id) for s in (route.stops if route is not None else []) if s.id is not None]

    def passed_stops(self) -> frozenset[str]:
        """The stops the shipment has reached (`passed_stops` of its events and states)."""
        seen = stops_seen(self.events, [s.stop_id for s in self.states])
        return passed_stops(self.route_stop_ids(), seen)


# The type of the events that carry a shipment's ETA: one per stop, updated in place
# (docs/spec-gaps.md, "Order of events and ETAs").
ETA_EVENT_TYPE = "ETA"


def is_estimate(event: TrackedShipmentEvent) -> bool:
    """Whether `event` is an estimate of arrival that can be the shipment's ETA: an `ETA`
    event with its estimateDateTime. Another event's estimateDateTime (a milestone expected
    at a time) is not one: the interface's sources report ETAs as `ETA` events, and the
    service counted only those while the app counted any, so a shipment showed two ETAs."""
    return event.type == ETA_EVENT_TYPE and event.estimate_date_time is not None


def is_open_estimate(event: TrackedShipmentEvent, passed: frozenset[str]) -> bool:
    """Whether `event` is an estimate (`is_estimate`) of a stop the shipment has not reached
    yet (`passed`: `passed_stops`); an estimate naming no stop stays open."""
    return is_estimate(event) and (event.stop_id is None or str(event.stop_id) not in passed)


def happened_at_stop(event: TrackedShipmentEvent) -> str | None:
    """The stop something happened at by `event` (an actual event other than an ETA), if any."""
    if event.stop_id is None or event.date_time is None or event.type == ETA_EVENT_TYPE:
        return None
    return str(event.stop_id)


def stops_seen(
    events: Iterable[TrackedShipmentEvent], state_stops: Iterable[UUID | str | None]
) -> set[str]:
    """The stops something happened at: those of actual events (`happened_at_stop`) and of
    states (`state_stops`, each state's stopId)."""
    seen = {stop for stop in map(happened_at_stop, events) if stop is not None}
    seen.update(str(stop) for stop in state_stops if stop is not None)
    return seen


def passed_stops(route: Iterable[str], seen: Iterable[str]) -> frozenset[str]:
    """The stops a shipment has reached: every stop of `route` (stop ids in route order) up to
    the last one something happened at (`stops_seen`), and any other stop seen. The detail's
    Overview takes the next stop to be the first after these."""
    order = list(route)
    seen = set(seen)
    last = max((n for n, stop in enumerate(order) if stop in seen), default=-1)
    return frozenset(seen.union(order[: last + 1]))


def newest_estimate(
    events: Iterable[TrackedShipmentEvent],
    *,
    completed: bool,
    passed: frozenset[str] = frozenset(),
) -> TrackedShipmentEvent | None:
    """A shipment's ETA, the one rule for the service's nextEta, the list's Latest ETA and the
    detail: of the estimates (`is_estimate`) for stops not yet reached (`passed`, see
    `passed_stops`), the one calculated last (else received last), none once the shipment is
    COMPLETED. Estimates calculated at once (a history's batch) go to the soonest, the stop
    reached first, not to whichever was stored last. The soonest or the latest instant
    instead would show the same shipment with two ETAs. A stop's estimate ends when the
    shipment reaches it: one that arrived early is not late for it, and its ETA is the next
    stop's (none after the last)."""
    if completed:
        return None
    return min(
        (e for e in events if is_open_estimate(e, passed)),
        key=lambda e: (
            -(
                e.estimate_last_calculated_date_time
                or e.received_date_time
                or e.date_time
                or _EPOCH
            ).timestamp(),
            e.estimate_date_time or _EPOCH,
        ),
        default=None,
    )


class ShareRequest(WireModel):
    """Body of the share extension: the tenant that may read the shipment from now on."""

    tenant_uuid: UUID


# Shipments per latest-positions query (the fleet map's extension).
MAX_LATEST_POSITION_IDS = 5000


class LatestPositionsRequest(StrictWireModel):
    """Which shipments: all visible ones, or those listed; with `since`, only those whose
    latest position is later than that instant (for cheap polling)."""

    shipment_ids: list[UUID] | None = Field(default=None, max_length=MAX_LATEST_POSITION_IDS)
    since: UtcTime | None = None


class LatestPosition(WireModel):
    """A shipment's latest reported position (speed in km/h)."""

    shipment_id: UUID
    date_time: UtcTime
    latitude: float = Field(ge=-LATITUDE_BOUND, le=LATITUDE_BOUND)
    longitude: float = Field(ge=-LONGITUDE_BOUND, le=LONGITUDE_BOUND)
    heading: float | None = None
    speed: float | None = None
    speed_unit: SpeedUnit | None = None
