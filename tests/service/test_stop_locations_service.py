"""Stop locations for the app: the rules checked before sending, the page with search, and
saves with optimistic concurrency, against the real local service (plain asyncio)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest
from freightdesk.models.addresses import AddressInput
from freightdesk.service.stop_locations import (
    StaleLocation,
    StopLocationsService,
    as_input,
    check_location,
)
from tests.service.conftest import OpenService


@pytest.fixture
def service(open_service: OpenService) -> StopLocationsService:
    return open_service(StopLocationsService)


def _wire(name: str = "Austin DC", **changes: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "name": name,
        "address": {
            "addressLines": ["100 Congress Ave"],
            "city": "Austin",
            "state": "TX",
            "postalCode": "78701",
            "country": "US",
        },
    }
    wire.update(changes)
    return wire


def test_rules_are_checked_before_sending() -> None:
    location, problems = check_location(_wire())
    assert location is not None and problems == {}
    _, problems = check_location(
        _wire(
            name="  ",
            address={"city": "Austin", "state": "Atlantis", "country": "US"},
            geofence={"type": "TIME", "units": "MILES", "value": 0},
            contacts=[{"contactId": "", "type": "DOCK"}],
            openingHours=[{"appliesMonday": False, "opens": "8:00", "closes": "17:00"}],
            specialOpeningHours=[
                {
                    "hours": {"appliesMonday": True},
                    "validFrom": "2025-12-26",
                    "validThrough": "2025-12-24",
                }
            ],
        )
    )
    assert set(problems) >= {
        "name",
        "address.state",
        "address.addressLines",
        "geofence.units",
        "geofence.value",
        "contacts[0].contactId",
        "openingHours[0]",
        "openingHours[0].opens",
        "specialOpeningHours[0].validThrough",
    }
    # Closed all day on a holiday is allowed; coordinates stand in for a street address.
    _, problems = check_location(
        _wire(
            address={"country": "GB"},
            coordinates={"latitude": 51.5, "longitude": -0.12},
            openingHours=[
                {"appliesSaturday": True, "opens": "22:00", "closes": "06:00"},
                {"appliesSunday": True, "opens": "00:00", "closes": "24:00"},
            ],
            specialOpeningHours=[
                {
                    "hours": {"appliesMonday": True},
                    "validFrom": "2025-12-25",
                    "validThrough": "2025-12-25",
                }
            ],
        )
    )
    assert problems == {}
    _, problems = check_location(_wire(openingHours=[{"appliesMonady": True}]))
    assert "openingHours[0].appliesMonady" in problems


def test_every_coordinate_problem_at_once_beside_its_own_field() -> None:
    """A latitude of 95 and a longitude "abc" were one message (the model stops at the first
    number it refuses): fixed, the next came. Each is said at once, with the other fields'."""
    _, problems = check_location(
        _wire("  ", address={"country": "US"}, coordinates={"latitude": 95, "longitude": "abc"})
    )
    assert problems == {
        "name": "Must not be blank",
        "coordinates.latitude": "Latitude is between -90 and 90",
        "coordinates.longitude": "Longitude is between -180 and 180",
    }
    _, problems = check_location(_wire(coordinates={"latitude": "x", "longitude": -200.0}))
    assert set(problems) == {"coordinates.latitude", "coordinates.longitude"}
    _, problems = check_location(_wire(coordinates={"latitude": None, "longitude": -97.7}))
    assert problems == {"coordinates.latitude": "Enter the latitude too, or clear the longitude"}
    _, problems = check_location(_wire(coordinates={"latitude": "30,500", "longitude": 0}))
    assert problems == {"coordinates.latitude": "30,500 could be 30500 or 30.5: type one of those"}


async def test_page_search_and_writes_shown_at_once(
    service: StopLocationsService, tmp_path: Path
) -> None:
    for name in ("Dallas DC", "Austin DC", "Houston DC"):
        location, _ = check_location(_wire(name))
        assert location is not None
        await service.save(location)
    shown = await service.show({"q": "", "offset": 0, "pageSize": 2})
    assert [x.name for x in shown.items] == ["Austin DC", "Dallas DC"] and shown.total == 3
    # A new one sorting into the page is shown at once; the page keeps its size.
    location, _ = check_location(_wire("Amarillo Yard"))
    assert location is not None
    created = await service.save(location)
    data = service.coordinator.data
    assert data is not None and [x.name for x in data.items] == ["Amarillo Yard", "Austin DC"]
    assert data.total == 4
    found = await service.show({"q": "hous", "offset": 0, "pageSize": 10})
    assert [x.name for x in found.items] == ["Houston DC"]
    # One that does not match the search is saved but not shown.
    other, _ = check_location(_wire("El Paso"))
    assert other is not None
    await service.save(other)
    assert service.coordinator.data is not None
    assert [x.name for x in service.coordinator.data.items] == ["Houston DC"]
    assert created.id is not None
    await service.delete(created.id)
    await service.delete(created.id)
    again = StopLocationsService(service._client, service.cache)
    cached = await again.load_cached()
    assert cached is not None and again.params["q"] == "hous"


async def test_someone_saved_meanwhile(client: ApiClient, service: StopLocationsService) -> None:
    location, _ = check_location(_wire("Shared dock"))
    assert location is not None
    created = await service.save(location)
    assert created.id is not None and created.version == 1
    mine = as_input(created).model_copy(update={"name": "Shared dock (mine)"})
    theirs_body = as_input(created).model_copy(update={"name": "Shared dock (theirs)"})
    await client.stop_locations.update(created.id, theirs_body)
    with pytest.raises(StaleLocation) as stale:
        await service.save(mine, created.id)
    assert stale.value.theirs.name == "Shared dock (theirs)" and stale.value.theirs.version == 2
    assert stale.value.mine.name == "Shared dock (mine)"
    kept = await service.overwrite(stale.value)
    assert (kept.name, kept.version) == ("Shared dock (mine)", 3)
    with pytest.raises(BadRequest) as bad:
        await service.validate_address(AddressInput(state="Atlantis"))
    assert "state" in bad.value.field_errors()
    normal = await service.validate_address(AddressInput(city="austin", state="texas"))
    assert (normal.city, normal.state) == ("Austin", "TX")


async def test_a_location_is_found_by_its_own_id_in_any_case(
    service: StopLocationsService,
) -> None:
    location, _ = check_location(_wire("Tulsa Cross-dock", suppliedId="TUL-XD-7"))
    assert location is not None
    await service.save(location)
    nearly, _ = check_location(_wire("Tulsa Yard", suppliedId="TUL-XD-70"))
    assert nearly is not None
    await service.save(nearly)
    found = await service.by_supplied_id("tul-xd-7")
    assert found is not None and found.name == "Tulsa Cross-dock"
    assert await service.by_supplied_id("TUL-XD-8") is None
