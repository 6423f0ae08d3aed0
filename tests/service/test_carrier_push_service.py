"""The carrier push console's service against the real local service: a truckload update for a
demo shipment followed to its receipt (matched), one for no shipment (unmatched), the models'
rules and the clock rule checked before sending, the service's refusal by field, the history
kept in the cache and a resend, a carrier's own client application pushing for its customer."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import ApiError, AuthenticationFailed
from freightdesk.models.push import PARCEL_RULES, TRUCKLOAD_RULES
from freightdesk.server.demo.itineraries import floor_hour
from freightdesk.server.demo.portfolio import plan_shipments
from freightdesk.service.cache import Cache
from freightdesk.service.carrier_push import (
    CarrierPushService,
    ParcelInput,
    SensorRow,
    SentPush,
    TruckloadInput,
    check_parcel,
    check_truckload,
    problems_in_words,
    status_text,
)
from tests.server.test_carrier_push_support import create_shipment
from tests.service.conftest import OpenService
from tests.support import LiveService, TenantHandle, make_tenant


@lru_cache(maxsize=1)
def demo_truckload() -> list[tuple[str, str]]:
    """The identifiers of the demo's first truckload shipment (bill of lading, order, SCAC)."""
    plans = plan_shipments(7, floor_hour(datetime.now(UTC)))
    plan = next(p for p in plans if p.mode.value == "TL")
    return list(plan.identifiers)


def demo_shipment(tenant: TenantHandle) -> tuple[str, str]:
    """The demo's first truckload shipment for `tenant`: its id and bill of lading number."""
    identifiers = demo_truckload()
    shipment = create_shipment(tenant, identifiers, stops=2)
    bol = next(v for t, v in identifiers if t == "BILL_OF_LADING")
    return str(shipment["id"]), bol


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def arrival(bol: str, **changes: object) -> TruckloadInput:
    at = iso(datetime.now(UTC) - timedelta(minutes=2))
    fields = {
        "bill_of_lading_number": bol,
        "event_type": "ARRIVAL_AT_STOP",
        "event_date_time": at,
        "stop_number": "1",
        "with_readings": True,
        "readings_date_time": at,
        "latitude": "41.88",
        "longitude": "-87.63",
        "speed": "0",
        "ignition_status": "OFF",
        "temperature": "4.5",
        "temperature_unit": "CELSIUS",
        **changes,
    }
    return TruckloadInput(**fields)  # type: ignore[arg-type]


@pytest.fixture
def pushes(open_service: OpenService) -> CarrierPushService:
    def make(client: Callable[[], ApiClient], cache: Cache) -> CarrierPushService:
        return CarrierPushService(client, lambda: cache)

    return open_service(make)


def test_the_models_rules_before_sending() -> None:
    update, problems = check_truckload(arrival("BOL-1"))
    assert problems == {} and update is not None
    assert update.truckload.readings is not None
    assert update.truckload.readings.sensor is not None
    humid = (SensorRow("zones.humidity.percentage", of="1", value="150"),)
    _none, problems = check_truckload(arrival("", stop_number="0", latitude="95", sensors=humid))
    assert set(problems) == {
        "truckload.identifiers",
        "truckload.shipmentEvent.stopNumber",
        "truckload.readings.sensor.zones[0].humidity.percentage",
        "truckload.readings.position.latitude",
    }
    _none, problems = check_truckload(arrival("B", with_event=False, with_readings=False))
    assert problems == {"truckload": "Tick Shipment event, Readings, or both"}
    # The clock rule, with this computer's clock: at most 5 minutes ahead.
    soon = iso(datetime.now(UTC) + timedelta(minutes=10))
    _none, problems = check_truckload(arrival("B", event_date_time=soon))
    assert list(problems) == ["truckload.shipmentEvent.dateTime"]
    assert "5 minutes in the future" in problems["truckload.shipmentEvent.dateTime"]
    # Parcel: a position update needs a location; the timestamp has Java's pattern.
    parcel = ParcelInput(carrier_value="UPSN", tracking_numbers="1Z9", event_type="POSITION_UPDATE")
    _none, problems = check_parcel(parcel)
    assert set(problems) == {"timestamp"}
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")
    _none, problems = check_parcel(ParcelInput(**{**parcel.__dict__, "timestamp": now}))
    assert problems == {
        "location": "A position update needs a latitude and longitude, or an address"
    }
    # Every field a form shows has its rule in words.
    assert "truckload.identifiers" in TRUCKLOAD_RULES and "timestamp" in PARCEL_RULES


