"""Rules written once in `models/` and run on both sides of the wire: for the same bad input,
the app's check before sending names the same fields with the same words as the local
service's 400. A rule that drifts apart on one side fails here."""

from __future__ import annotations

from typing import Any

import pytest

from freightdesk.service.stop_locations import check_location
from tests.server.test_stop_locations import PATH, location
from tests.support import TenantHandle


def _refused(tenant: TenantHandle, body: dict[str, Any]) -> dict[str, str]:
    """The service's 400 as {field: message}, the first message of each field (as the app
    shows them)."""
    response = tenant.http.post(PATH, json=body)
    assert response.status_code == 400, response.text
    found: dict[str, str] = {}
    for error in response.json()["errors"]:
        found.setdefault(error["source"], error["message"])
    return found


STOP_LOCATIONS = {
    "a blank name": location(name="  "),
    "an address that does not normalize": location(
        address={"addressLines": ["1 Main St"], "city": "Austin", "state": "Atlantis"}
    ),
    "neither a street address nor coordinates": location(address={"country": "US"}),
    "a geofence whose units do not fit its type": location(
        geofence={"type": "TIME", "units": "MILES", "value": 0}
    ),
    "a geofence of no type": location(geofence={"units": "MILES", "value": 5}),
    "a contact without id or type": location(contacts=[{"contactId": " ", "type": ""}]),
    "hours for no day, opening at a bad time": location(
        openingHours=[{"appliesMonday": False, "opens": "8:00", "closes": "17:00"}]
    ),
    "hours that close when they open": location(
        openingHours=[{"appliesMonday": True, "opens": "08:00", "closes": "08:00"}]
    ),
    "special hours ending before they start": location(
        specialOpeningHours=[
            {
                "hours": {"appliesMonday": True},
                "validFrom": "2025-12-26",
                "validThrough": "2025-12-24",
            }
        ]
    ),
}


@pytest.mark.parametrize("case", STOP_LOCATIONS)
def test_the_app_and_the_service_agree_on_a_stop_location(tenant: TenantHandle, case: str) -> None:
    body = STOP_LOCATIONS[case]
    checked, problems = check_location(body)
    assert checked is None
    assert problems == _refused(tenant, body)
