"""The stop locations and address validation clients against the real local service."""

from __future__ import annotations

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, Conflict, NotFound, ServerError
from freightdesk.api.stop_locations import PATH
from freightdesk.models.addresses import AddressInput
from freightdesk.models.stop_locations import OpeningHoursInput, StopLocationInput
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle


def _location(name: str, city: str = "Austin", **changes: object) -> StopLocationInput:
    fields: dict[str, object] = {
        "name": name,
        "address": AddressInput(
            address_lines=["100 Congress Ave"], city=city, state="TX", postal_code="78701"
        ),
        "opening_hours": [
            OpeningHoursInput(
                applies_monday=True, applies_friday=True, opens="07:00", closes="17:30"
            )
        ],
    }
    fields.update(changes)
    return StopLocationInput.model_validate(fields)


async def test_create_read_update_delete(client: ApiClient) -> None:
    created = await client.stop_locations.create(_location("Austin DC", supplied_id="WH-1"))
    assert created.version == 1 and created.id is not None
    assert created.address_specificity == "HOUSE_NUMBER"
    again = await client.stop_locations.get(created.id)
    assert again == created
    edited = _location("Austin DC North", supplied_id="WH-1", version=1)
    updated = await client.stop_locations.update(created.id, edited)
    assert (updated.name, updated.version) == ("Austin DC North", 2)
    with pytest.raises(Conflict) as stale:
        await client.stop_locations.update(created.id, _location("Mine", version=1))
    assert "version" in stale.value.field_errors()
    overwritten = await client.stop_locations.update(created.id, _location("Mine"))
    assert overwritten.version == 3
    await client.stop_locations.delete(created.id)
    with pytest.raises(NotFound):
        await client.stop_locations.get(created.id)


async def test_bad_input_names_the_field(client: ApiClient) -> None:
    with pytest.raises(BadRequest) as bad:
        await client.stop_locations.create(
            _location(
                "X",
                address=AddressInput(
                    address_lines=["1 Main"], city="Austin", state="TX", postal_code="10001"
                ),
            )
        )
    assert "address.postalCode" in bad.value.field_errors()


async def test_pages_search_and_the_whole_list(client: ApiClient) -> None:
    for n, city in enumerate(["Austin", "Dallas", "Austin", "Houston", "Austin"]):
        await client.stop_locations.create(_location(f"Site {n}", city=city))
    first = await client.stop_locations.page(offset=0, page_size=2)
    assert [x.name for x in first.locations] == ["Site 0", "Site 1"]
    assert first.total_items == 5
    found = await client.stop_locations.page(query="austin", page_size=10)
    assert [x.name for x in found.locations] == ["Site 0", "Site 2", "Site 4"]
    every = [x.name async for x in client.stop_locations.list(page_size=2)]
    assert every == [f"Site {n}" for n in range(5)]


async def test_a_versioned_update_is_not_retried_blindly(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        created = await api.stop_locations.create(_location("Retry"))
        assert created.id is not None
        path = f"{PATH}/{created.id}"
        proxy.inject(Fault(status=503, path_prefix=path))
        with pytest.raises(ServerError):
            await api.stop_locations.update(created.id, _location("Retry 2", version=1))
        assert proxy.count("PUT", path) == 1
        proxy.inject(Fault(status=503, path_prefix=path))
        saved = await api.stop_locations.update(created.id, _location("Retry 3"))
        assert saved.version == 2 and proxy.count("PUT", path) == 3


async def test_address_validation_normalizes_and_names_fields(client: ApiClient) -> None:
    normal = await client.addresses.validate(
        AddressInput(
            address_lines=[" 1 Main St "],
            city="AUSTIN",
            state="texas",
            postal_code="787011234",
            country="usa",
        )
    )
    assert (normal.city, normal.state, normal.postal_code, normal.country) == (
        "Austin",
        "TX",
        "78701-1234",
        "US",
    )
    with pytest.raises(BadRequest) as bad:
        await client.addresses.validate(AddressInput(state="Atlantis", country="US"))
    assert "state" in bad.value.field_errors()


async def test_address_validation_falls_back_to_v3(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        proxy.inject(Fault(status=404, path_prefix="/api/v4/address"))
        normal = await api.addresses.validate(
            AddressInput(city="toronto", state="Ontario", country="CA")
        )
        assert normal.state == "ON"
        await api.addresses.validate(AddressInput(city="Austin", state="TX"))
        assert proxy.count("POST", "/api/v4/address/validate") == 1
        assert proxy.count("POST", "/api/v3/address/validate") == 2
