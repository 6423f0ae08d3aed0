"""Connected capacity: carrier performance computed from the tenant's tracked truckloads.

For every truckload shipment (mode TL) the tenant owns that names a carrier (CARRIER_SCAC,
FFW_SCAC or SCAC identifier), over the past 365 days:

- the shipment's time is its pickup appointment (start of the first stop's window), else its
  creation; it counts when that time lies in the past 365 days, and as recent in the past 90;
- pickup (delivery) is on schedule when the first arrival at the first (last) stop lies within
  2 hours of that stop's appointment window: not earlier than its start minus 2 hours and not
  later than its end (or start) plus 2 hours. The arrival is the first ARRIVAL_AT_STOP or
  ARRIVED_AT_STOP event at the stop, else PICKED_UP (DELIVERED). A stop without an
  appointment or without an arrival is not measured, so it neither helps nor hurts;
- a shipment is tracked when a tracking source (not the user) sent it at least one event or
  position.

Percentages are whole numbers (half up); a minimum filter keeps carriers strictly above it, and
drops carriers for which nothing could be measured.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.addresses import country_code, region_key, subdivision_code
from freightdesk.models.capacity import (
    RECENT_DAYS,
    SCHEDULE_TOLERANCE_HOURS,
    STATISTICS_DAYS,
    CapacitySortBy,
    CarrierIdentifier,
    CarrierIdentifierType,
    CarrierLanePerformance,
    CarrierPerformance,
    CarrierSearch,
    LaneAddress,
    LaneEnd,
    LaneSearch,
    SortDirection,
    VolumeBucket,
)
from freightdesk.models.common import utc_datetime
from freightdesk.server.db import utcnow
from freightdesk.server.demo import carriers as demo_carriers
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.domain.vehicles import carrier_name
from freightdesk.server.tables.tracking import Shipment, ShipmentEvent

TRUCKLOAD = "TL"
USER_SOURCE = "USER"
ARRIVALS = ("ARRIVAL_AT_STOP", "ARRIVED_AT_STOP")
PICKED_UP = "PICKED_UP"
DELIVERED = "DELIVERED"
TOLERANCE = timedelta(hours=SCHEDULE_TOLERANCE_HOURS)
# Shipments created longer ago than this cannot have a pickup inside the window in practice.
_CREATED_LOOKBACK = timedelta(days=STATISTICS_DAYS + 60)


@dataclass
class _Facts:
    carrier: str
    at: datetime
    tracked: bool
    pickup_on_time: bool | None
    delivery_on_time: bool | None
    origin: dict[str, Any] | None
    destination: dict[str, Any] | None


@dataclass
class _Tally:
    volume: int = 0
    recent: int = 0
    tracked: int = 0
    recent_tracked: int = 0
    pickups: int = 0
    pickups_on_time: int = 0
    deliveries: int = 0
    deliveries_on_time: int = 0
    last: datetime | None = None
    shipments: list[_Facts] = field(default_factory=list)

    def add(self, facts: _Facts, recent: bool) -> None:
        self.volume += 1
        self.tracked += facts.tracked
        if recent:
            self.recent += 1
            self.recent_tracked += facts.tracked
        if facts.pickup_on_time is not None:
            self.pickups += 1
            self.pickups_on_time += facts.pickup_on_time
        if facts.delivery_on_time is not None:
            self.deliveries += 1
            self.deliveries_on_time += facts.delivery_on_time
        if self.last is None or facts.at > self.last:
            self.last = facts.at


def percent(part: int, whole: int) -> int | None:
    """A whole percentage, half up; None when there is nothing to measure."""
    if whole == 0:
        return None
    return (200 * part + whole) // (2 * whole)


def _parse(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return utc_datetime(datetime.fromisoformat(value))
    except ValueError:
        return None


def _window(stop: dict[str, Any]) -> tuple[datetime, datetime] | None:
    window = stop.get("appointmentWindow") or {}
    start = _parse(window.get("startDateTime"))
    end = _parse(window.get("endDateTime"))
    if start is None and end is None:
        return None
    return (start or end or utcnow(), end or start or utcnow())


def _on_time(window: tuple[datetime, datetime] | None, actual: datetime | None) -> bool | None:
    if window is None or actual is None:
        return None
    return window[0] - TOLERANCE <= actual <= window[1] + TOLERANCE


@dataclass(frozen=True)
class _Event:
    type: str
    at: datetime
    stop_id: str | None


def _arrival(events: Sequence[_Event], stop_id: str | None, fallback: str) -> datetime | None:
    if stop_id is not None:
        at_stop = [e.at for e in events if e.type in ARRIVALS and e.stop_id == stop_id]
        if at_stop:
            return min(at_stop)
    other = [e.at for e in events if e.type == fallback]
    return min(other) if other else None


def _address(stop: dict[str, Any] | None) -> dict[str, Any] | None:
    if stop is None:
        return None
    location = stop.get("location") or {}
    address = location.get("address")
    return address if isinstance(address, dict) else None


def _facts(
    carrier: str,
    created_at: datetime,
    data: dict[str, Any],
    events: Sequence[_Event],
    tracked: bool,
) -> _Facts:
    stops = [s for s in ((data.get("routeInfo") or {}).get("stops") or []) if isinstance(s, dict)]
    pickup = next((s for s in stops if s.get("type") == "PICKUP"), stops[0] if stops else None)
    delivery = next(
        (s for s in reversed(stops) if s.get("type") == "DELIVERY"),
        stops[-1] if len(stops) > 1 else None,
    )
    pickup_window = _window(pickup) if pickup else None
    delivery_window = _window(delivery) if delivery else None
    pickup_arrival = _arrival(events, pickup.get("id") if pickup else None, PICKED_UP)
    delivery_arrival = _arrival(events, delivery.get("id") if delivery else None, DELIVERED)
    return _Facts(
        carrier=carrier,
        at=pickup_window[0] if pickup_window else created_at,
        tracked=tracked,
        pickup_on_time=_on_time(pickup_window, pickup_arrival),
        delivery_on_time=_on_time(delivery_window, delivery_arrival),
        origin=_address(pickup),
        destination=_address(delivery),
    )


def _shipment_facts(
    session: Session, tenant_id: int, carrier: str | None, now: datetime
) -> list[_Facts]:
    conditions = [
        Shipment.tenant_id == tenant_id,
        Shipment.deleted_at.is_(None),
        Shipment.mode == TRUCKLOAD,
        Shipment.carrier.is_not(None),
        Shipment.created_at >= now - _CREATED_LOOKBACK,
    ]
    if carrier is not None:
        conditions.append(func.upper(Shipment.carrier) == carrier)
    wanted = select(Shipment.pk).where(*conditions)
    shipments = session.execute(
        select(
            Shipment.pk,
            Shipment.carrier,
            Shipment.created_at,
            Shipment.data,
            Shipment.last_position_at,
        ).where(*conditions)
    ).all()
    events: dict[int, list[_Event]] = defaultdict(list)
    for pk, type_, at, data in session.execute(
        select(
            ShipmentEvent.shipment_pk,
            ShipmentEvent.type,
            ShipmentEvent.date_time,
            ShipmentEvent.data,
        ).where(
            ShipmentEvent.shipment_pk.in_(wanted),
            ShipmentEvent.type.in_((*ARRIVALS, PICKED_UP, DELIVERED)),
            ShipmentEvent.date_time.is_not(None),
        )
    ):
        stop_id = data.get("stopId") if isinstance(data, dict) else None
        events[pk].append(_Event(type_, at, str(stop_id) if stop_id else None))
    from_sources = set(
        session.scalars(
            select(ShipmentEvent.shipment_pk)
            .where(ShipmentEvent.shipment_pk.in_(wanted), ShipmentEvent.source != USER_SOURCE)
            .distinct()
        )
    )
    return [
        _facts(
            name.strip().upper(),
            created_at,
            data or {},
            events.get(pk, ()),
            last_position is not None or pk in from_sources,
        )
        for pk, name, created_at, data, last_position in shipments
    ]


# --- lanes ---------------------------------------------------------------------------------


def _text_key(value: Any) -> str:
    return region_key(value) if isinstance(value, str) else ""


def _state_key(country: str | None, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        return ""
    code = subdivision_code(country, value) if country else None
    return code or region_key(value)


def _country(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "US"  # the interface's default country
    return country_code(value) or region_key(value)


def _lane_matcher(wanted: LaneAddress) -> Any:
    given = wanted.model_fields_set
    country = _country(wanted.country) if "country" in given else None
    city = _text_key(wanted.city) if wanted.city else None
    postal = _text_key(wanted.postal_code) if wanted.postal_code else None
    state_raw = wanted.state if wanted.state else None

    def matches(address: dict[str, Any] | None) -> bool:
        if address is None:
            return False
        their_country = _country(address.get("country"))
        if country is not None and their_country != country:
            return False
        if city is not None and _text_key(address.get("city")) != city:
            return False
        if state_raw is not None and _state_key(their_country, address.get("state")) != _state_key(
            country or their_country, state_raw
        ):
            return False
        return postal is None or _text_key(address.get("postalCode")).startswith(postal)

    return matches


# --- ranking -------------------------------------------------------------------------------


def _performance(carrier: str, name: str | None, tally: _Tally) -> dict[str, Any]:
    return {
        "carrier_identifier": CarrierIdentifier(type=CarrierIdentifierType.SCAC, value=carrier),
        "carrier_name": name,
        "shipment_volume": tally.volume,
        "recent_shipment_volume": tally.recent,
        "volume_bucket": VolumeBucket.of(tally.volume),
        "delivery_schedule_reliability": percent(tally.deliveries_on_time, tally.deliveries),
        "pickup_schedule_reliability": percent(tally.pickups_on_time, tally.pickups),
        "percent_tracked": percent(tally.tracked, tally.volume),
        "recent_percent_tracked": percent(tally.recent_tracked, tally.recent),
        "deliveries_measured": tally.deliveries,
        "pickups_measured": tally.pickups,
        "last_shipment_date_time": tally.last,
    }


_SORT_FIELD = {
    CapacitySortBy.SHIPMENT_VOLUME: "shipment_volume",
    CapacitySortBy.RECENT_SHIPMENT_VOLUME: "recent_shipment_volume",
    CapacitySortBy.DELIVERY_SCHEDULE_RELIABILITY: "delivery_schedule_reliability",
    CapacitySortBy.PICKUP_SCHEDULE_RELIABILITY: "pickup_schedule_reliability",
    CapacitySortBy.PERCENT_TRACKED: "percent_tracked",
    CapacitySortBy.RECENT_PERCENT_TRACKED: "recent_percent_tracked",
}


def _above(value: int | None, minimum: int | None) -> bool:
    return minimum is None or (value is not None and value > minimum)


def _keep(item: dict[str, Any], search: CarrierSearch) -> bool:
    if search.minimum_volume is not None and (
        item["volume_bucket"].rank < search.minimum_volume.rank
    ):
        return False
    return (
        _above(item["delivery_schedule_reliability"], search.minimum_delivery_schedule_reliability)
        and _above(item["pickup_schedule_reliability"], search.minimum_pickup_schedule_reliability)
        and _above(item["percent_tracked"], search.minimum_tracking_percentage)
    )


def _ranked(items: list[dict[str, Any]], search: CarrierSearch) -> list[dict[str, Any]]:
    """Sorted by the chosen field; unmeasured values last in either direction; ties by
    volume (largest first), then SCAC."""
    key = _SORT_FIELD[search.sort_by]
    descending = search.sort_direction is SortDirection.DESC
    items.sort(key=lambda i: (-i["shipment_volume"], i["carrier_identifier"].value))
    measured = [i for i in items if i[key] is not None]
    unmeasured = [i for i in items if i[key] is None]
    measured.sort(key=lambda i: i[key], reverse=descending)
    return measured + unmeasured


def _tallies(facts: Iterable[_Facts], now: datetime) -> dict[str, _Tally]:
    start, recent_start = now - timedelta(days=STATISTICS_DAYS), now - timedelta(days=RECENT_DAYS)
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    for item in facts:
        if start <= item.at <= now:
            tallies[item.carrier].add(item, item.at >= recent_start)
    return tallies


def _names(session: Session, tenant_id: int, scacs: Iterable[str]) -> dict[str, str]:
    """Carrier names: the tenant's carrier profile or a built-in carrier, else the co-op's and
    the demo's carrier directories; a carrier known to none of them goes without a name."""
    wanted = list(scacs)
    profiles = carrier_profiles.resolve(session, tenant_id, wanted)
    names: dict[str, str] = {}
    for scac in wanted:
        profile = profiles.get(scac)
        if profile is not None and (profile.configured or scac in carrier_profiles.CATALOGUE):
            names[scac] = profile.name
        elif (known := carrier_name(scac) or _DEMO_CARRIERS.get(scac)) is not None:
            names[scac] = known
    return names


