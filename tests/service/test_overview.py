"""The Overview's facts from a shipment's history: where it is, the next stop against its
appointment (triage's rule), carrier, equipment, weight, pieces, the last position's age and
the open exceptions. Plain Python: no Qt, no service."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.models.enums import ShipmentStateType
from freightdesk.models.tracking import TrackingHistory
from freightdesk.server.domain.identifiers import analyze
from freightdesk.service.overview import overview_of
from freightdesk.service.triage import TriageSettings

NOW = datetime(2026, 11, 28, 18, 0, tzinfo=UTC)
PICKUP, HUB, DELIVERY = (uuid.uuid4() for _ in range(3))


def _iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def _stop(stop_id: uuid.UUID, kind: str, name: str, window_end: datetime | None) -> Any:
    stop: dict[str, Any] = {"id": str(stop_id), "type": kind, "name": name}
    if window_end is not None:
        stop["appointmentWindow"] = {
            "startDateTime": _iso(window_end - timedelta(hours=2)),
            "endDateTime": _iso(window_end),
            "localTimeZoneIdentifier": "America/Chicago",
        }
    return stop


def _history(*, eta: datetime | None, **extra: Any) -> TrackingHistory:
    end = NOW + timedelta(hours=3)
    events: list[dict[str, Any]] = [
        {
            "id": str(uuid.uuid4()),
            "type": "DEPARTURE_FROM_STOP",
            "dateTime": _iso(NOW - timedelta(hours=5)),
            "stopId": str(PICKUP),
        },
        {
            "id": str(uuid.uuid4()),
            "type": "ARRIVAL_AT_STOP",
            "dateTime": _iso(NOW - timedelta(hours=2)),
            "stopId": str(HUB),
        },
    ]
    if eta is not None:
        events.append(
            {
                "id": str(uuid.uuid4()),
                "type": "ETA",
                "dateTime": _iso(NOW - timedelta(minutes=30)),
                "estimateDateTime": _iso(eta),
                "stopId": str(DELIVERY),
            }
        )
    body: dict[str, Any] = {
        "shipment": {
            "id": str(uuid.uuid4()),
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": "BOL-1"},
                {"type": "CARRIER_SCAC", "value": "HOCS"},
                {"type": "TRAILER_NUMBER", "value": "TR-88"},
            ],
            "attributes": [{"name": "Pieces", "value": "14"}],
            "routeInfo": {
                "stops": [
                    _stop(PICKUP, "PICKUP", "Louisville DC", None),
                    _stop(HUB, "WAYPOINT", "Memphis hub", None),
                    _stop(DELIVERY, "DELIVERY", "Dallas DC", end),
                ],
                "routeSegments": [
                    {
                        "fromStopId": str(PICKUP),
                        "toStopId": str(DELIVERY),
                        "emissions": {
                            "cargoWeight": {"value": 9120.4, "unit": "KG"},
                            "vehicleInfo": {"type": {"enumValue": "DRY_VAN"}},
                        },
                    }
                ],
            },
        },
        "events": events,
        "states": [
            {
                "id": str(uuid.uuid4()),
                "type": "IN_TRANSIT",
                "startDateTime": _iso(NOW - timedelta(hours=5)),
            }
        ],
        "positions": [
            {"dateTime": _iso(NOW - timedelta(minutes=40)), "latitude": 35.1, "longitude": -90},
            {"dateTime": _iso(NOW - timedelta(minutes=12)), "latitude": 34.2, "longitude": -92},
        ],
        **extra,
    }
    return TrackingHistory.model_validate(body)


def test_state_where_next_stop_and_an_eta_after_the_window() -> None:
    end = NOW + timedelta(hours=3)
    found = overview_of(_history(eta=end + timedelta(minutes=35)), NOW)
    assert found.state is ShipmentStateType.IN_TRANSIT
    assert found.where is not None and found.where.name == "Memphis hub"
    assert not found.at_stop
    nxt = found.next_stop
    assert nxt is not None
    assert nxt.place.name == "Dallas DC" and nxt.place.zone == "America/Chicago"
    assert nxt.place.number == 3
    assert nxt.window_end == end and nxt.window_start == end - timedelta(hours=2)
    assert nxt.eta == end + timedelta(minutes=35)
    assert nxt.difference == "35 min after the window"
    assert nxt.late and not nxt.at_risk
    assert found.latest_eta == nxt.eta and found.latest_eta_zone == "America/Chicago"


def test_on_time_at_risk_and_early() -> None:
    end = NOW + timedelta(hours=3)
    on_time = overview_of(_history(eta=end - timedelta(hours=1, minutes=30)), NOW).next_stop
    assert on_time is not None and on_time.difference == "on time"
    risky = overview_of(_history(eta=end - timedelta(minutes=20)), NOW).next_stop
    assert risky is not None and risky.at_risk and not risky.late
    assert risky.difference == "20 min before the window ends (at risk)"
    # The user's margin is triage's: with none, 20 minutes early is simply on time.
    calm = overview_of(
        _history(eta=end - timedelta(minutes=20)), NOW, TriageSettings(margin=timedelta(0))
    ).next_stop
    assert calm is not None and calm.difference == "on time"
    early = overview_of(_history(eta=end - timedelta(hours=3)), NOW).next_stop
    assert early is not None
    assert early.difference == "on time (1 h before the window opens)"


def test_without_an_eta_the_next_stop_says_nothing_to_compare() -> None:
    found = overview_of(_history(eta=None), NOW)
    nxt = found.next_stop
    assert nxt is not None and nxt.eta is None and nxt.difference == ""
    assert found.latest_eta is None


def test_an_eta_of_no_stop_is_still_the_latest_eta() -> None:
    eta = NOW + timedelta(hours=6)
    bare = TrackingHistory.model_validate(
        {
            "shipment": {"id": str(uuid.uuid4())},
            "events": [{"type": "ETA", "estimateDateTime": _iso(eta)}],
        }
    )
    found = overview_of(bare, NOW)
    assert found.next_stop is None and found.latest_eta == eta


def test_carrier_equipment_weight_pieces_and_last_position_age() -> None:
    found = overview_of(_history(eta=None), NOW)
    assert found.carrier == "HOCS"
    assert found.equipment == "dry van, TR-88"
    assert found.weight == "9,120 kg"
    assert found.pieces == "14"
    assert found.last_position == (34.2, -92)
    assert found.last_position_at == NOW - timedelta(minutes=12)
    assert found.last_position_age == "12 min ago"


def _shipment_of(mode: str, key: dict[str, str], account: str) -> TrackingHistory:
    identifiers = [key, {"type": "CAPACITY_PROVIDER_ACCOUNT_CODE", "value": account}]
    shipment = {
        "id": str(uuid.uuid4()),
        "identifiers": identifiers,
        "plan": {"expectedTransportationModes": [mode]},
    }
    return TrackingHistory.model_validate({"shipment": shipment})


def test_only_an_ltl_shipment_names_its_carrier_by_its_account() -> None:
    """The account code is an LTL carrier's SCAC; a parcel shipment's is the shipper's account
    number with its carrier, not a carrier."""
    parcel = _shipment_of("PARCEL", {"type": "TRACKING_NUMBER", "value": "1Z999"}, "ACC-4471")
    assert overview_of(parcel, NOW).carrier is None
    ltl = _shipment_of("LTL", {"type": "PRO", "value": "PRO-88"}, "NBFL")
    assert overview_of(ltl, NOW).carrier == "NBFL"


def test_open_exceptions_and_a_stop_the_shipment_is_at() -> None:
    at_hub = [
        {
            "id": str(uuid.uuid4()),
            "type": "AT_STOP",
            "startDateTime": _iso(NOW - timedelta(hours=2)),
            "stopId": str(HUB),
        }
    ]
    exceptions = [
        {
            "id": str(uuid.uuid4()),
            "type": "DELAY",
            "description": "Weather at Memphis",
            "status": "OPEN",
            "createdDateTime": _iso(NOW - timedelta(hours=1)),
        },
        {"id": str(uuid.uuid4()), "type": "DAMAGE", "status": "CLOSED"},
        # Over, short and damaged: letters, as the timeline says them (not "Osd").
        {"id": str(uuid.uuid4()), "type": "OSD", "status": "OPEN"},
    ]
    found = overview_of(_history(eta=None, states=at_hub, exceptions=exceptions), NOW)
    assert found.state is ShipmentStateType.AT_STOP and found.at_stop
    assert found.where is not None and found.where.name == "Memphis hub"
    assert [x.text for x in found.exceptions] == ["Delay: Weather at Memphis", "OSD"]


def test_an_empty_history_knows_little_and_says_so() -> None:
    bare = TrackingHistory.model_validate({"shipment": {"id": str(uuid.uuid4())}})
    found = overview_of(bare, NOW)
    assert found.state is None and found.where is None and found.next_stop is None
    assert found.carrier is None and found.equipment is None and found.weight is None
    assert found.last_position is None and found.last_position_age == ""
    assert found.exceptions == ()


def test_a_completed_shipment_has_no_next_stop() -> None:
    done = [
        {
            "id": str(uuid.uuid4()),
            "type": "COMPLETED",
            "startDateTime": _iso(NOW - timedelta(hours=1)),
        }
    ]
    found = overview_of(_history(eta=NOW, states=done), NOW)
    assert found.state is ShipmentStateType.COMPLETED and found.next_stop is None


@pytest.mark.parametrize("plan", [None, [], ["LTL"], ["TL", "LTL"], ["PARCEL", "LTL"]])
def test_an_ltl_shipment_names_the_carrier_the_list_names(plan: list[str] | None) -> None:
    """The list said LTL ODFL and the Overview no carrier: it took the plan's first mode,
    the list the mode the service picks from the identifiers. One rule now, whatever the
    plan says first."""
    identifiers = [
        {"type": "PRO", "value": "PRO-5521"},
        {"type": "CAPACITY_PROVIDER_ACCOUNT_CODE", "value": "ODFL"},
    ]
    shipment: dict[str, Any] = {"id": str(uuid.uuid4()), "identifiers": identifiers}
    if plan is not None:
        shipment["plan"] = {"expectedTransportationModes": plan}
    history = TrackingHistory.model_validate({"shipment": shipment})
    listed = analyze(history.shipment.identifiers, [Mode(m) for m in plan or []])
    assert (listed.mode, listed.carrier) == (Mode.LTL, "ODFL")
    assert overview_of(history, NOW).carrier == "ODFL"


def _located(stop_id: uuid.UUID, name: str, point: tuple[float, float] | None) -> Any:
    stop: dict[str, Any] = {"id": str(stop_id), "type": "DELIVERY", "name": name}
    if point is not None:
        stop["location"] = {"coordinates": {"latitude": point[0], "longitude": point[1]}}
    return stop


def _seen_at(latitude: float, longitude: float) -> TrackingHistory:
    """A shipment from Louisville (no coordinates given) by Memphis to Dallas, last seen at
    the point."""
    stops = [
        _located(PICKUP, "Louisville DC", None),
        _located(HUB, "Memphis hub", (35.1495, -90.0490)),
        _located(DELIVERY, "Dallas DC", (32.7767, -96.7970)),
    ]
    position = {
        "dateTime": _iso(NOW - timedelta(minutes=5)),
        "latitude": latitude,
        "longitude": longitude,
    }
    return TrackingHistory.model_validate(
        {
            "shipment": {"id": str(uuid.uuid4()), "routeInfo": {"stops": stops}},
            "positions": [position],
        }
    )


def test_the_last_position_is_said_by_the_stop_it_is_near() -> None:
    """The Overview said "Last position: 32.8850, -96.7970"; a dispatcher knows the stops."""
    near = overview_of(_seen_at(32.8850, -96.7970), NOW).last_position_near
    assert near is not None
    assert (near.place.name, near.place.number) == ("Dallas DC", 3)
    assert 11.5 < near.km < 12.5  # 0.1083 degrees of latitude north
    # Between the two, the nearer one.
    assert overview_of(_seen_at(35.0, -90.2), NOW).last_position_near.place.name == "Memphis hub"  # type: ignore[union-attr]


def test_a_position_far_from_every_located_stop_is_said_by_its_coordinates() -> None:
    """Near Louisville, whose stop has no coordinates, 530 km from Memphis: no stop to say."""
    found = overview_of(_seen_at(38.2527, -85.7585), NOW)
    assert found.last_position == (38.2527, -85.7585)
    assert found.last_position_near is None
    # 60 km out of Dallas is past a metro area: no landmark either.
    assert overview_of(_seen_at(33.3167, -96.7970), NOW).last_position_near is None
