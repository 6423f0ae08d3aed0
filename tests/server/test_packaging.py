"""Packaging over real HTTP: create, search, replace with status workflow, soft delete."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.support import TenantHandle

PATH = "/services/booking/v1/packaging"


def package_body(
    number: str = "DN-1",
    *,
    sku: str = "SKU-RED-42",
    origin: dict[str, Any] | None = None,
    destination: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "items": [
            {
                "identifiers": [{"type": "SKU", "value": sku}],
                "orderIdentifier": {"type": "PURCHASE_ORDER", "value": f"PO-{number}"},
                "unitQuantity": 12,
            }
        ],
        "identifiers": [
            {"type": "DELIVERY_NUMBER", "value": number},
            {"type": "OLPN", "value": f"00{number}"},
        ],
        "package": {
            "type": "PALLET",
            "dimensions": {"length": 48, "width": 40, "height": 50, "unit": "IN"},
            "weight": {"value": 820, "unit": "LB"},
            "volume": {"value": 55.6, "unit": "CUBIC_FT"},
        },
        "originLocation": origin
        or {
            "name": "Joliet DC",
            "address": {
                "addressLines": ["2000 Channahon Rd"],
                "city": "Joliet",
                "state": "IL",
                "postalCode": "60436",
                "country": "US",
            },
            "timeZone": "America/Chicago",
        },
        "destinationLocation": destination
        or {
            "name": "Toronto store",
            "address": {"city": "Toronto", "state": "ON", "postalCode": "M5V 3L9", "country": "CA"},
        },
    }
    body.update(extra)
    return body


def create(tenant: TenantHandle, **kwargs: Any) -> dict[str, Any]:
    response = tenant.http.post(PATH, json=package_body(**kwargs))
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def test_create_get_defaults(tenant: TenantHandle) -> None:
    created = create(tenant)
    assert uuid.UUID(created["id"])
    assert created["status"] == "UNASSIGNED"
    assert created["isStackable"] is False
    assert created["accessorials"] == []
    assert created["createdDateTime"] and created["lastModifiedDateTime"]
    assert created["items"][0]["unitQuantity"] == 12
    fetched = tenant.http.get(f"{PATH}/{created['id']}")
    assert fetched.status_code == 200
    assert fetched.json() == created


def test_accessorials_round_trip_and_rules(tenant: TenantHandle) -> None:
    accessorials = [
        {
            "type": "REFRIGERATED",
            "temperatureRange": {"minimum": 2, "maximum": 8, "unit": "CELSIUS"},
        },
        {"type": "LIFTGATE", "stop": "DELIVERY"},
        {
            "type": "HAZMAT",
            "hazmatDetail": {
                "unNumber": "un 1203",
                "hazardClass": "3",
                "packingGroup": "II",
                "properShippingName": "Gasoline",
            },
        },
    ]
    created = create(tenant, accessorials=accessorials, isStackable=True)
    assert created["isStackable"] is True
    assert created["accessorials"][2]["hazmatDetail"]["unNumber"] == "UN1203"
    bad = [
        ([{"type": "REFRIGERATED"}], "accessorials[0]"),
        ([{"type": "HAZMAT"}], "accessorials[0]"),
        ([{"type": "LIFTGATE", "temperatureRange": accessorials[0]["temperatureRange"]}], None),
        ([{"type": "LIFTGATE"}, {"type": "LIFTGATE"}], "accessorials"),
        ([{"type": "FORKLIFT"}], "accessorials[0].type"),
    ]
    for number, (value, source) in enumerate(bad):
        response = tenant.http.post(PATH, json=package_body(f"BAD-{number}", accessorials=value))
        assert response.status_code == 400, value
        if source:
            assert response.json()["errors"][0]["source"] == source


@pytest.mark.parametrize(
    ("change", "source"),
    [
        ({"items": []}, "items"),
        ({"identifiers": []}, "identifiers"),
        ({"items": None}, "items"),
        ({"status": "ASSIGNED"}, "status"),
        ({"id": str(uuid.uuid4())}, "id"),
        ({"items": [{"unitQuantity": 0}]}, "items[0].unitQuantity"),
        ({"package": {"weight": {"value": 10, "unit": "TONS"}}}, "package.weight.unit"),
        ({"package": {"volume": {"value": 1, "unit": "LITRE"}}}, "package.volume.unit"),
        ({"originLocation": {"timeZone": "Mars/Olympus"}}, "originLocation.timeZone"),
        # A folder of the tz database, not a zone (was a 500).
        ({"destinationLocation": {"timeZone": "America"}}, "destinationLocation.timeZone"),
        (
            {"identifiers": [{"type": "OLPN", "value": "1"}, {"type": "OLPN", "value": "1"}]},
            "identifiers",
        ),
        ({"identifiers": [{"type": "OLPN", "value": "x" * 201}]}, "identifiers[0].value"),
    ],
)
def test_bad_bodies_name_the_field(
    tenant: TenantHandle, change: dict[str, Any], source: str
) -> None:
    body = package_body()
    body.update(change)
    response = tenant.http.post(PATH, json=body)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["httpStatusCode"] == 400
    assert error["errors"][0]["source"] == source


def test_identifiers_name_one_live_package(tenant: TenantHandle) -> None:
    first = create(tenant, number="DN-7")
    again = tenant.http.post(PATH, json=package_body("DN-7"))
    assert again.status_code == 409
    assert again.json()["errors"][0]["source"] == "identifiers[0]"
    # After a delete the identifier is free again.
    deleted = tenant.http.delete(PATH, params={"id": first["id"]})
    assert deleted.status_code == 200
    assert tenant.http.post(PATH, json=package_body("DN-7")).status_code == 200


def test_put_replaces_and_walks_the_workflow(tenant: TenantHandle) -> None:
    created = create(tenant, number="DN-20")
    url = f"{PATH}/{created['id']}"
    body = package_body("DN-20", isStackable=True)
    replaced = tenant.http.put(url, json=body)
    assert replaced.status_code == 200
    assert replaced.json()["isStackable"] is True
    assert replaced.json()["status"] == "UNASSIGNED"
    assert replaced.json()["createdDateTime"] == created["createdDateTime"]

    skip = tenant.http.put(url, json={**body, "status": "CONFIRMED"})
    assert skip.status_code == 409
    assert skip.json()["errors"][0]["source"] == "status"
    for status in ("ASSIGNED", "UNASSIGNED", "ASSIGNED", "CONFIRMED"):
        step = tenant.http.put(url, json={**body, "status": status})
        assert step.status_code == 200, step.text
        assert step.json()["status"] == status
    # Without status the package keeps it; a confirmed package's contents are fixed.
    same = tenant.http.put(url, json=body)
    assert same.status_code == 200 and same.json()["status"] == "CONFIRMED"
    changed = tenant.http.put(url, json={**body, "isStackable": False})
    assert changed.status_code == 409
    assert tenant.http.put(url, json={**body, "status": "ASSIGNED"}).status_code == 409
    released = tenant.http.put(url, json={**body, "isStackable": False, "status": "UNASSIGNED"})
    assert released.status_code == 200
    assert released.json()["isStackable"] is False
    assert tenant.http.get(url).json()["status"] == "UNASSIGNED"


def test_put_unknown_and_bad_ids(tenant: TenantHandle) -> None:
    missing = tenant.http.put(f"{PATH}/{uuid.uuid4()}", json=package_body())
    assert missing.status_code == 404
    bad = tenant.http.get(f"{PATH}/not-a-uuid")
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["source"] == "packageId"


def test_delete_by_id_and_by_identifier(tenant: TenantHandle) -> None:
    one = create(tenant, number="DN-30")
    two = create(tenant, number="DN-31")
    by_id = tenant.http.delete(PATH, params={"id": one["id"]})
    assert by_id.status_code == 200
    assert by_id.json() == {"id": one["id"], "identifiers": one["identifiers"]}
    assert tenant.http.get(f"{PATH}/{one['id']}").status_code == 404
    assert tenant.http.put(f"{PATH}/{one['id']}", json=package_body("DN-30")).status_code == 404
    assert tenant.http.delete(PATH, params={"id": one["id"]}).status_code == 404

    by_identifier = tenant.http.delete(
        PATH, params={"identifier.type": "OLPN", "identifier.value": "00DN-31"}
    )
    assert by_identifier.status_code == 200
    assert by_identifier.json()["id"] == two["id"]
    assert tenant.http.get(PATH).json()["paginationInfo"]["total"] == 0
    gone = tenant.http.delete(
        PATH, params={"identifier.type": "OLPN", "identifier.value": "00DN-31"}
    )
    assert gone.status_code == 404


def test_delete_needs_exactly_one_way(tenant: TenantHandle) -> None:
    assert tenant.http.delete(PATH).status_code == 400
    half = tenant.http.delete(PATH, params={"identifier.type": "OLPN"})
    assert half.status_code == 400
    assert half.json()["errors"][0]["source"] == "identifier.value"
    both = tenant.http.delete(
        PATH,
        params={"id": str(uuid.uuid4()), "identifier.type": "OLPN", "identifier.value": "1"},
    )
    assert both.status_code == 400
    assert tenant.http.delete(PATH, params={"id": "nope"}).json()["errors"][0]["source"] == "id"


def test_search_filters(tenant: TenantHandle) -> None:
    a = create(tenant, number="A-1", sku="SKU-A")
    b = create(
        tenant,
        number="B-1",
        sku="SKU-B",
        origin={
            "address": {"city": "Dallas", "state": "TX", "postalCode": "75201", "country": "US"}
        },
        destination={
            "address": {"city": "Monterrey", "state": "NL", "postalCode": "64000", "country": "MX"}
        },
    )

    def ids(**params: Any) -> list[str]:
        response = tenant.http.get(PATH, params=params)
        assert response.status_code == 200, response.text
        return [p["id"] for p in response.json()["results"]]

    assert ids() == [b["id"], a["id"]]  # newest first
    assert ids(**{"identifier.type": "DELIVERY_NUMBER", "identifier.value": "A-1"}) == [a["id"]]
    assert ids(**{"identifier.type": "DELIVERY_NUMBER", "identifier.value": "a-1"}) == []
    assert ids(**{"identifier.type": "OLPN", "identifier.value": "A-1"}) == []
    assert ids(skuIdentifier="SKU-B") == [b["id"]]
    assert ids(skuIdentifier="SKU-C") == []
    assert ids(**{"origin.city": "dallas"}) == [b["id"]]
    assert ids(**{"origin.state": "IL"}) == [a["id"]]
    assert ids(**{"origin.country": "us"}) == [b["id"], a["id"]]
    assert ids(**{"origin.postalCode": "60436"}) == [a["id"]]
    assert ids(**{"destination.city": "Toronto"}) == [a["id"]]
    assert ids(**{"destination.state": "NL"}) == [b["id"]]
    assert ids(**{"destination.country": "MX"}) == [b["id"]]
    assert ids(**{"destination.postalCode": "m5v3l9"}) == [a["id"]]
    assert ids(**{"origin.city": "Dallas", "destination.country": "CA"}) == []
    assert ids(shipperTenantUuid=tenant.uuid) == [b["id"], a["id"]]
    assert ids(shipperTenantUuid=str(uuid.uuid4())) == []
    assert ids(shipperTenantId="999999999") == []


def test_search_paging_bounds(tenant: TenantHandle) -> None:
    made = [create(tenant, number=f"P-{n}")["id"] for n in range(3)]
    page = tenant.http.get(PATH, params={"pageSize": 2, "pageNumber": 2}).json()
    assert page["paginationInfo"] == {"pageNumber": 2, "pageSize": 2, "total": 3}
    assert [p["id"] for p in page["results"]] == [made[0]]
    default = tenant.http.get(PATH).json()["paginationInfo"]
    assert default == {"pageNumber": 1, "pageSize": 10, "total": 3}
    assert tenant.http.get(PATH, params={"pageSize": 100}).status_code == 200
    for params, source in [
        ({"pageSize": 0}, "pageSize"),
        ({"pageSize": 101}, "pageSize"),
        ({"pageNumber": 0}, "pageNumber"),
        ({"pageNumber": "x"}, "pageNumber"),
        ({"shipperTenantUuid": "nope"}, "shipperTenantUuid"),
        ({"identifier.value": "1"}, "identifier.type"),
    ]:
        response = tenant.http.get(PATH, params=params)
        assert response.status_code == 400, params
        assert response.json()["errors"][0]["source"] == source


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    mine = create(tenant, number="ISO-1")
    assert other.http.get(PATH).json()["paginationInfo"]["total"] == 0
    assert other.http.get(f"{PATH}/{mine['id']}").status_code == 404
    assert other.http.put(f"{PATH}/{mine['id']}", json=package_body("ISO-1")).status_code == 404
    assert other.http.delete(PATH, params={"id": mine["id"]}).status_code == 404
    by_identifier = other.http.delete(
        PATH, params={"identifier.type": "DELIVERY_NUMBER", "identifier.value": "ISO-1"}
    )
    assert by_identifier.status_code == 404
    # The same identifier is free in another tenant.
    assert other.http.post(PATH, json=package_body("ISO-1")).status_code == 200
    assert tenant.http.get(f"{PATH}/{mine['id']}").status_code == 200
