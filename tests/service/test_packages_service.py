"""Packages for the app against the real local service (plain asyncio): the rules and the
status workflow checked before sending, the search page, writes shown at once, delete."""

from __future__ import annotations

from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import Conflict, NotFound
from freightdesk.models.packaging import Package, PackageSearch, PackageStatus, PackageWrite
from freightdesk.service.packages import (
    PackagesService,
    as_write,
    check_identifier,
    check_package,
    matches,
)
from tests.service.conftest import OpenService


@pytest.fixture
def packages(open_service: OpenService) -> PackagesService:
    return open_service(PackagesService)


def _wire(number: str, city: str = "Chicago", **changes: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "items": [
            {
                "identifiers": [{"type": "SKU", "value": f"SKU-{number}"}],
                "orderIdentifier": {"type": "PURCHASE_ORDER", "value": f"PO-{number}"},
                "unitQuantity": 3,
            }
        ],
        "identifiers": [{"type": "DELIVERY_NUMBER", "value": f"D-{number}"}],
        "package": {"type": "PALLET", "weight": {"value": 300, "unit": "LB"}},
        "originLocation": {"address": {"city": city, "state": "IL", "country": "US"}},
    }
    wire.update(changes)
    return wire


def test_rules_are_checked_before_sending() -> None:
    package, problems = check_package(_wire("1"))
    assert package is not None and problems == {}
    _, problems = check_package(_wire("1", items=[], identifiers=[]))
    assert set(problems) == {"items", "identifiers"}
    _, problems = check_package(
        _wire(
            "1",
            items=[{"unitQuantity": 0, "orderIdentifier": {"type": "PO", "value": ""}}],
            accessorials=[{"type": "HAZMAT"}, {"type": "REFRIGERATED", "temperatureRange": {
                "minimum": 5, "maximum": 2, "unit": "CELSIUS"}}],
            package={"type": "PALLET", "weight": {"value": -1, "unit": "LB"}},
            originLocation={"timeZone": "Mars/Base"},
            colour="red",
        )
    )  # fmt: skip
    assert set(problems) == {
        "items[0].orderIdentifier.value",
        "items[0].unitQuantity",
        "accessorials[0]",
        "accessorials[1].temperatureRange",
        "package.weight.value",
        "originLocation.timeZone",
        "colour",
    }
    _, problems = check_package(_wire("1", status="CONFIRMED"))
    assert "starts UNASSIGNED" in problems["status"]


async def test_search_writes_workflow_and_delete(
    packages: PackagesService, client: ApiClient
) -> None:
    for n, city in enumerate(["Chicago", "Austin", "Chicago"]):
        body, _ = check_package(_wire(str(n), city))
        assert body is not None
        await client.packaging.create(body)
    listing = await packages.show({"origin.city": "chicago", "pageNumber": 1, "pageSize": 25})
    assert [p.identifiers[0].value for p in listing.items] == ["D-2", "D-0"]
    # A new package that fits the search goes to the top at once; one that does not, not.
    body, _ = check_package(_wire("3", "Chicago"))
    assert body is not None
    created = await packages.save(body)
    assert [p.identifiers[0].value for p in packages.coordinator.data.items] == [  # type: ignore[union-attr]
        "D-3",
        "D-2",
        "D-0",
    ]
    elsewhere, _ = check_package(_wire("4", "Austin"))
    assert elsewhere is not None
    await packages.save(elsewhere)
    assert packages.coordinator.data.total == 3  # type: ignore[union-attr]
    # The workflow: the form offers only the moves the service takes.
    edit = as_write(created)
    edit["status"] = "CONFIRMED"
    _, problems = check_package(edit, created)
    assert problems == {
        "status": "A UNASSIGNED package cannot become CONFIRMED; from UNASSIGNED it can become "
        "ASSIGNED"
    }
    edit["status"] = "ASSIGNED"
    assigned_body, _ = check_package(edit, created)
    assert assigned_body is not None
    assigned = await packages.save(assigned_body, created.id)
    assert assigned.status is PackageStatus.ASSIGNED
    assert packages.coordinator.data.items[0].status is PackageStatus.ASSIGNED  # type: ignore[union-attr]
    edit["status"] = "CONFIRMED"
    confirmed_body, _ = check_package(edit, assigned)
    assert confirmed_body is not None
    confirmed = await packages.save(confirmed_body, created.id)
    changed = as_write(confirmed)
    changed["isStackable"] = True
    _, problems = check_package(changed, confirmed)
    assert "cannot be changed" in problems["status"]
    # The service says the same when asked anyway.
    with pytest.raises(Conflict):
        await client.packaging.put(created.id, PackageWrite.model_validate(changed))
    # Delete: gone from the list at once; deleting again is not an error.
    deleted = await packages.delete(created.id)
    assert deleted is not None and deleted.identifiers[0].value == "D-3"
    assert packages.coordinator.data.total == 2  # type: ignore[union-attr]
    assert await packages.delete(created.id) is None


async def test_delete_by_identifier(packages: PackagesService, client: ApiClient) -> None:
    assert check_identifier(" ", "D-1") == {
        "identifier.type": "is required together with identifier.value"
    }
    assert set(check_identifier("", "")) == {"identifier.type", "identifier.value"}
    assert check_identifier("DELIVERY_NUMBER", "D-1") == {}
    for n in range(2):
        body, _ = check_package(_wire(str(n)))
        assert body is not None
        await client.packaging.create(body)
    await packages.show({"pageNumber": 1, "pageSize": 25})
    # The package with the identifier goes, from the list too; the other stays.
    deleted = await packages.delete_by_identifier("DELIVERY_NUMBER ", " D-1")
    assert [i.value for i in deleted.identifiers] == ["D-1"]
    listed = packages.coordinator.data
    assert listed is not None and [p.identifiers[0].value for p in listed.items] == ["D-0"]
    with pytest.raises(NotFound):
        await client.packaging.get(deleted.id)
    # Nothing has it any more: the user is told, not silently satisfied.
    with pytest.raises(NotFound):
        await packages.delete_by_identifier("DELIVERY_NUMBER", "D-1")
    # The value is exact: another case names another identifier.
    with pytest.raises(NotFound):
        await packages.delete_by_identifier("DELIVERY_NUMBER", "d-0")
    assert listed.total == 1


def test_matches_follows_the_services_filters() -> None:
    package, _ = check_package(_wire("9", "St. Louis"))
    assert package is not None
    saved = Package.model_validate({**package.wire(), "id": "6b0f1c0e-8d3a-4f7e-9a51-0c2b7d7e9e10"})
    assert matches(saved, PackageSearch(origin_city=" st.  louis ", origin_state="il"))
    assert matches(saved, PackageSearch(sku_identifier="SKU-9"))
    assert not matches(saved, PackageSearch(sku_identifier="SKU-1"))
    assert matches(saved, PackageSearch(identifier_type="DELIVERY_NUMBER", identifier_value="D-9"))
    assert not matches(saved, PackageSearch(destination_city="Austin"))
    assert not matches(saved, PackageSearch(origin_postal_code="60607"))
