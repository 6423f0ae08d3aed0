"""The carrier push client against the real local service: parcel and truckload pushes applied
to shipments, parcel times sent in the interface's format, receipts, typed refusals, a push
never sent again blindly, and answers the interface does not promise."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest

from freightdesk.api.carrier_push import INGESTIONS_PATH, PARCEL_PATH, TRUCKLOAD_PATH
from freightdesk.api.client import ApiClient
from freightdesk.api.errors import (
    BadRequest,
    NotFound,
    PermissionDenied,
    ProtocolError,
    ServerError,
)
from freightdesk.models.common import GeoCoordinates
from freightdesk.models.push import (
    Ingestion,
    IngestionStatus,
    ParcelEventType,
    ParcelLocation,
    ParcelStatusUpdate,
    Readings,
    Truckload,
    TruckloadIdentifiers,
    TruckloadPosition,
    TruckloadShipmentEvent,
    TruckloadTrackingUpdate,
)
from tests.api.conftest import client_via
from tests.api.test_vltl_api import RecordingTransport
from tests.proxy import Fault, FaultyProxy
from tests.server.test_carrier_push_support import create_shipment, history, unique
from tests.support import LiveService, TenantHandle, make_tenant


def parcel(
    tracking_number: str,
    event_type: ParcelEventType = ParcelEventType.PICKED_UP,
    at: datetime | None = None,
    **fields: object,
) -> ParcelStatusUpdate:
    return ParcelStatusUpdate.model_validate(
        {
            "carrierIdentifier": {"type": "SCAC", "value": "UPSN"},
            "shipmentIdentifiers": [{"type": "TRACKING_NUMBER", "value": tracking_number}],
            "eventType": event_type,
            # With fractions of a second, which the interface's format has not: the client
            # sends whole seconds.
            "timestamp": at or datetime.now(UTC) - timedelta(minutes=10, microseconds=123456),
            **fields,
        }
    )


def truckload(bill_of_lading: str, at: datetime | None = None) -> TruckloadTrackingUpdate:
    when = at or datetime.now(UTC) - timedelta(minutes=2)
    return TruckloadTrackingUpdate(
        truckload=Truckload(
            identifiers=TruckloadIdentifiers(bill_of_lading_number=bill_of_lading),
            shipment_event=TruckloadShipmentEvent(type="ARRIVAL_AT_STOP", date_time=when),
            readings=Readings(
                date_time=when, position=TruckloadPosition(latitude=41.88, longitude=-87.63)
            ),
        )
    )


async def settled(client: ApiClient, ingestion_id: str) -> Ingestion:
    for _ in range(400):
        receipt = await client.carrier_push.ingestion(ingestion_id)
        if receipt.status is not IngestionStatus.PENDING:
            return receipt
        await asyncio.sleep(0.02)
    raise AssertionError(f"push {ingestion_id} was not applied")


async def test_a_parcel_push_is_applied(client: ApiClient, api_tenant: TenantHandle) -> None:
    number = unique("1Z")
    shipment = create_shipment(api_tenant, [("TRACKING_NUMBER", number)], stops=2)
    receipt = await client.carrier_push.parcel_status_update(parcel(number))
    assert receipt is not None and receipt.ingestion_id
    done = await settled(client, receipt.ingestion_id)
    assert done.status is IngestionStatus.PROCESSED
    assert done.matched_shipment_ids == [shipment["id"]]
    assert done.processed_date_time is not None and done.error is None
    events = history(api_tenant, shipment["id"])["events"]
    assert [e["type"] for e in events] == ["PICKED_UP"]

    # Each event type with the field it needs, times with fractions: all accepted.
    eta = datetime.now(UTC) + timedelta(days=2, microseconds=5)
    located = ParcelLocation(geo_coordinates=GeoCoordinates(latitude=33.7, longitude=-84.4))
    for update in (
        parcel(number, ParcelEventType.ETA, estimated_time_of_arrival=eta),
        parcel(number, ParcelEventType.POSITION_UPDATE, location=located),
        parcel(number, ParcelEventType.EXCEPTION, description="Damaged label"),
    ):
        assert await client.carrier_push.parcel_status_update(update) is not None


async def test_parcel_times_go_in_the_interface_format(api_tenant: TenantHandle) -> None:
    wire = RecordingTransport()
    async with ApiClient(
        api_tenant.service.url,
        client_id=api_tenant.client_id,
        client_secret=api_tenant.client_secret,
        transport=wire,
    ) as api:
        chicago = timezone(timedelta(hours=-6))
        at = datetime.now(chicago).replace(microsecond=250_000) - timedelta(minutes=10)
        eta = at + timedelta(days=1)
        update = parcel(unique("1Z"), ParcelEventType.ETA, at=at, estimated_time_of_arrival=eta)
        assert await api.carrier_push.parcel_status_update(update) is not None
    ((path, sent),) = wire.sent
    assert path == PARCEL_PATH
    assert sent["timestamp"] == at.strftime("%Y-%m-%dT%H:%M:%S-0600")
    assert sent["estimatedTimeOfArrival"] == eta.strftime("%Y-%m-%dT%H:%M:%S-0600")


async def test_a_truckload_push_is_applied(client: ApiClient, api_tenant: TenantHandle) -> None:
    bill = unique("BOL")
    shipment = create_shipment(api_tenant, [("BILL_OF_LADING", bill)], stops=2)
    receipt = await client.carrier_push.truckload_tracking_update(truckload(bill))
    done = await settled(client, receipt.ingestion_id)
    assert done.status is IngestionStatus.PROCESSED
    assert done.matched_shipment_ids == [shipment["id"]]
    found = history(api_tenant, shipment["id"])
    assert [e["type"] for e in found["events"]] == ["ARRIVAL_AT_STOP"]
    assert len(found["positions"]) == 1

    nobody = await client.carrier_push.truckload_tracking_update(truckload(unique("BOL")))
    unmatched = await settled(client, nobody.ingestion_id)
    assert unmatched.status is IngestionStatus.UNMATCHED and unmatched.error


async def test_refusals_are_typed_with_the_field_named(
    client: ApiClient, api_tenant: TenantHandle, sqlite_service: LiveService
) -> None:
    # The 5-minutes-ahead rule needs the service's clock: only the service can refuse it.
    ahead = datetime.now(UTC) + timedelta(minutes=10)
    with pytest.raises(BadRequest) as parcel_late:
        await client.carrier_push.parcel_status_update(parcel(unique("1Z"), at=ahead))
    assert "5 minutes in the future" in parcel_late.value.field_errors()["timestamp"]
    assert parcel_late.value.support_reference_id
    with pytest.raises(BadRequest) as truck_late:
        await client.carrier_push.truckload_tracking_update(truckload("B1", at=ahead))
    assert set(truck_late.value.field_errors()) == {
        "truckload.shipmentEvent.dateTime",
        "truckload.readings.dateTime",
    }

    # A shipper may push only for itself.
    customer = make_tenant(sqlite_service)
    customer.http.close()
    for_customer = truckload("B1").model_copy(update={"customer_account_number": customer.uuid})
    with pytest.raises(PermissionDenied) as refused:
        await client.carrier_push.truckload_tracking_update(for_customer)
    assert "customerAccountNumber" in refused.value.field_errors()
    mine = truckload("B1").model_copy(update={"customer_account_number": api_tenant.uuid})
    assert (await client.carrier_push.truckload_tracking_update(mine)).ingestion_id


async def test_receipts_are_the_pushing_tenants_own(
    client: ApiClient, sqlite_service: LiveService
) -> None:
    assert await client.carrier_push.has_ingestions()
    receipt = await client.carrier_push.truckload_tracking_update(truckload("B1"))
    assert (await client.carrier_push.ingestion(receipt.ingestion_id.upper())).ingestion_id == (
        receipt.ingestion_id
    )
    with pytest.raises(NotFound):
        await client.carrier_push.ingestion("not-an-id")
    other = make_tenant(sqlite_service)
    try:
        async with ApiClient(
            other.service.url, client_id=other.client_id, client_secret=other.client_secret
        ) as foreign:
            with pytest.raises(NotFound):
                await foreign.carrier_push.ingestion(receipt.ingestion_id)
    finally:
        other.http.close()


async def test_a_push_is_not_sent_again_blindly(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    bill = unique("BOL")
    shipment = create_shipment(api_tenant, [("BILL_OF_LADING", bill)], stops=2)
    async with client_via(proxy, api_tenant) as api:
        update = truckload(bill)
        # Stored and applied, but the answer was lost on the way back: sending it again
        # would record the event twice, so the failure is the caller's to judge.
        proxy.inject(Fault(status=502, body=b"gateway trouble", path_prefix=TRUCKLOAD_PATH))
        with pytest.raises(ServerError):
            await api.carrier_push.truckload_tracking_update(update)
        assert proxy.count("POST", TRUCKLOAD_PATH) == 1
        for _ in range(200):
            if history(api_tenant, shipment["id"])["events"]:
                break
            await asyncio.sleep(0.02)
        assert len(history(api_tenant, shipment["id"])["events"]) == 1
        # Refused before it reached the service: the caller sends it again when it sees fit.
        proxy.inject(Fault(status=503, path_prefix=PARCEL_PATH))
        with pytest.raises(ServerError) as unavailable:
            await api.carrier_push.parcel_status_update(parcel(unique("1Z")))
        assert unavailable.value.status == 503 and proxy.count("POST", PARCEL_PATH) == 1
        receipt = await api.carrier_push.parcel_status_update(parcel(unique("1Z")))
        assert receipt is not None

        # The interface promises only the 202 of a parcel push; an empty one is no receipt.
        proxy.inject(Fault(status=202, body=b"", path_prefix=PARCEL_PATH))
        assert await api.carrier_push.parcel_status_update(parcel(unique("1Z"))) is None
        proxy.inject(Fault(body=b'{"id": "x"}', path_prefix=PARCEL_PATH))
        with pytest.raises(ProtocolError) as strange:
            await api.carrier_push.parcel_status_update(parcel(unique("1Z")))
        assert "ingestionId" in str(strange.value)
        proxy.inject(Fault(body=b'{"ingestionId": "x", "status": "LOST"}'))
        with pytest.raises(ProtocolError):
            await api.carrier_push.ingestion(receipt.ingestion_id)
        assert proxy.count("GET", f"{INGESTIONS_PATH}/{receipt.ingestion_id}") == 1
