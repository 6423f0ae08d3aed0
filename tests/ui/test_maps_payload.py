"""What the map pages are given: geofences, stops across the antimeridian, events placed at
their stop or on the track, the next ETA, appended positions, the fleet's markers."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from freightdesk.models.stop_locations import StopLocation
from freightdesk.models.tracking import LatestPosition, RouteStop, SpeedUnit, TrackingHistory
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.maps.payload import (
    appended_points,
    fence_of,
    fleet_items,
    next_eta,
    place_stops,
    route_points,
    shipment_picture,
)
from freightdesk.ui.maps.shipment_map import location_key

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _location(**geofence: Any) -> StopLocation:
    return StopLocation.model_validate(
        {
            "name": "Joliet DC",
            "address": {"city": "Joliet", "state": "IL", "country": "US"},
            "coordinates": {"latitude": 41.52, "longitude": -88.08},
            "geofence": geofence or None,
        }
    )


@pytest.mark.parametrize(
    ("units", "value", "metres"),
    [("METERS", 400, 400), ("KILOMETERS", 2, 2000), ("FEET", 1000, 304.8), ("MILES", 1, 1609.344)],
)
def test_a_distance_geofence_is_a_circle(units: str, value: float, metres: float) -> None:
    fence = fence_of(_location(type="DISTANCE", units=units, value=value), 41.0, -88.0)
    assert fence is not None and fence["shape"] == "circle" and not fence["approximate"]
    assert fence["radius"] == pytest.approx(metres)
    assert (fence["lat"], fence["lon"]) == (41.52, -88.08)  # the location's own coordinates


def test_a_time_geofence_is_drawn_at_40_kmh_and_a_box_as_a_box() -> None:
    fence = fence_of(_location(type="TIME", units="MINUTES", value=15), 41.0, -88.0)
    assert fence is not None and fence["approximate"]
    assert fence["radius"] == pytest.approx(10_000)  # a quarter of an hour at 40 km/h
    assert "15 minutes away" in fence["label"]
    box = fence_of(
        _location(geometry={"bbox": [-88.1, 41.5, -88.0, 41.6]}, type="DISTANCE"), 41.0, -88.0
    )
    assert box == {
        "shape": "rect",
        "south": 41.5,
        "west": -88.1,
        "north": 41.6,
        "east": -88.0,
        "label": "the area drawn on the map",
    }


def test_geofences_that_cannot_be_drawn() -> None:
    assert fence_of(_location(), 41.0, -88.0) is None
    assert fence_of(_location(type="DISTANCE", units="METERS"), 41.0, -88.0) is None
    assert fence_of(_location(type="DISTANCE", units="PARSECS", value=3), 41.0, -88.0) is None
    assert fence_of(_location(type="DISTANCE", units="METERS", value=-5), 41.0, -88.0) is None


def _stop(name: str, latitude: float, longitude: float, **extra: Any) -> RouteStop:
    return RouteStop.model_validate(
        {
            "id": str(uuid.uuid4()),
            "type": extra.pop("type", "PICKUP"),
            "name": name,
            "location": {"coordinates": {"latitude": latitude, "longitude": longitude}},
            **extra,
        }
    )


def test_a_trans_pacific_route_crosses_the_antimeridian() -> None:
    stops = place_stops([_stop("Shanghai", 31.2, 121.5), _stop("Los Angeles", 33.7, -118.2)])
    assert [s.longitude for s in stops] == [121.5, pytest.approx(241.8)]
    positions = [
        {"dateTime": (T0 + timedelta(hours=i)).isoformat(), "latitude": 35.0, "longitude": lon}
        for i, lon in enumerate([170.0, 179.0, -179.0, -170.0])
    ]
    history = TrackingHistory.model_validate(
        {"shipment": {"id": str(uuid.uuid4())}, "positions": positions}
    )
    points, longitudes = route_points(history.positions, reference=121.5)
    assert longitudes.tolist() == [170.0, 179.0, 181.0, 190.0]
    assert [p[1] for p in points] == [170.0, 190.0]  # on one great line: the ends are enough


def _history() -> TrackingHistory:
    pickup, delivery = str(uuid.uuid4()), str(uuid.uuid4())
    return TrackingHistory.model_validate(
        {
            "shipment": {
                "id": str(uuid.uuid4()),
                "routeInfo": {
                    "stops": [
                        {
                            "id": pickup,
                            "type": "PICKUP",
                            "name": "Chicago DC",
                            "location": {"coordinates": {"latitude": 41.9, "longitude": -87.6}},
                        },
                        {
                            "id": delivery,
                            "type": "DELIVERY",
                            "name": "Dallas DC",
                            "location": {"coordinates": {"latitude": 32.8, "longitude": -96.8}},
                            "appointmentWindow": {"localTimeZoneIdentifier": "America/Chicago"},
                        },
                    ]
                },
            },
            "events": [
                {
                    "id": str(uuid.uuid4()),
                    "type": "PICKED_UP",
                    "dateTime": T0.isoformat(),
                    "stopId": pickup,
                },
                {
                    "id": str(uuid.uuid4()),
                    "type": "CHECK_CALL",
                    "dateTime": (T0 + timedelta(hours=2, minutes=50)).isoformat(),
                },
                {
                    "id": str(uuid.uuid4()),
                    "type": "ARRIVAL_AT_STOP",
                    "stopId": delivery,
                    "estimateDateTime": (T0 + timedelta(hours=20)).isoformat(),
                },
                {
                    "id": str(uuid.uuid4()),
                    "type": "DELIVERED",
                    "stopId": delivery,
                    "estimateDateTime": (T0 + timedelta(hours=22)).isoformat(),
                },
            ],
            "exceptions": [
                {"id": str(uuid.uuid4()), "type": "DELAY", "stopId": delivery},
                {"id": str(uuid.uuid4()), "type": "DAMAGE", "status": "CLOSED"},
            ],
            "positions": [
                {
                    "dateTime": (T0 + timedelta(hours=i)).isoformat(),
                    "latitude": 41.9 - i,
                    "longitude": -87.6 - i,
                    "speed": 50,
                    "speedUnit": "MILES_PER_HOUR",
                    "heading": 225,
                }
                for i in range(6)
            ],
        }
    )


def test_events_sit_at_their_stop_or_on_the_track() -> None:
    history = _history()
    payload = shipment_picture(history).payload
    events = {e["type"].upper().replace(" ", "_"): e for e in payload["events"]}

    picked = events["PICKED_UP"]
    assert (picked["lat"], picked["lon"], picked["atStop"]) == (41.9, -87.6, True)
    assert picked["category"] == "milestone" and picked["where"] == "At stop 1: Chicago DC"
    # No stop: at the position reported nearest in time (3 hours after the start).
    call = events["CHECK_CALL"]
    assert (call["lat"], call["lon"], call["atStop"]) == (38.9, -90.6, False)
    assert events["ARRIVAL_AT_STOP"]["category"] == "estimate"
    assert events["ARRIVAL_AT_STOP"]["time"] == "expected Mar 3 2026 02:00 CST"
    # The open exception is on the map, the closed one is not.
    exceptions = [e for e in payload["events"] if e["key"].startswith("exception:")]
    assert [e["label"] for e in exceptions] == ["Delay (open exception)"]
    # Three markers on the delivery fan out around it.
    at_delivery = [e for e in payload["events"] if e["lat"] == 32.8]
    assert sorted(e["slot"] for e in at_delivery) == [0, 1, 2]
    assert {e["slots"] for e in at_delivery} == {3}

    assert payload["current"]["speedText"] == "80 km/h"  # 50 mph
    assert payload["current"]["heading"] == 225
    assert [s["typeLabel"] for s in payload["stops"]] == ["Pickup", "Delivery"]


def test_the_next_eta_is_the_earliest_pending_estimate() -> None:
    history = _history()
    stops = {str(p.stop.id): p for p in place_stops(history.shipment.route_info.stops)}  # type: ignore[union-attr]
    assert next_eta(history, stops) == {"label": "ETA Dallas DC", "time": "Mar 3 2026 02:00 CST"}
    for event in history.events:
        event.estimate_date_time = None
    assert next_eta(history, stops) is None


def test_new_positions_extend_the_drawn_track_or_redraw_it() -> None:
    history = _history()
    before = shipment_picture(history)
    longer = _history()
    longer.positions = [*history.positions]
    for i in range(6, 9):
        extra = history.positions[-1].model_copy(
            update={"date_time": T0 + timedelta(hours=i), "latitude": 41.9 - i}
        )
        longer.positions.append(extra)
    added = appended_points(before, longer.positions)
    assert added is not None and len(added) >= 1
    assert added[-1][0] == pytest.approx(41.9 - 8)
    # The service thinned the track differently: the drawn prefix no longer matches.
    assert appended_points(before, longer.positions[1:]) is None
    assert appended_points(before, history.positions[:3]) is None


def _row(state: str | None, exceptions: int = 0) -> SummaryRow:
    return SummaryRow(
        id=str(uuid.uuid4()),
        identifiers=(("PRO", "P1"),),
        primary_identifier="P1",
        mode="TL",
        current_state=state,
        origin_name="Chicago, IL",
        destination_name="Dallas, TX",
        next_eta=None,
        latest_event_type=None,
        latest_event_time=None,
        latest_event_description=None,
        open_exception_count=exceptions,
        carrier=None,
        created=T0,
        last_modified=T0,
    )


def test_fleet_markers_follow_state_exceptions_and_positions() -> None:
    rows = [
        _row("IN_TRANSIT"),
        _row("AT_STOP"),
        _row("IN_TRANSIT", exceptions=2),
        _row("COMPLETED"),
        _row(None),
        _row("IN_TRANSIT"),  # no position
    ]
    positions = {
        row.id: LatestPosition(
            shipment_id=uuid.UUID(row.id),
            date_time=T0,
            latitude=40.0,
            longitude=-90.0,
            speed=10,
            speed_unit=SpeedUnit.KNOTS,
        )
        for row in rows[:5]
    }
    items = fleet_items(rows, positions)
    assert [i["status"] for i in items] == ["transit", "stop", "exception", "scheduled"]
    assert items[0]["route"] == "Chicago, IL → Dallas, TX"
    assert items[0]["speedText"] == "19 km/h"
    every = fleet_items(rows, positions, include_completed=True)
    assert [i["status"] for i in every] == [
        "transit",
        "stop",
        "exception",
        "completed",
        "scheduled",
    ]


def test_how_a_route_stop_names_its_saved_location() -> None:
    by_id = RouteStop.model_validate({"location": {"id": "6d1f3f7e-8f1a-4c1e-9a55-2f0d6b0d1a11"}})
    assert location_key(by_id) == "id:6d1f3f7e-8f1a-4c1e-9a55-2f0d6b0d1a11"
    by_identifier = RouteStop.model_validate(
        {"location": {"identifiers": [{"type": "UN_LOCODE", "value": " usjot "}]}}
    )
    assert location_key(by_identifier) == "supplied:USJOT"
    assert location_key(RouteStop()) is None
