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

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
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
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import utcnow
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.tables.tracking import Shipment, ShipmentChange, ShipmentEvent

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
    origin: LaneKey | None
    destination: LaneKey | None


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
    stops_data: Any,
    events: Sequence[_Event],
    tracked: bool,
) -> _Facts:
    stops = [stop for stop in (stops_data or []) if isinstance(stop, dict)]
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
        origin=_lane_key(_address(pickup)),
        destination=_lane_key(_address(delivery)),
    )


def _load_facts(
    session: Session, tenant_id: int, now: datetime, pks: Sequence[int] | None = None
) -> dict[int, _Facts]:
    """Facts of the tenant's truckloads (of these shipments only, when given)."""
    conditions = [
        Shipment.tenant_id == tenant_id,
        Shipment.deleted_at.is_(None),
        Shipment.mode == TRUCKLOAD,
        Shipment.carrier.is_not(None),
        Shipment.created_at >= now - _CREATED_LOOKBACK,
    ]
    if pks is not None:
        conditions.append(Shipment.pk.in_(pks))
    wanted = select(Shipment.pk).where(*conditions)
    # Only the stops are read out of each shipment's document, and only the stop of each
    # event: parsing whole documents is what a search over thousands of shipments costs.
    shipments = session.execute(
        select(
            Shipment.pk,
            Shipment.carrier,
            Shipment.created_at,
            Shipment.data["routeInfo"]["stops"],
            Shipment.last_position_at,
        ).where(*conditions)
    ).all()
    events: dict[int, list[_Event]] = defaultdict(list)
    for pk, type_, at, stop_id in session.execute(
        select(
            ShipmentEvent.shipment_pk,
            ShipmentEvent.type,
            ShipmentEvent.date_time,
            ShipmentEvent.data["stopId"].as_string(),
        ).where(
            ShipmentEvent.shipment_pk.in_(wanted),
            ShipmentEvent.type.in_((*ARRIVALS, PICKED_UP, DELIVERED)),
            ShipmentEvent.date_time.is_not(None),
        )
    ):
        events[pk].append(_Event(type_, at, stop_id or None))
    from_sources = set(
        session.scalars(
            select(ShipmentEvent.shipment_pk)
            .where(ShipmentEvent.shipment_pk.in_(wanted), ShipmentEvent.source != USER_SOURCE)
            .distinct()
        )
    )
    return {
        pk: _facts(
            name.strip().upper(),
            created_at,
            stops,
            events.get(pk, ()),
            last_position is not None or pk in from_sources,
        )
        for pk, name, created_at, stops, last_position in shipments
    }


@dataclass
class _TenantFacts:
    facts: dict[int, _Facts]
    last_change: int
    loaded_at: float
    lock: threading.Lock


class FactsCache:
    """Each tenant's shipment facts, kept current from the shipment change journal.

    The first search of a tenant reads all its truckloads; later searches re-read only the
    shipments that changed since (events, positions, replacement, deletion all journal a
    change), so a search stays fast on a tenant with many shipments under live tracking.
    A change whose transaction commits after a later-numbered one could be missed, so every
    ten minutes a search reads everything again.
    """

    # Beyond this many changed shipments a full reload is as quick and simpler.
    FULL_RELOAD = 2000
    MAX_AGE_SECONDS = 600.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tenants: dict[int, _TenantFacts] = {}

    def facts(self, session: Session, tenant_id: int, now: datetime) -> list[_Facts]:
        with self._lock:
            known = self._tenants.get(tenant_id)
            if known is None:
                known = _TenantFacts({}, -1, 0.0, threading.Lock())
                self._tenants[tenant_id] = known
        with known.lock:  # tenants do not wait for each other
            latest = (
                session.scalar(
                    select(func.max(ShipmentChange.id)).where(ShipmentChange.tenant_id == tenant_id)
                )
                or 0
            )
            stale = time.monotonic() - known.loaded_at > self.MAX_AGE_SECONDS
            if known.last_change < 0 or stale:
                known.facts = _load_facts(session, tenant_id, now)
                known.loaded_at = time.monotonic()
                known.last_change = latest
            elif latest > known.last_change:
                self._refresh(session, tenant_id, now, known, latest)
            return list(known.facts.values())

    def _refresh(
        self, session: Session, tenant_id: int, now: datetime, known: _TenantFacts, latest: int
    ) -> None:
        changed_ids = session.scalars(
            select(ShipmentChange.shipment_id)
            .where(
                ShipmentChange.tenant_id == tenant_id,
                ShipmentChange.id > known.last_change,
                ShipmentChange.id <= latest,
            )
            .distinct()
        ).all()
        if len(changed_ids) > self.FULL_RELOAD:
            known.facts = _load_facts(session, tenant_id, now)
            known.loaded_at = time.monotonic()
        else:
            pks = list(session.scalars(select(Shipment.pk).where(Shipment.id.in_(changed_ids))))
            for pk in pks:
                known.facts.pop(pk, None)
            known.facts.update(_load_facts(session, tenant_id, now, pks))
        known.last_change = latest