def test_sensor_rows_on_the_wire_and_their_problems_said_of_the_row() -> None:
    """The table of other readings makes the interface's sensor object (a zone's and a tire's
    readings gathered into their entries, a zone's unit once, a capacity in the level's unit),
    and a problem of a value, the models' or the table's own, is said of its row in words."""
    rows = (
        SensorRow("zones.setPoint", of="1", value="-18", unit="CELSIUS"),
        SensorRow("tirePressure.psi", of="2 LO", value="105"),
        SensorRow("zones.doorState", of="1", value="CLOSED"),
        SensorRow("tirePressure.alarmState", of="2 LO", value="LOW"),
        SensorRow("reefer.voltage", value="12,6"),
        SensorRow("fuel.capacity", value="300", unit="GALLONS"),
        SensorRow("zones.humidity.percentage", of="B", value="40"),
    )
    update, problems = check_truckload(
        arrival("B", sensors=rows, fuel_level="80", fuel_unit="GALLONS")
    )
    assert problems == {} and update is not None
    sensor = update.wire()["truckload"]["readings"]["sensor"]
    assert sensor["zones"] == [
        {"id": 1, "setPoint": -18, "temperatureUnit": "CELSIUS", "doorState": "CLOSED"},
        {"id": "B", "humidity": {"percentage": 40}},
    ]
    assert sensor["tirePressure"] == [
        {"axle": 2, "position": "LO", "psi": 105, "alarmState": "LOW"}
    ]
    assert sensor["reefer"] == {"voltage": 12.6}
    assert sensor["fuel"] == {"capacity": 300, "currentLevel": 80, "fuelUnit": "GALLONS"}

    bad = (
        SensorRow("zones.setPoint", of="1", value="-18", unit="CELSIUS"),
        SensorRow("zones.returnAirTemperature", of="1", value="20", unit="FAHRENHEIT"),
        SensorRow("zones.humidity.percentage", of="1", value="150"),
        SensorRow("tirePressure.psi", of="3", value="-1"),
        SensorRow("reefer.state", value="ON"),
        SensorRow("reefer.state", value="OFF"),
        SensorRow("reefer.engineRpm", value="fast"),
        SensorRow("fuel.capacity", value="300", unit="LITERS"),
    )
    _none, problems = check_truckload(
        arrival("B", sensors=bad, fuel_level="80", fuel_unit="GALLONS", latitude="95")
    )
    said = problems_in_words(problems, bad, "GALLONS")
    assert said["truckload.readings.position.latitude"] == "Enter 90 or less"
    assert said["truckload.readings.sensor"].splitlines() == [
        "Row 2, Zone return air temperature: Enter it in the same unit as this zone's other "
        "readings",
        "Row 3, Zone humidity: Enter 100 or less",
        "Row 4, Tire pressure: Enter 0 or more",
        "Row 6, Reefer state: Read twice: remove one row",
        "Row 7, Reefer engine speed: Enter a valid number, such as 1500 or 2.5",
        "Row 8, Fuel capacity: Enter it in the same unit as the fuel level",
    ]
    assert len(said) == 2


