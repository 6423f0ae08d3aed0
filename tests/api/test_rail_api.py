"""The rail tracking client against the real local service: create, statuses by leg and by
identifier (with and without history), delete, typed refusals and isolation, a create whose
answer was lost asked again without a second leg, and answers the interface does not promise."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, NotFound, ProtocolError
from freightdesk.api.rail import PATH, STATUSES_PATH
from freightdesk.models.rail import (
    EquipmentIdentifier,
    EquipmentIdentifierType,
    EquipmentStatusCode,
    MessageSeverity,
    RailShipmentCreate,
    RailShipmentIdentifier,
    RailShipmentIdentifierType,
)
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.server.test_rail import CONTAINER, LA_TO_NJ
from tests.support import LiveService, TenantHandle, make_tenant


def waybill(value: str | None = None) -> RailShipmentIdentifier:
    return RailShipmentIdentifier(
        type=RailShipmentIdentifierType.WAYBILL, value=value or f"WB-{uuid.uuid4().hex[:8]}"
    )


def leg(**fields: object) -> RailShipmentCreate:
    body: dict[str, object] = {
        "equipmentIdentifiers": [{"type": "CONTAINER_ID", "value": CONTAINER}],
        "shipmentIdentifiers": [waybill().wire()],
        **fields,
    }
    return RailShipmentCreate.model_validate(body)


async def test_create_and_statuses(client: ApiClient) -> None:
    started = datetime.now(UTC) - timedelta(days=20)
    master = uuid.uuid4()
    created = await client.rail.create(
        leg(shipmentStops=LA_TO_NJ, trackingStartDateTime=started, masterShipmentId=master)
    )
    shipment = created.shipment
    assert shipment.master_shipment_id == master and isinstance(shipment.id, int)
    assert shipment.equipment_identifiers[0].value == CONTAINER
    assert [s.stop_number for s in shipment.shipment_stops] == [1, 2]
    assert all(m.severity in MessageSeverity for m in created.info_messages)

    plain = await client.rail.statuses(shipment.rail_leg_id)
    assert plain.shipment == shipment
    (status,) = plain.equipment_statuses
    assert status.status_updates is None  # only with the history
    assert status.current_status is not None
    assert status.current_status.status is EquipmentStatusCode.DELIVERED  # 20 days: delivered
    assert status.origin_ramp is not None and status.origin_ramp.state == "CA"

    history = await client.rail.statuses(shipment.rail_leg_id, include_status_history=True)
    updates = history.equipment_statuses[0].status_updates or []
    assert updates[0].status is EquipmentStatusCode.INGATE
    assert updates[-1].status is EquipmentStatusCode.DELIVERED
    assert [u.date_time for u in updates] == sorted(u.date_time for u in updates)
    by_number = await client.rail.statuses(shipment.id)  # the deprecated numeric id
    assert by_number.shipment.rail_leg_id == shipment.rail_leg_id


async def test_statuses_by_identifier(client: ApiClient) -> None:
    shared = waybill()
    yesterday = datetime.now(UTC) - timedelta(days=1)
    older = await client.rail.create(
        leg(shipmentIdentifiers=[shared.wire()], trackingStartDateTime=yesterday)
    )
    trailer = EquipmentIdentifier(type=EquipmentIdentifierType.TRAILER_ID, value="JBHZ 4411")
    newer = await client.rail.create(
        leg(shipmentIdentifiers=[shared.wire()], equipmentIdentifiers=[trailer.wire()])
    )
    found = await client.rail.statuses_by_identifier(shared)
    assert found.shipment.rail_leg_id == newer.shipment.rail_leg_id
    assert str(older.shipment.rail_leg_id) in found.info_messages[0].message
    assert found.equipment_statuses[0].status_updates is None
    with_history = await client.rail.statuses_by_identifier(shared, include_status_history=True)
    assert with_history.equipment_statuses[0].status_updates is not None
    bill = RailShipmentIdentifier(
        type=RailShipmentIdentifierType.BILL_OF_LADING, value=shared.value
    )
    with pytest.raises(NotFound):
        await client.rail.statuses_by_identifier(bill)


async def test_delete(client: ApiClient) -> None:
    created = (await client.rail.create(leg())).shipment
    await client.rail.delete(created.rail_leg_id)
    with pytest.raises(NotFound) as gone:
        await client.rail.statuses(created.rail_leg_id)
    assert gone.value.support_reference_id
    with pytest.raises(NotFound):
        await client.rail.delete(created.rail_leg_id)
    with pytest.raises(NotFound):
        await client.rail.statuses_by_identifier(created.shipment_identifiers[0])


async def test_refusals_are_typed_and_tenants_isolated(
    client: ApiClient, sqlite_service: LiveService
) -> None:
    # The tracking start rules need the service's clock: only the service can refuse them.
    no_start = leg(shipmentIdentifiers=[])
    with pytest.raises(BadRequest) as missing:
        await client.rail.create(no_start)
    assert list(missing.value.field_errors()) == ["trackingStartDateTime"]
    too_late = leg(trackingStartDateTime=datetime.now(UTC) + timedelta(days=91))
    with pytest.raises(BadRequest) as late:
        await client.rail.create(too_late)
    assert "trackingStartDateTime" in late.value.field_errors()
    assert late.value.body.http_status_code == 400

    mine = (await client.rail.create(leg())).shipment
    other = make_tenant(sqlite_service)
    try:
        async with ApiClient(
            other.service.url, client_id=other.client_id, client_secret=other.client_secret
        ) as foreign:
            for attempt in (
                foreign.rail.statuses(mine.rail_leg_id),
                foreign.rail.statuses(mine.id),
                foreign.rail.statuses_by_identifier(mine.shipment_identifiers[0]),
                foreign.rail.delete(mine.rail_leg_id),
            ):
                with pytest.raises(NotFound):
                    await attempt
    finally:
        other.http.close()
    assert (await client.rail.statuses(mine.rail_leg_id)).shipment == mine


async def test_a_lost_answer_is_asked_again_without_a_second_leg(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        identifier = waybill()
        body = leg(shipmentIdentifiers=[identifier.wire()], shipmentStops=LA_TO_NJ)
        # The service created the leg, but the answer was lost on the way back.
        proxy.inject(Fault(status=502, body=b"gateway trouble", path_prefix=PATH))
        created = await api.rail.create(body)
        assert proxy.count("POST", PATH) == 2
        assert any("already tracked" in m.message for m in created.info_messages)
        found = await api.rail.statuses_by_identifier(identifier)
        assert found.shipment.rail_leg_id == created.shipment.rail_leg_id
        # One leg carries the waybill, not two.
        assert not any("legs carry" in m.message for m in found.info_messages)

        proxy.inject(Fault(body=b'{"shipment": {"railLegId": "x"}}', path_prefix=PATH))
        with pytest.raises(ProtocolError):
            await api.rail.create(leg())
        proxy.inject(Fault(body=b'{"equipmentStatuses": []}', path_prefix=STATUSES_PATH))
        with pytest.raises(ProtocolError) as strange:
            await api.rail.statuses_by_identifier(identifier)
        assert f"GET {STATUSES_PATH}" in str(strange.value)
