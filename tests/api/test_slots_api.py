"""The yard slots client against the real local service: typed slots, the typed refusals, a
read that is retried safely, and an answer the interface does not promise."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, NotFound, ProtocolError
from freightdesk.api.slots import PATH
from freightdesk.models.yard import SlotIdentifiers, SlotQuery, SlotStatus, SlotWindow
from freightdesk.server.db import transaction
from freightdesk.server.domain import yard
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.server.test_slots import next_monday, tenant_id
from tests.support import LiveService, TenantHandle, make_tenant


@pytest.fixture
def monday(api_tenant: TenantHandle) -> datetime:
    """A two-door site DOCK-7 open 08:00 to 10:00 on weekdays; both doors taken at 08:00."""
    start = next_monday(8)
    with transaction(api_tenant.service.context.sessions) as session:
        site = yard.add_site(
            session,
            tenant_id(api_tenant),
            "dock-7",
            "Dock Seven",
            "America/Chicago",
            2,
            [{"days": yard.WEEKDAYS, "opens": "08:00", "closes": "10:00"}],
        )
        yard.book(session, site, "D01", start, 60, "SHP-9", 1)
        yard.book(session, site, "D02", start, 60, "OTHER")
    return start


def ask(start: datetime, hours: int, site: str = "DOCK-7", stop: int | None = 1) -> SlotQuery:
    return SlotQuery(
        appointment_window=SlotWindow(
            start_date_time=start, end_date_time=start + timedelta(hours=hours)
        ),
        identifiers=SlotIdentifiers(
            shipment_reference="SHP-9", site_code=site, stop_sequence_number=stop
        ),
    )


async def test_slots_are_typed(client: ApiClient, monday: datetime) -> None:
    answer = await client.slots.query(ask(monday, 2))
    assert answer.status is SlotStatus.AVAILABLE
    full, free = answer.results
    assert (full.start_date_time, free.start_date_time) == (monday, monday + timedelta(hours=1))
    assert full.start_date_time.utcoffset() == monday.utcoffset()  # the site's local time
    assert (full.available, full.remaining_capacity, full.dock_doors) == (False, 0, [])
    assert full.already_booked and not free.already_booked
    assert (free.available, free.dock_doors, free.capacity) == (True, ["D01", "D02"], 2)
    assert {s.site_code for s in answer.results} == {"DOCK-7"}
    assert {s.site_name for s in answer.results} == {"Dock Seven"}

    only_full = await client.slots.query(ask(monday, 1, stop=None))
    assert only_full.status is SlotStatus.FULLY_BOOKED and only_full.results[0].already_booked
    closed = await client.slots.query(ask(monday - timedelta(hours=6), 4))
    assert closed.status is SlotStatus.CLOSED and closed.results == []


async def test_refusals_are_typed_with_the_error_body(
    client: ApiClient, monday: datetime, sqlite_service: LiveService
) -> None:
    with pytest.raises(NotFound) as missing:
        await client.slots.query(ask(monday, 2, site="NOPE"))
    assert "identifiers.siteCode" in missing.value.field_errors()
    assert missing.value.support_reference_id

    # Another tenant's site is not found either.
    other = make_tenant(sqlite_service)
    try:
        async with ApiClient(
            other.service.url, client_id=other.client_id, client_secret=other.client_secret
        ) as foreign:
            with pytest.raises(NotFound):
                await foreign.slots.query(ask(monday, 2))
    finally:
        other.http.close()

    # A body the model would refuse (end before start), forced past it, is refused by the
    # service with the field named.
    window = SlotWindow.model_construct(
        start_date_time=monday, end_date_time=monday - timedelta(hours=1)
    )
    bad = SlotQuery.model_construct(
        appointment_window=window, identifiers=ask(monday, 1).identifiers
    )
    with pytest.raises(BadRequest) as refused:
        await client.slots.query(bad)
    assert refused.value.status == 400 and "appointmentWindow" in refused.value.field_errors()


async def test_a_lost_answer_is_asked_again_and_a_strange_one_refused(
    api_tenant: TenantHandle, proxy: FaultyProxy, monday: datetime
) -> None:
    async with client_via(proxy, api_tenant) as api:
        proxy.inject(Fault(status=503, path_prefix=PATH), times=2)
        assert (await api.slots.query(ask(monday, 2))).status is SlotStatus.AVAILABLE
        assert proxy.count("POST", PATH) == 3
        proxy.inject(Fault(body=b'{"status": "MAYBE", "results": []}', path_prefix=PATH))
        with pytest.raises(ProtocolError) as strange:
            await api.slots.query(ask(monday, 2))
        assert f"POST {PATH}" in str(strange.value) and "status" in str(strange.value)
