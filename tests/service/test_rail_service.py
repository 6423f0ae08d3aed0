"""Rail legs for the app against the real local service (plain asyncio): the models' rules
(the clock's too) checked before sending, a leg started, read with its history, found by its
bill of lading, kept in the cache, dropped when deleted here or elsewhere."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.models.rail import (
    RailShipmentIdentifier,
    RailShipmentIdentifierType,
    tracking_start_problem,
)
from freightdesk.service.cache import Cache
from freightdesk.service.rail import RailService, check_leg, leg_key
from tests.proxy import Fault, FaultyProxy
from tests.service.conftest import OpenService
from tests.support import TenantHandle, wait_until

CONTAINER = "CSQU3054383"
BAD_CHECK_DIGIT = "MSKU1234560"
PATH = "/api/v4/rail/shipments"


@pytest.fixture
def rail(open_service: OpenService) -> RailService:
    return open_service(RailService)


def _body(value: str = CONTAINER, **extra: object) -> dict[str, object]:
    return {"equipmentIdentifiers": [{"type": "CONTAINER_ID", "value": value}], **extra}


def test_the_models_rules_are_checked_before_sending() -> None:
    now = datetime.now(UTC)
    body, problems = check_leg(
        _body(shipmentIdentifiers=[{"type": "BILL_OF_LADING", "value": "B1"}])
    )
    assert problems == {} and body is not None
    # Neither an identifier nor a start: the rule the service applies too, beside the start.
    _, problems = check_leg(_body())
    assert set(problems) == {"trackingStartDateTime"}
    assert problems["trackingStartDateTime"] == (
        "Tick Start tracking at, or enter a bill of lading or a waybill"
    )
    _, problems = check_leg(_body(trackingStartDateTime=now + timedelta(days=91)))
    assert "90 days in the future" in problems["trackingStartDateTime"]
    assert check_leg(_body(trackingStartDateTime=now - timedelta(days=89)))[1] == {}
    # Every problem at once, by the request's field paths.
    _, problems = check_leg(
        {
            "equipmentIdentifiers": [{"type": "CONTAINER_ID", "value": "ABC"}],
            "shipmentIdentifiers": [{"type": "WAYBILL", "value": " "}],
            "shipmentStops": [{"stopNumber": 1}],
        }
    )
    assert set(problems) == {
        "equipmentIdentifiers[0]",
        "shipmentIdentifiers[0].value",
        "shipmentStops",
    }
    assert "ISO 6346" in problems["equipmentIdentifiers[0]"]
    assert tracking_start_problem(None, True, now) is None


async def test_a_leg_started_read_found_and_kept_in_the_cache(
    rail: RailService, tenant_: TenantHandle, cache: Cache, open_service: OpenService
) -> None:
    assert (await rail.show({})).items == ()  # nothing followed yet
    body, _ = check_leg(
        _body(
            BAD_CHECK_DIGIT,
            shipmentIdentifiers=[{"type": "BILL_OF_LADING", "value": "BOL-RAIL-1"}],
            trackingStartDateTime=datetime.now(UTC) - timedelta(days=3),
        )
    )
    assert body is not None
    created, leg = await rail.create(body)
    # The service's warning comes back as it was given, beside the field it names.
    warnings = [m for m in created.info_messages if m.severity == "WARNING"]
    assert warnings and warnings[0].source == "equipmentIdentifiers[0].value"
    key = leg_key(leg)
    assert rail.coordinator.data is not None and rail.coordinator.data.keys == (key,)
    status = leg.equipment_statuses[0]
    assert status.current_status is not None and status.status_updates
    assert status.status_updates[-1] == status.current_status  # history up to now

    other, _ = check_leg(_body(trackingStartDateTime=datetime.now(UTC)))
    assert other is not None
    await rail.create(other)
    found = await rail.look_up(
        RailShipmentIdentifier(type=RailShipmentIdentifierType.BILL_OF_LADING, value="BOL-RAIL-1")
    )
    assert leg_key(found) == key
    listed = await rail.show({})
    assert len(listed.items) == 2 and key in listed.keys

    # Another service on the same cache (the app opened again) shows the legs before any fetch.
    again = open_service(RailService)
    cached = await again.load_cached()
    assert cached is not None and set(cached.keys) == set(listed.keys)

    # Deleted elsewhere: the next refresh drops it; deleted here: gone at once.
    assert tenant_.http.delete(f"/api/v4/rail/shipments/{key}").status_code == 200
    assert key not in (await rail.show({})).keys
    with pytest.raises(NotFound):
        await rail.leg(key)
    remaining = rail.coordinator.data
    assert remaining is not None and len(remaining.keys) == 1
    await rail.delete(remaining.keys[0])
    assert rail.coordinator.data is not None and rail.coordinator.data.items == ()
    assert await rail.leg_ids() == []


async def test_legs_started_elsewhere_are_listed(rail: RailService, tenant_: TenantHandle) -> None:
    """The local service lists the tenant's legs (an extension): a leg another client started
    shows on the next refresh with its history, and one deleted elsewhere leaves."""
    assert (await rail.show({})).items == ()
    body = _body(shipmentIdentifiers=[{"type": "WAYBILL", "value": "WB-ELSEWHERE"}])
    started = tenant_.http.post("/api/v4/rail/shipments", json=body)
    assert started.status_code == 200, started.text
    key = started.json()["shipment"]["railLegId"]

    listed = await rail.show({})
    assert listed.keys == (key,)
    assert listed.items[0].equipment_statuses[0].status_updates
    assert await rail.leg_ids() == [key]  # kept for a service without the listing

    assert tenant_.http.delete(f"/api/v4/rail/shipments/{key}").status_code == 200
    assert (await rail.show({})).items == ()
    assert await rail.leg_ids() == []


async def test_a_leg_started_while_the_list_is_fetched_is_in_the_cache_next_time(
    proxy: FaultyProxy, proxied_client: ApiClient, cache: Cache
) -> None:
    """The first list's answer, asked for before the leg was started, arrives after it (held
    back by the proxy until the leg is made) and is thrown away; the list the next start reads
    from disk has the leg, though the answer asked for again is the list already shown (so not
    stored again)."""
    rail = RailService(lambda: proxied_client, cache)
    try:
        # The first list of a new profile (nothing cached) is held back.
        held = threading.Event()
        proxy.inject(Fault(hold=held, path_prefix=PATH, method="GET"), times=1)
        fetching = asyncio.create_task(rail.show({}))
        await wait_until(lambda: proxy.count("GET", PATH) >= 1, 10)
        body, _ = check_leg(
            _body(shipmentIdentifiers=[{"type": "BILL_OF_LADING", "value": "BOL-HELD"}])
        )
        assert body is not None
        _, leg = await rail.create(body)
        assert not fetching.done()  # the held answer (without the leg) is still due
        assert proxy.answered("GET", PATH) == 0
        held.set()
        shown = await fetching
        assert shown.keys == (leg_key(leg),)
    finally:
        await rail.aclose()

    # The next start, before any network: the leg is listed.
    again = RailService(lambda: proxied_client, cache)
    try:
        cached = await again.load_cached()
        assert cached is not None and cached.keys == (leg_key(leg),)
    finally:
        await again.aclose()