def facts_cache(context: ServiceContext) -> FactsCache:
    cache = context.services.get("capacity_facts")
    if cache is None:
        cache = context.services.setdefault("capacity_facts", FactsCache())
    assert isinstance(cache, FactsCache)
    return cache


def _shipment_facts(
    session: Session, cache: FactsCache, tenant_id: int, carrier: str | None, now: datetime
) -> list[_Facts]:
    facts = cache.facts(session, tenant_id, now)
    return facts if carrier is None else [f for f in facts if f.carrier == carrier]


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


@dataclass(frozen=True)
class LaneKey:
    """A stop's address as lanes compare it, worked out once per shipment."""

    country: str | None
    state: str
    city: str
    postal_code: str


def _lane_key(address: dict[str, Any] | None) -> LaneKey | None:
    if address is None:
        return None
    country = _country(address.get("country"))
    return LaneKey(
        country=country,
        state=_state_key(country, address.get("state")),
        city=_text_key(address.get("city")),
        postal_code=_text_key(address.get("postalCode")),
    )


def _lane_matcher(wanted: LaneAddress) -> Callable[[LaneKey | None], bool]:
    given = wanted.model_fields_set
    country = _country(wanted.country) if "country" in given else None
    city = _text_key(wanted.city) if wanted.city else None
    postal = _text_key(wanted.postal_code) if wanted.postal_code else None
    state_raw = wanted.state if wanted.state else None
    # A state is read in the country asked for, else in the country of each address.
    state_in: dict[str | None, str] = {}

    def matches(key: LaneKey | None) -> bool:
        if key is None:
            return False
        if country is not None and key.country != country:
            return False
        if city is not None and key.city != city:
            return False
        if state_raw is not None:
            reading = country or key.country
            if reading not in state_in:
                state_in[reading] = _state_key(reading, state_raw)
            if key.state != state_in[reading]:
                return False
        return postal is None or key.postal_code.startswith(postal)

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


def carrier_performances(
    session: Session,
    cache: FactsCache,
    tenant_id: int,
    search: CarrierSearch,
    now: datetime | None = None,
) -> list[CarrierPerformance]:
    now = now or utcnow()
    carrier = search.carrier_identifier.value if search.carrier_identifier else None
    tallies = _tallies(_shipment_facts(session, cache, tenant_id, carrier, now), now)
    names = carrier_profiles.names(session, tenant_id, tallies)
    items = [_performance(scac, names.get(scac), tally) for scac, tally in tallies.items()]
    kept = _ranked([i for i in items if _keep(i, search)], search)
    return [CarrierPerformance(**item) for item in kept]


def lane_performances(
    session: Session,
    cache: FactsCache,
    tenant_id: int,
    search: LaneSearch,
    now: datetime | None = None,
) -> list[CarrierLanePerformance]:
    now = now or utcnow()
    carrier = search.carrier_identifier.value if search.carrier_identifier else None
    origin, destination = _lane_matcher(search.origin), _lane_matcher(search.destination)
    facts = [
        f
        for f in _shipment_facts(session, cache, tenant_id, carrier, now)
        if origin(f.origin) and destination(f.destination)
    ]
    tallies = _tallies(facts, now)
    names = carrier_profiles.names(session, tenant_id, tallies)
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
