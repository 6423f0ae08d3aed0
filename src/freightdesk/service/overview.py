"""What a dispatcher reads first about one shipment, from the history the detail already has:
the state and where, the next stop with its appointment window and ETA (and how the two
compare), carrier, equipment, weight and pieces where known, the last position (by the
shipment's own stop it is near, when one is) and its age, the open exceptions.

Plain facts (times as UTC datetimes with the zone of the stop they belong to): the app words
and formats them with its one clock (`service.clock`). Whether an ETA is late
or at risk is triage's rule (`service.triage.assess`), so the Overview and the list's
Attention column never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from freightdesk.models.code_words import unit_text, words
from freightdesk.models.common import Measure
from freightdesk.models.distances import distance_km
from freightdesk.models.durations import duration_text
from freightdesk.models.enums import ShipmentStateType
from freightdesk.models.identifier_rules import carrier_of, mode_of
from freightdesk.models.tracking import (
    ExceptionStatus,
    RouteStop,
    TrackingHistory,
    is_estimate,
    place_name,
)
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.service.triage import Attention, Facts, TriageSettings, assess

# Identifiers that name the equipment itself (a container, trailer, wagon, ...).
EQUIPMENT_TYPES = ("CONTAINER_ID", "TRAILER_NUMBER", "EQUIPMENT_ID", "WAGON_ID", "RAIL_CAR_ID")
# The shipper's own attributes are the other place these are written down.
_EQUIPMENT_NAMES = frozenset({"equipment", "equipment type", "trailer"})
_WEIGHT_NAMES = frozenset({"weight", "gross weight", "weight (kg)", "weight (lb)"})
_PIECE_NAMES = frozenset({"pieces", "piece count", "handling units", "packages"})
_EPOCH = datetime.fromtimestamp(0).astimezone()
# How far from one of the shipment's own stops a position is still said by that stop ("12 km
# from Dallas DC"): about a metro area. Farther, a stop hundreds of km off is no landmark,
# and the coordinates are said (docs/spec-gaps.md, Overview's last position).
NEAR_STOP_KM = 50.0


@dataclass(frozen=True)
class Place:
    """A stop as the Overview names it, with the zone its times are read in."""

    name: str
    zone: str | None
    number: int  # 1-based, in route order


@dataclass(frozen=True)
class NearStop:
    """The shipment's stop nearest its last position, and how far from it."""

    place: Place
    km: float


@dataclass(frozen=True)
class NextStop:
    place: Place
    window_start: datetime | None
    window_end: datetime | None
    eta: datetime | None
    # "on time", "35 min after the window", "20 min before the window ends (at risk)"; empty
    # without an ETA or a window to compare.
    difference: str
    late: bool
    at_risk: bool


@dataclass(frozen=True)
class OpenException:
    text: str
    since: datetime | None
    zone: str | None  # of its stop, when it has one


@dataclass(frozen=True)
class Overview:
    state: ShipmentStateType | None
    # The stop the shipment is at (at a stop) or was last seen at; None before the first.
    where: Place | None
    at_stop: bool
    next_stop: NextStop | None
    # The newest estimate of any stop (the list's "Latest ETA", `newest_estimate`): said
    # beside the next stop's when it is another estimate (a later stop's, one without a stop).
    latest_eta: datetime | None
    latest_eta_zone: str | None  # of the stop it is for
    latest_eta_place: Place | None  # the stop it is for, when the route has it
    carrier: str | None
    equipment: str | None
    weight: str | None
    pieces: str | None
    last_position: tuple[float, float] | None
    last_position_at: datetime | None
    # The stop of its own the last position is near (within NEAR_STOP_KM), if any.
    last_position_near: NearStop | None
    last_position_age: str  # "12 m ago"; empty without a position
    exceptions: tuple[OpenException, ...]


def _zone(stop: RouteStop) -> str | None:
    window = stop.appointment_window
    return window.local_time_zone_identifier if window is not None else None