_DEMO_CARRIERS = {carrier.scac: carrier.name for carrier in demo_carriers.CARRIERS}


def carrier_performances(
    session: Session, tenant_id: int, search: CarrierSearch, now: datetime | None = None
) -> list[CarrierPerformance]:
    now = now or utcnow()
    carrier = search.carrier_identifier.value if search.carrier_identifier else None
    tallies = _tallies(_shipment_facts(session, tenant_id, carrier, now), now)
    names = _names(session, tenant_id, tallies)
    items = [_performance(scac, names.get(scac), tally) for scac, tally in tallies.items()]
    kept = _ranked([i for i in items if _keep(i, search)], search)
    return [CarrierPerformance(**item) for item in kept]


def lane_performances(
    session: Session, tenant_id: int, search: LaneSearch, now: datetime | None = None
) -> list[CarrierLanePerformance]:
    now = now or utcnow()
    carrier = search.carrier_identifier.value if search.carrier_identifier else None
    origin, destination = _lane_matcher(search.origin), _lane_matcher(search.destination)
    facts = [
        f
        for f in _shipment_facts(session, tenant_id, carrier, now)
        if origin(f.origin) and destination(f.destination)
    ]
    tallies = _tallies(facts, now)
    names = _names(session, tenant_id, tallies)
    items = [_performance(scac, names.get(scac), tally) for scac, tally in tallies.items()]
    kept = _ranked([i for i in items if _keep(i, search)], search)
    lane = {
        "origin": _echo(search.origin),
        "destination": _echo(search.destination),
    }
    return [CarrierLanePerformance(**item, **lane) for item in kept]


def _echo(address: LaneAddress) -> LaneEnd:
    given = address.model_fields_set
    return LaneEnd(
        city=address.city,
        state=address.state,
        postal_code=address.postal_code,
        country=address.country if "country" in given else None,
    )
