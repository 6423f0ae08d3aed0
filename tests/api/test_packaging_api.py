"""The packaging client against the real local service: create, read, replace with a status
move, search by every filter and page by page, delete by id and by identifier."""

from __future__ import annotations

from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, Conflict, NotFound, ServerError
from freightdesk.api.packaging import PATH
from freightdesk.models.packaging import PackageSearch, PackageStatus, PackageWrite
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle


def package(number: str, *, sku: str = "SKU-1", **fields: Any) -> PackageWrite:
    body: dict[str, Any] = {
        "items": [
            {
                "identifiers": [{"type": "SKU", "value": sku}],
                "orderIdentifier": {"type": "PURCHASE_ORDER", "value": f"PO-{number}"},
                "unitQuantity": 4,
            }
        ],
        "identifiers": [{"type": "OLPN", "value": f"OLPN-{number}"}],
        "isStackable": True,
        "package": {
            "type": "PALLET",
            "dimensions": {"length": 48, "width": 40, "height": 50, "unit": "IN"},
            "weight": {"value": 420, "unit": "LB"},
        },
        "originLocation": {"address": {"city": "Chicago", "state": "IL", "postalCode": "60607"}},
        "destinationLocation": {
            "address": {"city": "Toronto", "state": "ON", "postalCode": "M5V 3L9", "country": "CA"}
        },
    }
    body.update(fields)
    return PackageWrite.model_validate(body)


async def test_create_read_replace_delete(client: ApiClient) -> None:
    created = await client.packaging.create(package("1"))
    assert created.status is PackageStatus.UNASSIGNED and created.is_stackable
    assert await client.packaging.get(created.id) == created
    assigned = await client.packaging.put(
        created.id, package("1", status="ASSIGNED", isStackable=False)
    )
    assert assigned.status is PackageStatus.ASSIGNED and not assigned.is_stackable
    confirmed = await client.packaging.put(
        created.id, package("1", status="CONFIRMED", isStackable=False)
    )
    assert confirmed.status is PackageStatus.CONFIRMED
    # The contents of a confirmed package are fixed.
    with pytest.raises(Conflict) as refused:
        await client.packaging.put(created.id, package("1", status="CONFIRMED"))
    assert "status" in refused.value.field_errors()
    deleted = await client.packaging.delete(created.id)
    assert deleted.id == created.id and deleted.identifiers[0].value == "OLPN-1"
    with pytest.raises(NotFound):
        await client.packaging.get(created.id)
    other = await client.packaging.create(package("2"))
    gone = await client.packaging.delete_by_identifier("OLPN", "OLPN-2")
    assert gone.id == other.id
    with pytest.raises(NotFound):
        await client.packaging.delete_by_identifier("OLPN", "OLPN-2")


async def test_refusals_name_the_field(client: ApiClient) -> None:
    await client.packaging.create(package("D"))
    with pytest.raises(Conflict) as duplicate:
        await client.packaging.create(package("D"))
    assert "identifiers[0]" in duplicate.value.field_errors()
    with pytest.raises(BadRequest) as bad:
        await client.packaging.page(PackageSearch(identifier_type="OLPN"))
    assert "identifier.value" in bad.value.field_errors()


async def test_search_by_every_filter_and_page(client: ApiClient, api_tenant: TenantHandle) -> None:
    for n in range(5):
        await client.packaging.create(
            package(
                str(n),
                sku="SKU-EVEN" if n % 2 == 0 else "SKU-ODD",
                originLocation={
                    "address": {"city": "Austin" if n < 2 else "Chicago", "state": "TX"}
                },
            )
        )
    first = await client.packaging.page(page_size=2)
    assert first.pagination_info.total == 5
    assert [p.identifiers[0].value for p in first.results] == ["OLPN-4", "OLPN-3"]
    every = [p.identifiers[0].value async for p in client.packaging.search(page_size=2)]
    assert every == [f"OLPN-{n}" for n in (4, 3, 2, 1, 0)]

    async def found(**filters: str) -> list[str]:
        search = PackageSearch(**filters)
        return sorted([p.identifiers[0].value async for p in client.packaging.search(search)])

    assert await found(identifier_type="OLPN", identifier_value="OLPN-3") == ["OLPN-3"]
    assert await found(sku_identifier="SKU-ODD") == ["OLPN-1", "OLPN-3"]
    assert await found(origin_city=" austin ") == ["OLPN-0", "OLPN-1"]
    assert len(await found(origin_state="tx", origin_country="US")) == 5
    assert await found(origin_postal_code="99999") == []
    assert len(await found(destination_city="Toronto", destination_state="ON")) == 5
    assert len(await found(destination_country="CA", destination_postal_code="m5v3l9")) == 5
    assert len(await found(shipper_tenant_uuid=api_tenant.uuid)) == 5
    assert await found(shipper_tenant_uuid="00000000-0000-0000-0000-000000000000") == []
    assert await found(shipper_tenant_id="nobody") == []
    search = PackageSearch(origin_city="Austin", sku_identifier=" ")
    assert search.params() == {"origin.city": "Austin"}
    assert PackageSearch.from_params(search.params()) == PackageSearch(origin_city="Austin")


async def test_a_create_is_not_retried_blindly(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        proxy.inject(Fault(status=503, path_prefix=PATH))
        with pytest.raises(ServerError):
            await api.packaging.create(package("R"))
        assert proxy.count("POST", PATH) == 1
        created = await api.packaging.create(package("R"))
        item = f"{PATH}/{created.id}"
        proxy.inject(Fault(status=503, path_prefix=item))
        replaced = await api.packaging.put(created.id, package("R", isStackable=False))
        assert not replaced.is_stackable and proxy.count("PUT", item) == 2