def _reached(history: TrackingHistory, stops: list[RouteStop]) -> int:
    """The index of the last stop something happened at (an event or a state), or -1: the
    stops the list's Latest ETA leaves behind (`TrackingHistory.passed_stops`)."""
    passed = history.passed_stops()
    return max((n for n, s in enumerate(stops) if str(s.id) in passed), default=-1)


def _current_state(history: TrackingHistory) -> tuple[ShipmentStateType | None, str | None]:
    """The open state (else the one that started last) and the stop it is at, if any."""
    states = sorted(history.states, key=lambda s: s.start_date_time)
    open_states = [s for s in states if s.end_date_time is None]
    latest = (open_states or states)[-1] if states else None
    if latest is None:
        return None, None
    return latest.type, str(latest.stop_id) if latest.stop_id is not None else None


def _latest_eta(history: TrackingHistory, stop: RouteStop) -> datetime | None:
    """The newest estimate for `stop` (the one calculated last, else the latest received), of
    the ETAs only, as the Latest ETA (`is_estimate`)."""
    estimates = [
        e
        for e in history.events
        if is_estimate(e) and e.stop_id is not None and e.stop_id == stop.id
    ]
    newest = max(
        estimates,
        key=lambda e: (
            e.estimate_last_calculated_date_time or e.received_date_time or e.date_time or _EPOCH
        ),
        default=None,
    )
    return newest.estimate_date_time if newest is not None else None


def _difference(
    history: TrackingHistory,
    stop: RouteStop,
    eta: datetime | None,
    now: datetime,
    settings: TriageSettings,
) -> tuple[str, bool, bool]:
    window = stop.appointment_window
    end = window.end_date_time if window is not None else None
    start = window.start_date_time if window is not None else None
    if eta is None or end is None:
        return "", False, False
    # Triage's own rule, for this stop's ETA: the list and the Overview say the same. Only
    # the ETA and the state count for lateness; the row has nothing else to tell it.
    row = SummaryRow(
        id=str(history.shipment.id),
        identifiers=(),
        primary_identifier=None,
        mode=None,
        current_state=None,
        origin_name=None,
        destination_name=None,
        next_eta=eta,
        latest_event_type=None,
        latest_event_time=None,
        latest_event_description=None,
        open_exception_count=0,
        carrier=None,
        created=now,
        last_modified=now,
    )
    verdict = assess(row, Facts(etas=((eta, end),)), now, settings)
    if Attention.LATE in verdict.kinds and verdict.late_by is not None:
        return f"{duration_text(verdict.late_by)} after the window", True, False
    if Attention.AT_RISK in verdict.kinds and verdict.until_end is not None:
        left = duration_text(verdict.until_end)
        return f"{left} before the window ends (at risk)", False, True
    if start is not None and eta < start:
        return f"on time ({duration_text(start - eta)} before the window opens)", False, False
    return "on time", False, False


def _attribute(history: TrackingHistory, names: frozenset[str]) -> str | None:
    for attribute in history.shipment.attributes:
        if attribute.name.strip().lower() in names:
            return ", ".join(attribute.values) if attribute.values else attribute.value
    return None


def _measure(measure: Measure) -> str:
    return f"{measure.value:,.0f} {unit_text(measure.unit)}"


def _equipment(history: TrackingHistory) -> str | None:
    shipment = history.shipment
    found = [i.value for kind in EQUIPMENT_TYPES for i in shipment.identifiers if i.type == kind]
    segments = shipment.route_info.route_segments if shipment.route_info else []
    vehicles = [
        s.emissions.vehicle_info.type.enum_value.replace("_", " ").lower()
        for s in segments
        if s.emissions and s.emissions.vehicle_info and s.emissions.vehicle_info.type
    ]
    named = _attribute(history, _EQUIPMENT_NAMES)
    parts = list(dict.fromkeys([*([named] if named else []), *vehicles, *found]))
    return ", ".join(parts) if parts else None


def _weight(history: TrackingHistory) -> str | None:
    named = _attribute(history, _WEIGHT_NAMES)
    if named:
        return named
    route = history.shipment.route_info
    for segment in route.route_segments if route else []:
        if segment.emissions is not None and segment.emissions.cargo_weight is not None:
            return _measure(segment.emissions.cargo_weight)
    return None