async def test_sent_followed_to_matched_kept_and_resent(
    pushes: CarrierPushService, tenant_: TenantHandle, cache: Cache, client: ApiClient
) -> None:
    shipment_id, bol = demo_shipment(tenant_)
    update, _ = check_truckload(arrival(bol))
    assert update is not None
    sent = await pushes.send(update)
    assert sent.ingestion_id and sent.sent_as == "profile"
    seen: list[str] = []
    done = await pushes.follow(sent, lambda s: seen.append(s.status))
    assert done.status == "PROCESSED" and done.matched == (shipment_id,)
    assert status_text(done) == "Processed: matched 1 shipment"
    assert seen[-1] == "PROCESSED"
    # The event reached the demo shipment's history.
    history = tenant_.http.get(f"/api/v4/shipments/{shipment_id}/tracking/history").json()
    assert "ARRIVAL_AT_STOP" in str(history)

    kept = await pushes.history()
    assert [s.id for s in kept] == [sent.id] and kept[0].status == "PROCESSED"
    assert kept[0].summary() == f"BOL {bol}: ARRIVAL_AT_STOP + readings"
    again = await pushes.resend(kept[0])
    assert again.id != sent.id and again.body == sent.body
    assert again.ingestion_id != sent.ingestion_id
    again = await pushes.follow(again)
    assert again.status == "PROCESSED"
    # A new service over the same cache reads the same history.
    reopened = CarrierPushService(lambda: client, lambda: cache)
    assert [s.id for s in await reopened.history()] == [again.id, sent.id]


async def test_unmatched_and_following_cancelled(pushes: CarrierPushService) -> None:
    update, _ = check_truckload(arrival("NO-SUCH-BOL-7"))
    assert update is not None
    sent = await pushes.send(update)
    done = await pushes.follow(sent)
    assert done.status == "UNMATCHED" and not done.matched
    assert status_text(done).startswith("Unmatched")
    # Following can be stopped at any wait; the push stays in the history.
    follow = asyncio.ensure_future(pushes.follow(SentPush(**{**sent.__dict__, "status": "SENT"})))
    await asyncio.sleep(0)
    follow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await follow
    assert len(await pushes.history()) == 1


async def test_the_service_refuses_by_field(pushes: CarrierPushService) -> None:
    # Only a carrier tenant may push for another tenant: refused, naming the field.
    update, _ = check_truckload(
        arrival("B-1", customer_account_number="00000000-0000-4000-8000-000000000000")
    )
    assert update is not None
    with pytest.raises(ApiError) as refused:
        await pushes.send(update)
    assert "customerAccountNumber" in refused.value.field_errors()
    assert await pushes.history() == []


async def test_a_carrier_pushes_for_its_customer(
    pushes: CarrierPushService, tenant_: TenantHandle, sqlite_service: LiveService
) -> None:
    shipment_id, bol = demo_shipment(tenant_)
    carrier = make_tenant(sqlite_service, kind="CARRIER")
    try:
        await pushes.use_carrier(carrier.client_id, "wrong secret")
        update, _ = check_truckload(arrival(bol, customer_account_number=tenant_.uuid))
        assert update is not None
        with pytest.raises(AuthenticationFailed):
            await pushes.send(update)
        await pushes.use_carrier(carrier.client_id, carrier.client_secret)
        sent = await pushes.send(update)
        assert sent.sent_as == carrier.client_id
        done = await pushes.follow(sent)
        assert done.matched == (shipment_id,)
        await pushes.use_carrier(None)
        assert pushes.pushing_as == "profile"
    finally:
        carrier.http.close()


async def test_a_parcel_update_matched(pushes: CarrierPushService, tenant_: TenantHandle) -> None:
    number = f"1Z{uuid.uuid4().hex[:12].upper()}"
    shipment = create_shipment(tenant_, [("TRACKING_NUMBER", number)])
    at = datetime.now(UTC) - timedelta(minutes=3)
    update, problems = check_parcel(
        ParcelInput(
            carrier_value="UPSN",
            tracking_numbers=number,
            event_type="POSITION_UPDATE",
            timestamp=at.strftime("%Y-%m-%dT%H:%M:%S+0000"),
            latitude="33.75",
            longitude="-84.39",
        )
    )
    assert problems == {} and update is not None
    sent = await pushes.follow(await pushes.send(update))
    assert sent.kind == "PARCEL" and sent.matched == (shipment["id"],)
    assert sent.summary() == f"{number}: POSITION_UPDATE"
