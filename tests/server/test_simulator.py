"""The live carrier simulator on a real service: a compressed day of the demo, then a restart.

One scenario for the module (seeding the demo takes most of its time): the demo is seeded, the
service runs with the simulator at a high speed until a simulated day has passed, is stopped,
is started again with the simulator for a few more simulated hours, and is then started a third
time without it, so that the tests read a world that no longer moves. One test reads the
simulated world's reports without a service.
"""

from __future__ import annotations

import itertools
import logging
import shutil
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from freightdesk.models.tracking import ShipmentStateType as S
from freightdesk.server.app import build_context
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.demo import DEMO_TENANT_NAME, seed_demo
from freightdesk.server.demo.arrivals import ARRIVAL_NUMBERS, booking_time, plan_booking
from freightdesk.server.demo.geography import distance_km
from freightdesk.server.demo.itineraries import ShipmentPlan, floor_hour
from freightdesk.server.demo.partners import PARTNER_NAME
from freightdesk.server.demo.portfolio import plan_shipments
from freightdesk.server.domain.lifecycle import can_move
from freightdesk.server.domain.shipments import delete_shipment, find_shipments_by_identifier
from freightdesk.server.domain.tenants import create_client_app
from freightdesk.server.settings import ServerSettings
from freightdesk.server.simulator.engine import CARRIER_TENANT_NAME
from freightdesk.server.simulator.script import Action, Event, Opening, Push
from freightdesk.server.simulator.telemetry import reefer_for
from freightdesk.server.simulator.world import World, WorldSpec
from freightdesk.server.tables.booking import BookingRow
from freightdesk.server.tables.push import PushIngestion
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import Shipment
from tests.support import LiveService

SPEED = 6000.0  # a simulated day in about 15 seconds
NOW = datetime.now(UTC)
ANCHOR = floor_hour(NOW)
SEARCH = "/api/v4/shipments/search"


@dataclass
class Run:
    service: LiveService
    http: httpx.Client
    carrier: httpx.Client
    first_pushes: list[PushIngestion]
    pushes: list[PushIngestion]
    # The bill of lading of a moving truck deleted by a user between the runs.
    deleted: str
    first_stop_seconds: float
    plans: dict[str, ShipmentPlan]
    summaries: list[dict[str, Any]]


def _pushes(context: ServiceContext) -> list[PushIngestion]:
    with context.sessions() as session:
        carrier = session.scalar(select(Tenant.id).where(Tenant.name == CARRIER_TENANT_NAME))
        rows = session.scalars(
            select(PushIngestion)
            .where(PushIngestion.owner_tenant_id == carrier)
            .order_by(PushIngestion.id)
        ).all()
        session.expunge_all()
        return list(rows)


def _last_push(context: ServiceContext) -> PushIngestion | None:
    with context.sessions() as session:
        carrier = session.scalar(select(Tenant.id).where(Tenant.name == CARRIER_TENANT_NAME))
        push = session.scalar(
            select(PushIngestion)
            .where(PushIngestion.owner_tenant_id == carrier)
            .order_by(PushIngestion.id.desc())
            .limit(1)
        )
        session.expunge_all()
        return push


def _truck(push: PushIngestion) -> str | None:
    if push.kind != "TRUCKLOAD":
        return None
    bol: str = push.payload["truckload"]["identifiers"]["billOfLadingNumber"]
    return bol


def _happened(push: PushIngestion) -> datetime:
    payload = push.payload
    if push.kind == "PARCEL":
        return datetime.fromisoformat(payload["timestamp"])
    truckload = payload["truckload"]
    return datetime.fromisoformat(
        (truckload.get("shipmentEvent") or truckload["readings"])["dateTime"]
    )


def _simulate_until(settings: ServerSettings, reached: datetime, seconds: float) -> float:
    """Run the service with the simulator until its pushes reach `reached` (or `seconds`
    pass); returns how long the service took to stop."""
    service = LiveService(settings)
    service.context.services["simulate_speed"] = SPEED
    service.start()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            last = _last_push(service.context)
            if last is not None and _happened(last) >= reached:
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"the simulator did not reach {reached} in {seconds} s")
    finally:
        began = time.monotonic()
        service.stop()
    return time.monotonic() - began


