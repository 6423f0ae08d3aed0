"""Parcel push over real HTTP: the stop an exception it opens is at. The push names no stop,
so the service places it where its location is, else where the parcel was going."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from tests.server.test_carrier_push_support import (
    PARCEL,
    SHIPMENTS,
    accepted,
    history,
    java_time,
    now,
    parcel_body,
    settled,
    unique,
)
from tests.support import TenantHandle


def _stop(kind: str, name: str, city: str, state: str, postal: str, **more: Any) -> dict[str, Any]:
    address = {"addressLines": more.pop("lines", []), "city": city, "state": state}
    return {
        "type": kind,
        "name": name,
        "location": {"address": {**address, "postalCode": postal, "country": "US"}, **more},
    }


def _parcel(tenant: TenantHandle, events_at: int | None = None) -> tuple[str, str, list[str]]:
    """A parcel from Louisville through Memphis to New York, with a returns desk in the same
    city (a last stop that is not the delivery): its tracking number, id and stop ids in
    route order. The user's arrival at the stop numbered `events_at` (0 is the first), if
    any."""
    tracking = unique("1Z")
    stops = [
        _stop("PICKUP", "Louisville DC", "Louisville", "KY", "40202"),
        _stop(
            "TERMINAL",
            "Memphis hub",
            "Memphis",
            "TN",
            "38118",
            coordinates={"latitude": 35.0421, "longitude": -89.9767},
        ),
        _stop(
            "DELIVERY",
            "Consignee",
            "New York",
            "NY",
            "10001",
            lines=["350 5th Ave"],
            coordinates={"latitude": 40.7484, "longitude": -73.9857},
        ),
        _stop("WAYPOINT", "Returns desk", "New York", "NY", "10018", lines=["500 8th Ave"]),
    ]
    for stop in stops:
        stop["id"] = str(uuid.uuid4())
    body: dict[str, Any] = {
        "identifiers": [{"type": "TRACKING_NUMBER", "value": tracking}],
        "routeInfo": {"stops": stops},
    }
    if events_at is not None:
        arrived = (now() - timedelta(hours=5)).isoformat()
        body["events"] = [
            {"type": "ARRIVAL_AT_STOP", "dateTime": arrived, "stopId": stops[events_at]["id"]}
        ]
    answer = tenant.http.put(f"{SHIPMENTS}/tracking", json=body)
    assert answer.status_code == 201, answer.text
    shipment = answer.json()
    return tracking, shipment["id"], [stop["id"] for stop in shipment["routeInfo"]["stops"]]


Stops = tuple[str | None, str | None]


def _pusher(tenant: TenantHandle, tracking: str, shipment_id: str) -> Callable[..., Stops]:
    """Push an update `minutes` after a start: the stop of the exception it opened, and the
    stop of its event (None, None when it opens none)."""
    start = now() - timedelta(hours=6)

    def push(event_type: str, minutes: int, **extra: Any) -> Stops:
        body = parcel_body(tracking, event_type, **extra)
        at = start + timedelta(minutes=minutes)
        body["timestamp"] = java_time(at)
        receipt = settled(tenant, accepted(tenant.http.post(PARCEL, json=body)))
        assert receipt["status"] == "PROCESSED", receipt
        if event_type not in _OPENING:
            return None, None
        found = history(tenant, shipment_id)
        [opened] = [e for e in found["exceptions"] if _at(e, event_type, "createdDateTime", at)]
        [event] = [e for e in found["events"] if _at(e, event_type, "dateTime", at)]
        return opened.get("stopId"), event.get("stopId")

    return push


def _at(item: dict[str, Any], kind: str, key: str, at: datetime) -> bool:
    return bool(item["type"] == kind and _instant(item[key]) == at)


_OPENING = frozenset({"EXCEPTION", "DELIVERY_MISSED", "RETURN_TO_SENDER", "CANCELED"})


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_parcel_exception_is_at_the_stop_its_location_names(tenant: TenantHandle) -> None:
    """The parcel was there: its event is at the stop too."""
    tracking, shipment_id, (pickup, hub, delivery, returns) = _parcel(tenant)
    push = _pusher(tenant, tracking, shipment_id)
    # Another place: where the parcel was going (not picked up yet: the pickup), its event
    # along the way.
    far = {"geoCoordinates": _NASHVILLE, "address": {"city": "Nashville", "state": "TN"}}
    assert push("EXCEPTION", 0, location=far) == (pickup, None)
    # Coordinates within reach of a stop's: at that stop (the hub, 300 m off its point).
    near_hub = {"geoCoordinates": {"latitude": 35.0448, "longitude": -89.9767}}
    assert push("EXCEPTION", 1, location=near_hub) == (hub, hub)
    # An address in a stop's postal code, as a carrier's scan gives it: at that stop.
    scanned = {"address": {"city": "LOUISVILLE", "state": "Kentucky", "postalCode": "40202-1234"}}
    assert push("EXCEPTION", 5, location=scanned) == (pickup, pickup)
    # No postal code: the city and state; of two stops in the city, the one on the street.
    door = {"address": {"addressLines": ["350 5th Ave"], "city": "new york", "state": "NY"}}
    assert push("DELIVERY_MISSED", 10, location=door) == (delivery, delivery)
    desk = {"address": {"addressLines": [" 500  8th Ave"], "city": "New York"}}
    assert push("EXCEPTION", 15, location=desk) == (returns, returns)
    # Of two stops in the city alike, the one the parcel was going to.
    city = {"address": {"city": "New York", "state": "NY"}}
    assert push("DELIVERY_MISSED", 20, location=city) == (delivery, delivery)
    # A delivery attempt reported from another place: at the delivery stop's door.
    assert push("DELIVERY_MISSED", 25, location=far) == (delivery, delivery)


_NASHVILLE = {"latitude": 36.1627, "longitude": -86.7816}


def test_without_a_location_a_parcel_exception_is_where_it_was_going(
    tenant: TenantHandle,
) -> None:
    """Where it was only heading, its event stays along the way: the parcel was not seen
    there."""
    tracking, shipment_id, (pickup, hub, delivery, _returns) = _parcel(tenant)
    push = _pusher(tenant, tracking, shipment_id)
    # Not picked up yet: at the pickup.
    assert push("EXCEPTION", 0) == (pickup, None)
    # On its way, no stop reported: it left the pickup for the next stop.
    push("PICKED_UP", 10)
    push("POSITION_UPDATE", 15, location={"address": {"city": "Nashville", "state": "TN"}})
    assert push("EXCEPTION", 20, description="Weather delay") == (hub, None)
    assert push("RETURN_TO_SENDER", 30) == (hub, None)
    # A missed delivery: at the delivery stop (the last DELIVERY stop, not the route's last
    # stop), where the attempt was made.
    assert push("DELIVERY_MISSED", 40) == (delivery, delivery)
    # A cancellation is the whole shipment's, not a place's.
    assert push("CANCELED", 50) == (None, None)
    # Closed by the delivery, the missed delivery still names its stop.
    push("DELIVERED", 60)
    closed = [e for e in history(tenant, shipment_id)["exceptions"] if e["status"] == "CLOSED"]
    assert [(e["type"], e.get("stopId")) for e in closed] == [("DELIVERY_MISSED", delivery)]


def test_a_parcel_exception_follows_the_stops_the_shipment_was_seen_at(
    tenant: TenantHandle,
) -> None:
    """A stop reported by another source (the user's arrival at the hub) counts: the parcel
    is then going to the stop after it."""
    tracking, shipment_id, (_pickup, _hub, delivery, _returns) = _parcel(tenant, events_at=1)
    push = _pusher(tenant, tracking, shipment_id)
    push("PICKED_UP", 0)
    assert push("EXCEPTION", 90) == (delivery, None)