def _carrier(history: TrackingHistory) -> str | None:
    # The mode the list says (the service's rule, from the identifiers and the plan): an LTL
    # shipment's carrier is its account, whatever the plan's first mode.
    shipment = history.shipment
    planned = shipment.plan.expected_transportation_modes if shipment.plan else []
    mode = mode_of([i.type for i in shipment.identifiers], planned)
    found = carrier_of(mode, shipment.identifiers)
    return found or _attribute(history, frozenset({"carrier"}))


def _near_stop(
    latitude: float, longitude: float, stops: list[RouteStop], places: list[Place]
) -> NearStop | None:
    """The stop with coordinates nearest the point, when within `NEAR_STOP_KM`: a position
    carries no address, and a dispatcher knows the shipment's own stops by name."""
    located = [
        (distance_km((latitude, longitude), (c.latitude, c.longitude)), place)
        for stop, place in zip(stops, places, strict=True)
        if stop.location is not None and (c := stop.location.coordinates) is not None
    ]
    km, place = min(located, key=lambda found: found[0], default=(NEAR_STOP_KM + 1, None))
    return NearStop(place, km) if place is not None and km <= NEAR_STOP_KM else None


def _exception_text(kind: str, description: str | None) -> str:
    said = words(kind)  # as the timeline says it
    return f"{said}: {description}" if description else said


def overview_of(
    history: TrackingHistory, now: datetime, settings: TriageSettings | None = None
) -> Overview:
    """The Overview of `history` at `now` (an aware time)."""
    settings = settings or TriageSettings()
    shipment = history.shipment
    stops = shipment.route_info.stops if shipment.route_info else []
    places = [Place(place_name(s), _zone(s), n) for n, s in enumerate(stops, start=1)]
    by_id = {str(s.id): n for n, s in enumerate(stops) if s.id is not None}
    state, state_stop = _current_state(history)
    reached = _reached(history, stops)
    at_stop = state is ShipmentStateType.AT_STOP and state_stop in by_id
    if at_stop and state_stop is not None:
        reached = by_id[state_stop]
    where = places[reached] if reached >= 0 else None
    next_stop = None
    if state is not ShipmentStateType.COMPLETED and reached + 1 < len(stops):
        stop = stops[reached + 1]
        window = stop.appointment_window
        eta = _latest_eta(history, stop)
        difference, late, at_risk = _difference(history, stop, eta, now, settings)
        next_stop = NextStop(
            places[reached + 1],
            window.start_date_time if window else None,
            window.end_date_time if window else None,
            eta,
            difference,
            late,
            at_risk,
        )
    position = max(history.positions, key=lambda p: p.date_time, default=None)
    age = ""
    if position is not None:
        age = f"{duration_text(max(now - position.date_time, timedelta(0)))} ago"
    zones = {str(s.id): _zone(s) for s in stops}
    newest = history.newest_estimate()  # the list's Latest ETA, by its rule
    newest_stop = str(newest.stop_id) if newest is not None and newest.stop_id else ""
    exceptions = tuple(
        OpenException(
            _exception_text(x.type, x.description),
            x.created_date_time,
            zones.get(str(x.stop_id)) if x.stop_id is not None else None,
        )
        for x in history.exceptions
        if x.status is ExceptionStatus.OPEN
    )
    return Overview(
        state=state,
        where=where,
        at_stop=at_stop,
        next_stop=next_stop,
        latest_eta=newest.estimate_date_time if newest is not None else None,
        latest_eta_zone=zones.get(newest_stop) if newest_stop else None,
        latest_eta_place=places[by_id[newest_stop]] if newest_stop in by_id else None,
        carrier=_carrier(history),
        equipment=_equipment(history),
        weight=_weight(history),
        pieces=_attribute(history, _PIECE_NAMES),
        last_position=(position.latitude, position.longitude) if position else None,
        last_position_at=position.date_time if position else None,
        last_position_near=(
            _near_stop(position.latitude, position.longitude, stops, places) if position else None
        ),
        last_position_age=age,
        exceptions=exceptions,
    )
