"""One rule for a shipment's ETA (`models.tracking.is_estimate`): only ETA events carry it.
The row the app builds from a history (`summary_from_history`, a service without the
search), the detail's Overview and triage read the same ETA as the real local service's
nextEta, even when a milestone expected at another time was calculated later."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from freightdesk.api.client import ApiClient
from freightdesk.service.overview import overview_of
from freightdesk.service.shipments import summary_from_history
from freightdesk.service.triage import facts_from_history
from tests.support import TenantHandle

ETA = datetime(2030, 1, 15, 18, tzinfo=UTC)
EXPECTED = datetime(2030, 1, 16, 9, tzinfo=UTC)  # the milestone's, calculated after the ETA


def _service_next_eta(tenant: TenantHandle, shipment_id: str) -> Any:
    answer = tenant.http.post("/api/v4/shipments/search", json={})
    assert answer.status_code == 200, answer.text
    return next(s for s in answer.json()["results"] if s["id"] == shipment_id).get("nextEta")


async def test_a_milestone_expected_later_is_not_the_eta_in_the_app_either(
    client: ApiClient, tenant_: TenantHandle
) -> None:
    chicago, dallas = str(uuid.uuid4()), str(uuid.uuid4())
    stops = [
        {"id": chicago, "name": "Chicago terminal", "type": "PICKUP"},
        {"id": dallas, "name": "Dallas terminal", "type": "DELIVERY"},
    ]
    events = [
        # Gone from Chicago: Dallas is the next stop, which both estimates are for.
        {"type": "DEPARTURE_FROM_STOP", "dateTime": "2025-06-02T08:00:00Z", "stopId": chicago},
        {
            "type": "ETA",
            "estimateDateTime": "2030-01-15T18:00:00Z",
            "estimateLastCalculatedDateTime": "2030-01-10T08:00:00Z",
            "stopId": dallas,
        },
        {
            "type": "ARRIVAL_AT_STOP",
            "estimateDateTime": "2030-01-16T09:00:00Z",
            "estimateLastCalculatedDateTime": "2030-01-11T08:00:00Z",
            "stopId": dallas,
        },
    ]
    body = {
        "identifiers": [{"type": "AIR_WAYBILL", "value": "020-55555572"}],
        "routeInfo": {"stops": stops},
        "events": events,
    }
    answer = tenant_.http.put("/api/v4/shipments/tracking", json=body)
    assert answer.status_code == 201, answer.text
    shipment_id = answer.json()["id"]
    assert _service_next_eta(tenant_, shipment_id) == "2030-01-15T18:00:00Z"

    history = await client.tracking.history(shipment_id)
    assert {e.estimate_date_time for e in history.events} == {None, ETA, EXPECTED}
    assert summary_from_history(history).next_eta == ETA
    overview = overview_of(history, datetime(2030, 1, 1, tzinfo=UTC))
    assert overview.latest_eta == ETA
    assert overview.next_stop is not None
    assert (overview.next_stop.place.name, overview.next_stop.eta) == ("Dallas terminal", ETA)
    # Triage holds that ETA, and no other, against its stop's window.
    assert facts_from_history(history).etas == ((ETA, None),)