def _client(service: LiveService, client_id: str, secret: str) -> httpx.Client:
    token = httpx.post(
        f"{service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    )
    assert token.status_code == 200
    return httpx.Client(
        base_url=service.url,
        headers={"Authorization": f"Bearer {token.json()['access_token']}"},
        timeout=60,
    )


@pytest.fixture(scope="module")
def run() -> Iterator[Run]:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-sim-"))
    settings = ServerSettings(
        data_dir=data_dir, database_url=f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    )
    try:
        context = build_context(settings)
        credentials = seed_demo(context, seed=7, now=NOW)
        assert credentials is not None
        stopped = _simulate_until(settings, ANCHOR + timedelta(hours=24), 75)
        first = _pushes(context)
        # A user stops tracking a truck that is on the road.
        deleted = _delete_a_moving_truck(context, first)
        context.engine.dispose()
        # Started again: it carries on from where it stopped.
        _simulate_until(settings, _happened(first[-1]) + timedelta(hours=3), 45)
        # And once more without the simulator, to read a world that stands still.
        service = LiveService(settings).start()
        with transaction(service.context.sessions) as session:
            carrier_id = session.scalar(select(Tenant.id).where(Tenant.name == CARRIER_TENANT_NAME))
            assert carrier_id is not None
            app, secret = create_client_app(session, carrier_id, "receipts")
            carrier_app = app.id
        http = _client(service, credentials.client_id, credentials.client_secret)
        carrier = _client(service, carrier_app, secret)
        try:
            _wait_until_processed(service.context)
            summaries = []
            for page in itertools.count(1):
                found = http.post(f"{SEARCH}?pageSize=500&page={page}", json={})
                assert found.status_code == 200
                summaries += found.json()["results"]
                if len(summaries) >= found.json()["paginationInfo"]["total"]:
                    break
            with service.context.sessions() as session:
                # Those of the demo's accepted bookings are no plan of the simulator's, nor
                # are the moves the demo's partner shares with it (the partner's own).
                tracked = set(session.scalars(select(BookingRow.master_shipment_id)))
                partner = select(Tenant.id).where(Tenant.name == PARTNER_NAME)
                tracked |= set(
                    session.scalars(select(Shipment.id).where(Shipment.tenant_id.in_(partner)))
                )
            summaries = [s for s in summaries if s["id"] not in tracked]
            plans = plan_shipments(7, ANCHOR) + [plan_booking(7, ANCHOR, k) for k in range(1, 80)]
            yield Run(
                service,
                http,
                carrier,
                first,
                _pushes(service.context),
                deleted,
                stopped,
                {plan.identifiers[0][1]: plan for plan in plans},
                summaries,
            )
        finally:
            http.close()
            carrier.close()
            service.stop()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _delete_a_moving_truck(context: ServiceContext, pushes: list[PushIngestion]) -> str:
    stopped_at = _happened(pushes[-1])
    recent = [
        push
        for push in pushes
        if push.kind == "TRUCKLOAD"
        and "readings" in push.payload["truckload"]
        and push.payload["truckload"]["readings"]["position"]["speed"] > 0
        and _happened(push) > stopped_at - timedelta(hours=1)
    ]
    bol: str = recent[0].payload["truckload"]["identifiers"]["billOfLadingNumber"]
    with transaction(context.sessions) as session:
        tenant = session.scalar(select(Tenant.id).where(Tenant.name == DEMO_TENANT_NAME))
        assert tenant is not None
        (shipment_id,) = find_shipments_by_identifier(session, tenant, "BILL_OF_LADING", bol)
        delete_shipment(session, tenant, shipment_id)
    return bol


def _wait_until_processed(context: ServiceContext) -> None:
    # Generous: at a load of 15 on 2 cores the last pushes took over 30 s to apply.
    deadline = time.monotonic() + 120
    while any(push.status == "PENDING" for push in _pushes(context)):
        assert time.monotonic() < deadline, "pushes left unprocessed"
        time.sleep(0.5)


def _history(run: Run, summary: dict[str, Any]) -> dict[str, Any]:
    answer = run.http.get(f"/api/v4/shipments/{summary['id']}/tracking/history")
    assert answer.status_code == 200
    history: dict[str, Any] = answer.json()
    return history


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _latest(summary: dict[str, Any]) -> datetime:
    """When the shipment's latest event happened (long ago when it has none)."""
    stamp = (summary.get("latestEvent") or {}).get("dateTime")
    return _time(stamp) if stamp else datetime(2000, 1, 1, tzinfo=UTC)


# --- the carrier push path ---------------------------------------------------------------


def test_updates_arrive_as_carrier_pushes_with_receipts(run: Run) -> None:
    kinds = Counter(push.kind for push in run.pushes)
    assert kinds["TRUCKLOAD"] >= 300 and kinds["PARCEL"] >= 10
    # Only what was on its way to the deleted shipment when the user deleted it is unmatched.
    unmatched = [push for push in run.pushes if push.status != "PROCESSED"]
    assert {push.status for push in unmatched} <= {"UNMATCHED"}
    assert all(_truck(push) == run.deleted for push in unmatched)
    assert all(push.matched_shipment_ids for push in run.pushes if push not in unmatched)
    # The pushing carrier reads its receipts like any carrier.
    processed = [push for push in run.pushes if push not in unmatched]
    for push in processed[:: max(1, len(processed) // 5)]:
        receipt = run.carrier.get(f"/services/carrier-push/v1/ingestions/{push.ingestion_id}")
        assert receipt.status_code == 200
        assert receipt.json()["status"] == "PROCESSED"
        assert receipt.json()["matchedShipmentIds"] == push.matched_shipment_ids
    # The customer does not see the carrier's receipts.
    other = run.http.get(f"/services/carrier-push/v1/ingestions/{run.pushes[0].ingestion_id}")
    assert other.status_code == 404


def test_each_shipment_is_pushed_in_time_order(run: Run) -> None:
    by_shipment: dict[str, list[datetime]] = defaultdict(list)
    for push in run.pushes:
        if push.matched_shipment_ids:
            by_shipment[push.matched_shipment_ids[0]].append(_happened(push))
    assert len(by_shipment) >= 50
    for times in by_shipment.values():
        assert times == sorted(times)


def test_trucks_drive_their_road_at_highway_speeds(run: Run) -> None:
    speeds: list[float] = []
    checked = 0
    for push in run.pushes:
        readings = push.payload.get("truckload", {}).get("readings")
        if not readings:
            continue
        bol = push.payload["truckload"]["identifiers"]["billOfLadingNumber"]
        plan = run.plans.get(bol)
        if plan is None:
            continue
        point = (readings["position"]["latitude"], readings["position"]["longitude"])
        nearest = min(distance_km(point, vertex) for leg in plan.legs for vertex in leg.path.points)
        assert nearest < 2.5, (bol, point)
        checked += 1
        if readings["position"]["speed"] > 60:
            speeds.append(readings["position"]["speed"])
    assert checked >= 200
    # About 60 mph on North American highways and 80 km/h in Europe.
    assert 80 <= statistics.mean(speeds) <= 100
    assert max(speeds) <= 112


def test_readings_carry_fuel_and_reefer_temperatures(run: Run) -> None:
    # Which trucks are reefers is drawn per world (the anchor's hour): as few as two of them
    # are on the road in the simulated day, and at this speed a truck reports one reading in
    # 8 to 16, so the count of zone readings (11 to 288 over 300 anchors) bounds nothing.
    # Every reading of a reefer carries its zone and no dry van's does.
    world = WorldSpec(7, ANCHOR, "").key
    reefers = {bol for bol, plan in run.plans.items() if reefer_for(plan, world) is not None}
    fuel: dict[str, list[tuple[datetime, float]]] = defaultdict(list)
    zones = excursions = 0
    cooled: set[str] = set()
    for push in run.pushes:
        sensor = push.payload.get("truckload", {}).get("readings", {}).get("sensor")
        if not sensor:
            continue
        bol = push.payload["truckload"]["identifiers"]["billOfLadingNumber"]
        fuel[bol].append((_happened(push), sensor["fuel"]["currentLevel"]))
        assert 0.2 * sensor["fuel"]["capacity"] <= sensor["fuel"]["currentLevel"]
        if bol in run.plans:
            assert len(sensor.get("zones", [])) == (bol in reefers), bol
        if sensor.get("zones"):
            cooled.add(bol)
        for zone in sensor.get("zones", []):
            zones += 1
            off = abs(zone["returnAirTemperature"] - zone["setPoint"])
            if sensor["reefer"]["state"] == "ALARM":
                excursions += 1
                assert off > 2
            else:
                assert off <= 2
    assert cooled  # 2 to 18 reefers reported over those anchors
    # Tanks drain as trucks drive (and are filled now and then).
    drops = rises = 0
    for levels in fuel.values():
        for (_a, before), (_b, after) in itertools.pairwise(sorted(levels)):
            drops += after < before
            rises += after > before
    assert drops > 5 * rises


# --- what the customer sees --------------------------------------------------------------


def test_shipments_move_through_the_lifecycle(run: Run) -> None:
    moved = [s for s in run.summaries if _latest(s) > ANCHOR]
    assert len(moved) >= 60
    modes = {s["mode"] for s in moved}
    assert modes == {"TL", "LTL", "PARCEL", "RAIL", "OCEAN", "AIR"}
    for summary in moved[::3]:
        history = _history(run, summary)
        happened = [e["dateTime"] for e in history["events"] if e.get("dateTime")]
        assert happened == sorted(happened, key=_time)
        pairs = Counter((e["type"], e.get("dateTime"), e.get("stopId")) for e in history["events"])
        assert max(pairs.values()) == 1, summary["mode"]  # nothing twice, even after a restart
        states = sorted(
            (s for s in history["states"] if s["type"] != "SCHEDULED"),
            key=lambda s: s["startDateTime"],
        )
        current = S.SCHEDULED
        for state in states:
            assert can_move(current, S(state["type"])), (summary["mode"], current, state)
            current = S(state["type"])
        assert current.value == summary["currentState"]
        times = [p["dateTime"] for p in history["positions"]]
        assert times == sorted(times, key=_time)


def test_delivered_shipments_complete_and_new_ones_are_booked(run: Run) -> None:
    states = Counter(s["currentState"] for s in run.summaries)
    # Which shipments complete in the simulated day and a bit depends on the anchor's hour (as
    # few as about 12 of them), so a count bounds little: each is checked against its plan,
    # which completes it at its last stop's departure. An hour either side of the simulator's
    # last report: where it stopped, the non-pushed modes' items may lag its pushes slightly.
    end = max(_happened(push) for push in run.pushes)
    completed = {s["primaryIdentifier"] for s in run.summaries if s["currentState"] == "COMPLETED"}
    delivery = {
        key: run.plans[key].delivered_at for key in (s["primaryIdentifier"] for s in run.summaries)
    }
    delivered = {key for key, at in delivery.items() if ANCHOR < at <= end - timedelta(hours=1)}
    to_come = {key for key, at in delivery.items() if at > end + timedelta(hours=1)}
    assert delivered and delivered <= completed, sorted(delivered - completed)
    assert not to_come & completed, sorted(to_come & completed)
    booked = [s for s in run.summaries if s["primaryIdentifier"] not in _seeded(run)]
    # One booking every 31 simulated minutes: about 46 a day.
    assert 35 <= len(booked) <= 80
    assert states["SCHEDULED"] and states["IN_TRANSIT"]
    for summary in booked[:5]:
        plan = run.plans[summary["primaryIdentifier"]]
        assert plan.number > ARRIVAL_NUMBERS
        assert summary["mode"] == plan.mode.value


def _seeded(run: Run) -> set[str]:
    return {key for key, plan in run.plans.items() if plan.number < ARRIVAL_NUMBERS}


def test_late_and_troubled_shipments_raise_exceptions(run: Run) -> None:
    raised = []
    for push in run.pushes:
        event = push.payload.get("truckload", {}).get("shipmentEvent") or {}
        kind = event.get("type") or push.payload.get("eventType")
        if kind in ("EXCEPTION", "DELIVERY_MISSED") and push.matched_shipment_ids:
            raised.append(push)
    assert raised
    opened = closed = 0
    for push in raised:
        shipment_id = push.matched_shipment_ids[0]
        history = _history(run, {"id": shipment_id})
        mine = [
            e
            for e in history["exceptions"]
            if _time(e["createdDateTime"]) == _happened(push).replace(microsecond=0)
            or _time(e["createdDateTime"]) == _happened(push)
        ]
        assert mine, shipment_id
        opened += 1
        closed += sum(1 for e in mine if e["status"] == "CLOSED")
    assert closed >= 1 and opened >= closed


def test_estimates_are_recomputed_as_shipments_move(run: Run) -> None:
    fresh = 0
    for summary in run.summaries:
        if summary["currentState"] not in ("IN_TRANSIT", "AT_STOP") or summary["mode"] == "PARCEL":
            continue
        history = _history(run, summary)
        for event in history["events"]:
            calculated = event.get("estimateLastCalculatedDateTime")
            if event["type"] == "ETA" and calculated and _time(calculated) > NOW:
                fresh += 1
        if fresh >= 10:
            break
    assert fresh >= 10


# --- stopping and restarting -------------------------------------------------------------


def test_it_stops_promptly(run: Run) -> None:
    assert run.first_stop_seconds < 6


def test_a_restart_resumes_near_where_it_stopped(run: Run) -> None:
    later = run.pushes[len(run.first_pushes) :]
    assert later
    assert min(map(_happened, later)) >= _happened(run.first_pushes[-1]) - timedelta(hours=2)


def _reported(action: Action) -> datetime | None:
    """When a report says its news happened (None: it reports no moment)."""
    if isinstance(action, Push):
        body = action.body
        if action.kind == "PARCEL":
            stamp: datetime = body["timestamp"]
            return stamp
        truckload = body["truckload"]
        happened: datetime = (truckload.get("shipmentEvent") or truckload["readings"])["dateTime"]
        return happened
    if isinstance(action, Event):
        return action.event.date_time
    if isinstance(action, Opening):
        return action.exception.created_date_time
    return None


def test_every_report_is_dated_when_it_falls_due() -> None:
    """Carriers report news as it happens, so pushes come in time order: the restart resumes
    from the moment of the last push, and a customer sees no report hours late. A booked
    shipment's scenario may have it booked hours before the simulator books it (its sites'
    opening hours move the plan): its booking's milestone (an LTL load's PICKUP_REQUESTED, a
    parcel's SHIPMENT_CREATED) was pushed at the booking dated at the scenario's moment, up to
    9 h before the clock, and appeared after a restart in about a fifth to a half of the runs."""
    anchor = datetime(2026, 11, 22, 20, tzinfo=UTC)
    # Booked shipments this window books that their scenarios book hours earlier.
    early = [
        k
        for k in range(1, 94)
        if plan_booking(7, anchor, k).booked_at < booking_time(anchor, k) - timedelta(hours=2)
    ]
    assert len(early) >= 10
    world = World(WorldSpec(7, anchor, "6f0c1c62-3d5e-4c1b-9a4e-2f8a7d4b1e90", seeded=False))
    world.load(anchor)
    clock, reports, pushed = anchor, 0, set()
    while clock < anchor + timedelta(days=2):
        clock += timedelta(hours=1)
        world.book_until(clock)
        for live, item in world.due(clock, 100_000, 1):
            happened = _reported(item.action)
            if happened is None:
                continue
            # Parcel carriers report to the second.
            assert item.due - timedelta(seconds=1) < happened <= item.due, (
                live.script.number,
                item,
            )
            reports += 1
            if isinstance(item.action, Push):
                pushed.add(live.script.number - ARRIVAL_NUMBERS)
    assert reports > 300 and len(pushed & set(early)) >= 5


def test_a_restart_carries_on_without_sending_anything_twice(run: Run) -> None:
    later = run.pushes[len(run.first_pushes) :]
    assert later, "nothing was pushed after the restart"
    assert max(map(_happened, later)) > _happened(run.first_pushes[-1]) + timedelta(hours=2)
    seen = Counter((push.kind, repr(sorted(push.payload.items()))) for push in run.pushes)
    assert max(seen.values()) == 1
    assert len({push.ingestion_id for push in run.pushes}) == len(run.pushes)


def test_every_shipment_is_one_the_seed_plans(run: Run) -> None:
    """Booked shipments are planned from the seed and the anchor alone: the restarted
    simulator booked the same ones, not others."""
    planned = set(run.plans)
    assert all(s["primaryIdentifier"] in planned for s in run.summaries)
    assert len({s["primaryIdentifier"] for s in run.summaries}) == len(run.summaries)


def test_a_shipment_deleted_by_a_user_is_left_alone(run: Run) -> None:
    later = run.pushes[len(run.first_pushes) :]
    trucks = {_truck(push) for push in later}
    assert len(trucks) > 10 and run.deleted not in trucks
    searched = run.http.post(SEARCH, json={"identifierValues": [run.deleted]})
    assert searched.status_code == 200
    assert searched.json()["paginationInfo"]["total"] == 0


def test_without_the_demo_it_does_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="freightdesk.server.simulator")
    data_dir = Path(tempfile.mkdtemp(prefix="fd-sim-empty-"))
    settings = ServerSettings(
        data_dir=data_dir, database_url=f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    )
    service = LiveService(settings)
    service.context.services["simulate_speed"] = SPEED
    try:
        service.start()
        # The simulator's last word when it finds no demo: it has looked, and stopped.
        deadline = time.monotonic() + 60
        while not any("no demo tenant" in r.getMessage() for r in caplog.records):
            assert time.monotonic() < deadline, "the simulator never said it found no demo"
            time.sleep(0.05)
        assert "simulator" not in service.context.services
        assert httpx.get(f"{service.url}/health").status_code == 200
        with service.context.sessions() as session:
            assert session.scalar(select(Tenant.id).limit(1)) is None
    finally:
        service.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
