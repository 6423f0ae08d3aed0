"""The summary's nextEta follows the app's ETA rule (`models.tracking.newest_estimate`): the
estimate calculated last, ties to the soonest stop, of the stops not reached yet, over real
HTTP on the local service."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from freightdesk.models.tracking import TrackingHistory
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.shipments import EtaReport, History
from tests.server.test_carrier_push_support import (
    TRUCKLOAD,
    accepted,
    create_shipment,
    iso,
    now,
    settled,
    truckload_body,
    unique,
)
from tests.server.test_tracking_support import (
    PUT,
    SEARCH,
    air_body,
    create,
    receive,
    route,
    shipment_path,
)
from tests.support import TenantHandle

ETA = datetime(2030, 1, 1, 18, tzinfo=UTC)


def _next_eta(tenant: TenantHandle, shipment_id: str) -> str | None:
    answer = tenant.http.post(SEARCH, json={})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = next(s for s in answer.json()["results"] if s["id"] == shipment_id)
    return found.get("nextEta")


def _history(tenant: TenantHandle, shipment_id: str) -> TrackingHistory:
    answer = tenant.http.get(shipment_path(shipment_id, "eventhistory"))
    assert answer.status_code == 200, answer.text
    return TrackingHistory.model_validate(answer.json())


def _the_apps_eta(history: TrackingHistory) -> str | None:
    newest = history.newest_estimate()
    if newest is None or newest.estimate_date_time is None:
        return None
    return newest.estimate_date_time.isoformat().replace("+00:00", "Z")


def test_estimates_calculated_at_once_give_the_soonest_stop_not_the_last_stored(
    tenant: TenantHandle,
) -> None:
    shipment = create(tenant, air_body(routeInfo=route("Chicago", "Frankfurt", "Dallas")))
    sid = shipment["id"]
    chicago, frankfurt, dallas = (stop["id"] for stop in shipment["routeInfo"]["stops"])
    # One history (one calculation instant), the latest stop stored last.
    etas = [
        EtaReport(ETA, chicago),
        EtaReport(ETA + timedelta(days=1), frankfurt),
        EtaReport(ETA + timedelta(days=2), dallas),
    ]
    receive(tenant, lambda s: store.add_histories(s, [History(sid, "AIR", etas=etas)]))
    history = _history(tenant, sid)
    calculated = {e.estimate_last_calculated_date_time for e in history.events}
    assert len(calculated) == 1 and len(history.events) == 3
    assert _next_eta(tenant, sid) == "2030-01-01T18:00:00Z" == _the_apps_eta(history)

    # Recomputed from what is stored once Chicago's estimate is gone: still the soonest.
    chicago_eta = next(e for e in history.events if str(e.stop_id) == chicago)
    receive(tenant, lambda s: store.remove_event(s, sid, str(chicago_eta.id)))
    assert _next_eta(tenant, sid) == "2030-01-02T18:00:00Z" == _the_apps_eta(_history(tenant, sid))

    # A later calculation wins whatever its instant.
    receive(
        tenant,
        lambda s: store.set_eta(s, sid, ETA + timedelta(days=3), stop_id=dallas, source="AIR"),
    )
    assert _next_eta(tenant, sid) == "2030-01-04T18:00:00Z" == _the_apps_eta(_history(tenant, sid))


def test_a_put_with_estimates_gives_the_soonest_stop_when_created_and_replaced(
    tenant: TenantHandle,
) -> None:
    stops = route("Chicago", "Frankfurt")
    for stop in stops["stops"]:
        stop["id"] = str(uuid.uuid4())
    chicago, frankfurt = (stop["id"] for stop in stops["stops"])
    calculated = "2029-12-31T08:00:00Z"
    events = [
        {
            "type": "ETA",
            "estimateDateTime": at,
            "estimateLastCalculatedDateTime": calculated,
            "stopId": stop,
        }
        for at, stop in (("2030-01-01T18:00:00Z", chicago), ("2030-01-02T18:00:00Z", frankfurt))
    ]
    body = air_body("020-55555550", routeInfo=stops, events=events)
    sid = create(tenant, body)["id"]
    history = _history(tenant, sid)
    assert [str(e.stop_id) for e in history.events] == [chicago, frankfurt]
    assert _next_eta(tenant, sid) == "2030-01-01T18:00:00Z" == _the_apps_eta(history)

    # Written again (recomputed from what is stored), the soonest stop still.
    answer = tenant.http.put(PUT, json={"id": sid, **body})
    assert answer.status_code == 200, answer.text
    assert _next_eta(tenant, sid) == "2030-01-01T18:00:00Z" == _the_apps_eta(_history(tenant, sid))


def test_an_eta_event_made_a_milestone_is_no_longer_the_eta(tenant: TenantHandle) -> None:
    shipment = create(tenant, air_body("020-55555561", routeInfo=route("Chicago", "Dallas")))
    sid = shipment["id"]
    dallas = shipment["routeInfo"]["stops"][1]["id"]
    receive(tenant, lambda s: store.set_eta(s, sid, ETA, stop_id=dallas, source="AIR"))
    assert _next_eta(tenant, sid) == "2030-01-01T18:00:00Z" == _the_apps_eta(_history(tenant, sid))

    # The same estimate, now an arrival expected at that time: only ETA events are ETAs
    # (`models.tracking.is_estimate`), so the shipment has none left, on both sides.
    eta = _history(tenant, sid).events[0]
    arrival = eta.model_copy(update={"type": "ARRIVAL_AT_STOP"})
    receive(tenant, lambda s: store.update_event(s, sid, arrival, "AIR"))
    history = _history(tenant, sid)
    assert [e.type for e in history.events] == ["ARRIVAL_AT_STOP"]
    assert _next_eta(tenant, sid) is None
    assert _the_apps_eta(history) is None


def _arrive(tenant: TenantHandle, bol: str, stop_number: int) -> None:
    arrived = {"type": "ARRIVAL_AT_STOP", "dateTime": iso(now()), "stopNumber": stop_number}
    body = truckload_body(bol, shipmentEvent=arrived)
    assert settled(tenant, accepted(tenant.http.post(TRUCKLOAD, json=body)))["status"] == (
        "PROCESSED"
    )


def test_an_arrival_ends_its_stops_eta_and_the_next_stops_follows(tenant: TenantHandle) -> None:
    """The walkthrough's truck arrived at its stop ahead of the appointment, yet the list said
    "Late 4 min" with the ETA it had before arriving: a stop's estimate is over once the
    shipment is there, the next stop's is the ETA, and after the last stop there is none."""
    bol = unique("BOL")
    shipment = create_shipment(tenant, [("BILL_OF_LADING", bol)], stops=3)
    sid = shipment["id"]
    _, second, third = (stop["id"] for stop in shipment["routeInfo"]["stops"])
    etas = [EtaReport(ETA, second), EtaReport(ETA + timedelta(days=1), third)]
    receive(tenant, lambda s: store.add_histories(s, [History(sid, "TL", etas=etas)]))
    assert _next_eta(tenant, sid) == "2030-01-01T18:00:00Z" == _the_apps_eta(_history(tenant, sid))

    _arrive(tenant, bol, 2)
    history = _history(tenant, sid)
    state = history.current_state()
    assert state is not None and state.type == "AT_STOP" and str(state.stop_id) == second
    assert _next_eta(tenant, sid) == "2030-01-02T18:00:00Z" == _the_apps_eta(history)

    # A later estimate of the stop already reached does not bring it back.
    receive(
        tenant,
        lambda s: store.set_eta(s, sid, ETA + timedelta(hours=2), stop_id=second, source="TL"),
    )
    assert _next_eta(tenant, sid) == "2030-01-02T18:00:00Z" == _the_apps_eta(_history(tenant, sid))

    _arrive(tenant, bol, 3)
    assert _next_eta(tenant, sid) is None
    assert _the_apps_eta(_history(tenant, sid)) is None
