"""The zones of a shipment's next ETA stop and latest event stop, carried with its summary
(`nextEtaTimeZone`, `latestEvent.timeZone`), over real HTTP on the local service's database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from freightdesk.models.tracking import TrackedShipmentEvent
from freightdesk.server.domain import shipments as store
from freightdesk.server.migrations import SCHEMA_VERSION, upgrade
from tests.server.test_tracking_support import PUT, SEARCH, air_body, create, receive, route
from tests.support import TenantHandle

ETA = datetime(2030, 1, 1, 18, tzinfo=UTC)


def _zoned_route() -> dict[str, Any]:
    """Chicago and Frankfurt with their zones; Dallas without an appointment window."""
    stops = route("Chicago", "Frankfurt", "Dallas")
    for stop, zone in zip(stops["stops"], ("America/Chicago", "Europe/Berlin"), strict=False):
        stop["appointmentWindow"] = {"localTimeZoneIdentifier": zone}
    return stops


def _summary(tenant: TenantHandle, shipment_id: str) -> dict[str, Any]:
    answer = tenant.http.post(SEARCH, json={})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = next(s for s in answer.json()["results"] if s["id"] == shipment_id)
    return found


def _set_eta(tenant: TenantHandle, shipment_id: str, at: datetime, stop: str) -> None:
    receive(tenant, lambda s: store.set_eta(s, shipment_id, at, stop_id=stop, source="AIR"))


def test_the_summary_names_the_zone_of_the_stop_its_eta_is_for(tenant: TenantHandle) -> None:
    shipment = create(tenant, air_body(routeInfo=_zoned_route()))
    sid = shipment["id"]
    chicago, frankfurt, dallas = (stop["id"] for stop in shipment["routeInfo"]["stops"])
    assert "nextEtaTimeZone" not in _summary(tenant, sid)  # no ETA yet

    _set_eta(tenant, sid, ETA, chicago)
    summary = _summary(tenant, sid)
    assert (summary["nextEta"], summary["nextEtaTimeZone"]) == (
        "2030-01-01T18:00:00Z",
        "America/Chicago",
    )

    _set_eta(tenant, sid, ETA + timedelta(days=1), frankfurt)
    assert _summary(tenant, sid)["nextEtaTimeZone"] == "Europe/Berlin"

    # A stop without a zone: the ETA comes without one (the app reads it in the user's zone).
    _set_eta(tenant, sid, ETA + timedelta(days=2), dallas)
    summary = _summary(tenant, sid)
    assert summary["nextEta"] == "2030-01-03T18:00:00Z"
    assert "nextEtaTimeZone" not in summary


def test_a_route_written_again_moves_the_zone_with_its_stop(tenant: TenantHandle) -> None:
    shipment = create(tenant, air_body("020-55555550", routeInfo=_zoned_route()))
    sid = shipment["id"]
    frankfurt = shipment["routeInfo"]["stops"][1]["id"]
    _set_eta(tenant, sid, ETA, frankfurt)
    assert _summary(tenant, sid)["nextEtaTimeZone"] == "Europe/Berlin"

    body = {key: shipment[key] for key in ("id", "identifiers", "routeInfo")}
    body["routeInfo"]["stops"][1]["appointmentWindow"] = {
        "localTimeZoneIdentifier": "America/New_York"
    }
    answer = tenant.http.put(PUT, json=body)
    assert answer.status_code == 200, answer.text
    summary = _summary(tenant, sid)
    assert (summary["nextEta"], summary["nextEtaTimeZone"]) == (
        "2030-01-01T18:00:00Z",
        "America/New_York",
    )


def test_a_shipment_stored_before_the_zone_gets_it_when_the_schema_is_upgraded(
    tenant: TenantHandle,
) -> None:
    shipment = create(tenant, air_body("020-66666661", routeInfo=_zoned_route()))
    sid = shipment["id"]
    _set_eta(tenant, sid, ETA, shipment["routeInfo"]["stops"][0]["id"])

    def back_to_schema_2(session: Any) -> Any:
        session.execute(
            text("UPDATE shipments SET next_eta_zone = NULL WHERE id = :id"), {"id": sid}
        )
        session.execute(text("DELETE FROM schema_version"))
        session.execute(text("INSERT INTO schema_version (version) VALUES (2)"))
        return session.get_bind()

    engine = receive(tenant, back_to_schema_2)
    assert "nextEtaTimeZone" not in _summary(tenant, sid)
    assert upgrade(engine) == 2
    assert upgrade(engine) == SCHEMA_VERSION
    assert _summary(tenant, sid)["nextEtaTimeZone"] == "America/Chicago"


def _add_event(tenant: TenantHandle, shipment_id: str, at: datetime, stop: str | None) -> None:
    event = TrackedShipmentEvent(type="ARRIVAL_AT_STOP", date_time=at, stop_id=stop)
    receive(tenant, lambda s: store.add_event(s, shipment_id, event, "AIR"))


def test_the_latest_event_names_the_zone_of_its_stop(tenant: TenantHandle) -> None:
    shipment = create(tenant, air_body("020-77777772", routeInfo=_zoned_route()))
    sid = shipment["id"]
    chicago, frankfurt, dallas = (stop["id"] for stop in shipment["routeInfo"]["stops"])

    _add_event(tenant, sid, ETA, chicago)
    latest = _summary(tenant, sid)["latestEvent"]
    assert (latest["dateTime"], latest["timeZone"]) == ("2030-01-01T18:00:00Z", "America/Chicago")

    _add_event(tenant, sid, ETA + timedelta(hours=1), frankfurt)
    assert _summary(tenant, sid)["latestEvent"]["timeZone"] == "Europe/Berlin"
    # An earlier event does not move the latest one, nor its zone.
    _add_event(tenant, sid, ETA - timedelta(hours=1), dallas)
    assert _summary(tenant, sid)["latestEvent"]["timeZone"] == "Europe/Berlin"

    # A stop without a zone, and an event at no stop: the time comes without one.
    _add_event(tenant, sid, ETA + timedelta(hours=2), dallas)
    assert "timeZone" not in _summary(tenant, sid)["latestEvent"]
    _add_event(tenant, sid, ETA + timedelta(hours=3), None)
    latest = _summary(tenant, sid)["latestEvent"]
    assert latest["dateTime"] == "2030-01-01T21:00:00Z" and "timeZone" not in latest


def test_a_latest_event_stored_before_its_zone_gets_it_when_the_schema_is_upgraded(
    tenant: TenantHandle,
) -> None:
    shipment = create(tenant, air_body("020-88888883", routeInfo=_zoned_route()))
    sid = shipment["id"]
    _add_event(tenant, sid, ETA, shipment["routeInfo"]["stops"][1]["id"])

    def back_to_schema_3(session: Any) -> Any:
        session.execute(
            text("UPDATE shipments SET latest_event_zone = NULL WHERE id = :id"), {"id": sid}
        )
        session.execute(text("DELETE FROM schema_version"))
        session.execute(text("INSERT INTO schema_version (version) VALUES (3)"))
        return session.get_bind()

    engine = receive(tenant, back_to_schema_3)
    assert "timeZone" not in _summary(tenant, sid)["latestEvent"]
    assert upgrade(engine) == 3
    assert upgrade(engine) == SCHEMA_VERSION
    assert _summary(tenant, sid)["latestEvent"]["timeZone"] == "Europe/Berlin"
