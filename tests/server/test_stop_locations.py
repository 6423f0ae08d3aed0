"""Stop locations over real HTTP: create, read, replace, delete, list, search, tenants."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import select

from freightdesk.models.addresses import AddressInput
from freightdesk.models.stop_locations import StopLocationInput
from freightdesk.server.db import transaction
from freightdesk.server.domain.stop_locations import create_stop_location
from freightdesk.server.errors import ApiError
from freightdesk.server.tables.tenancy import Tenant
from tests.support import LiveService, TenantHandle

PATH = "/api/v4/stoplocations"


def location(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Austin DC",
        "address": {
            "addressLines": ["100 Congress Ave"],
            "city": "Austin",
            "state": "TX",
            "postalCode": "78701",
            "country": "US",
        },
        "openingHours": [
            {
                "appliesMonday": True,
                "appliesTuesday": True,
                "appliesWednesday": True,
                "appliesThursday": True,
                "appliesFriday": True,
                "opens": "07:00",
                "closes": "17:30",
            }
        ],
    }
    body.update(overrides)
    return body


def create(tenant: TenantHandle, **overrides: Any) -> dict[str, Any]:
    response = tenant.http.post(PATH, json=location(**overrides))
    assert response.status_code == 200, response.text
    return dict(response.json())


def page(tenant: TenantHandle, **params: Any) -> dict[str, Any]:
    response = tenant.http.get(PATH, params=params)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_create_answers_the_normalized_location_with_version_1(tenant: TenantHandle) -> None:
    response = tenant.http.post(
        PATH,
        json=location(
            name="  Austin DC ",
            address={
                "addressLines": ["  100 Congress Ave ", " "],
                "city": "AUSTIN",
                "state": "Texas",
                "postalCode": "787011234",
                "country": "USA",
            },
            coordinates={"latitude": 30.2672, "longitude": -97.7431},
            geofence={"type": "distance", "units": "miles", "value": 1.5},
            contacts=[{"contactId": "c-1", "type": "DOCK_MANAGER"}],
            suppliedId=" WH-1 ",
        ),
    )
    assert response.status_code == 200, response.text
    created = response.json()
    assert uuid.UUID(created["id"]) and created["version"] == 1
    assert created["name"] == "Austin DC"
    assert created["address"] == {
        "addressLines": ["100 Congress Ave"],
        "city": "Austin",
        "state": "TX",
        "postalCode": "78701-1234",
        "country": "US",
    }
    assert created["addressSpecificity"] == "HOUSE_NUMBER"
    assert created["geofence"] == {"type": "DISTANCE", "units": "MILES", "value": 1.5}
    assert created["suppliedId"] == "WH-1"
    assert created["coordinates"] == {"latitude": 30.2672, "longitude": -97.7431}
    assert created["openingHours"][0]["opens"] == "07:00"
    assert created["openingHours"][0]["appliesSaturday"] is False
    assert tenant.http.get(f"{PATH}/{created['id']}").json() == created


def test_address_specificity_follows_what_the_address_has(tenant: TenantHandle) -> None:
    at = {"latitude": 45.5, "longitude": -73.6}
    cases = [
        ({"addressLines": ["Dock 4, Main St"], "city": "Austin", "state": "TX"}, "STREET"),
        ({"postalCode": "H2Y 1C6", "country": "CA"}, "POSTAL_CODE"),
        ({"city": "Montreal", "country": "CA"}, "CITY"),
        ({"state": "QC", "country": "CA"}, "STATE"),
        ({"country": "CA"}, "COUNTRY"),
    ]
    for address, specificity in cases:
        created = create(tenant, address=address, coordinates=at)
        assert created["addressSpecificity"] == specificity, address


def test_read_back_and_send_again_is_accepted(tenant: TenantHandle) -> None:
    created = create(tenant, suppliedId="RT-1")
    again = tenant.http.put(f"{PATH}/{created['id']}", json=created)
    assert again.status_code == 200, again.text
    assert again.json() == {**created, "version": 2}


def test_every_save_increments_the_version(tenant: TenantHandle) -> None:
    created = create(tenant)
    url = f"{PATH}/{created['id']}"
    renamed = tenant.http.put(url, json=location(name="Austin North", version=1))
    assert renamed.status_code == 200 and renamed.json()["version"] == 2
    assert renamed.json()["name"] == "Austin North"
    # Saving the same content is still a save; without `version` the last write wins.
    same = tenant.http.put(url, json=location(name="Austin North"))
    assert same.json()["version"] == 3
    current = tenant.http.get(url).json()
    assert current["version"] == 3 and current["name"] == "Austin North"


def test_a_stale_version_is_a_conflict_that_names_the_current_one(tenant: TenantHandle) -> None:
    created = create(tenant)
    url = f"{PATH}/{created['id']}"
    assert tenant.http.put(url, json=location(name="Mine", version=1)).status_code == 200
    stale = tenant.http.put(url, json=location(name="Theirs", version=1))
    assert stale.status_code == 409
    body = stale.json()
    assert body["httpStatusCode"] == 409
    assert "you sent version 1" in body["errorMessage"]
    assert "current version is 2" in body["errorMessage"]
    assert body["errors"][0]["source"] == "version"
    assert body["errors"][0]["diagnostic"] == "stale_version"
    future = tenant.http.put(url, json=location(name="Theirs", version=7))
    assert future.status_code == 409
    assert tenant.http.get(url).json()["name"] == "Mine"


def _save_at_once(tenant: TenantHandle, url: str, bodies: list[dict[str, Any]]) -> list[int]:
    """PUTs every body at the same moment from its own connection; answers the statuses."""
    headers = dict(tenant.http.headers)
    statuses: list[int] = []
    start = threading.Barrier(len(bodies))

    def save(body: dict[str, Any]) -> None:
        with httpx.Client(headers=headers, timeout=30) as client:
            start.wait()
            statuses.append(client.put(url, json=body).status_code)

    threads = [threading.Thread(target=save, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return statuses


def test_concurrent_saves_of_one_version_let_exactly_one_win(tenant: TenantHandle) -> None:
    created = create(tenant)
    url = f"{tenant.service.url}{PATH}/{created['id']}"
    bodies = [location(name=f"Writer {n}", version=1) for n in range(4)]
    assert sorted(_save_at_once(tenant, url, bodies)) == [200, 409, 409, 409]
    assert tenant.http.get(url).json()["version"] == 2


def test_concurrent_saves_without_version_all_land(tenant: TenantHandle) -> None:
    created = create(tenant)
    url = f"{tenant.service.url}{PATH}/{created['id']}"
    bodies = [location(name=f"Writer {n}") for n in range(3)]
    assert _save_at_once(tenant, url, bodies) == [200, 200, 200]
    assert tenant.http.get(url).json()["version"] == 4


def test_update_checks(tenant: TenantHandle) -> None:
    created = create(tenant)
    url = f"{PATH}/{created['id']}"
    other_id = str(uuid.uuid4())
    mismatch = tenant.http.put(url, json=location(id=other_id))
    assert mismatch.status_code == 400
    assert mismatch.json()["errors"][0]["source"] == "id"
    invalid = tenant.http.put(url, json=location(name=" "))
    assert invalid.status_code == 400
    # A refused save changes nothing.
    assert tenant.http.get(url).json() == created
    missing = tenant.http.put(f"{PATH}/{other_id}", json=location())
    assert missing.status_code == 404


def test_delete_then_404(tenant: TenantHandle) -> None:
    created = create(tenant)
    url = f"{PATH}/{created['id']}"
    deleted = tenant.http.delete(url)
    assert deleted.status_code == 204 and deleted.content == b""
    assert tenant.http.get(url).status_code == 404
    assert tenant.http.put(url, json=location()).status_code == 404
    assert tenant.http.delete(url).status_code == 404
    assert page(tenant)["totalItems"] == 0
    not_found = tenant.http.get(url).json()
    assert not_found["httpStatusCode"] == 404 and created["id"] in not_found["errorMessage"]


def test_malformed_ids_are_refused(tenant: TenantHandle) -> None:
    for method in ("GET", "PUT", "DELETE"):
        response = tenant.http.request(method, f"{PATH}/not-a-uuid", json=location())
        assert response.status_code == 400, method
        assert response.json()["errors"][0]["source"] == "id"
    # Any spelling of a uuid finds the location.
    created = create(tenant)
    assert tenant.http.get(f"{PATH}/{created['id'].upper()}").json()["id"] == created["id"]


def test_paging_is_stable_by_name_then_id(tenant: TenantHandle) -> None:
    names = ["delta", "Alpha", "charlie", "Bravo", "echo", "alpha", "Foxtrot"]
    for name in names:
        create(tenant, name=name)
    first = page(tenant)
    assert (first["offset"], first["pageSize"], first["totalItems"]) == (0, 10, 7)
    seen: list[dict[str, Any]] = []
    for offset in range(0, 9, 3):
        chunk = page(tenant, offset=offset, pageSize=3)
        assert chunk["offset"] == offset and chunk["pageSize"] == 3
        assert chunk["totalItems"] == 7
        seen += chunk["locations"]
    assert len(seen) == 7 and len({item["id"] for item in seen}) == 7
    assert [item["name"].lower() for item in seen] == sorted(n.lower() for n in names)
    alphas = [item for item in seen if item["name"].lower() == "alpha"]
    assert [a["id"] for a in alphas] == sorted(a["id"] for a in alphas)
    beyond = page(tenant, offset=50)
    assert beyond["locations"] == [] and beyond["totalItems"] == 7
    assert page(tenant, offset=2**63 - 1)["locations"] == []
    assert len(page(tenant, pageSize=500)["locations"]) == 7


def test_paging_bounds(tenant: TenantHandle) -> None:
    for params, source in [
        ({"offset": -1}, "offset"),
        ({"offset": "x"}, "offset"),
        ({"offset": 2**63}, "offset"),
        ({"pageSize": 0}, "pageSize"),
        ({"pageSize": 501}, "pageSize"),
        ({"q": "x" * 201}, "q"),
        ({"q": "a\x00b"}, "q"),
    ]:
        response = tenant.http.get(PATH, params=params)
        assert response.status_code == 400, params
        assert response.json()["errors"][0]["source"] == source


def test_search_matches_name_supplied_id_city_and_postal_code(tenant: TenantHandle) -> None:
    toronto = create(
        tenant,
        name="Maple Yard",
        address={
            "addressLines": ["1 Front St"],
            "city": "Toronto",
            "state": "ON",
            "postalCode": "M5V 3L9",
            "country": "CA",
        },
        suppliedId="CA_TOR%01",
    )
    austin = create(tenant, name="Lone Star Dock", suppliedId="TX-7")
    create(
        tenant,
        name="Other",
        address={
            "addressLines": ["9 Rail Way"],
            "city": "Reno",
            "state": "NV",
            "postalCode": "89501",
        },
        suppliedId="ZZ",
    )

    def ids(q: str) -> list[str]:
        return [item["id"] for item in page(tenant, q=q)["locations"]]

    assert ids("MAPLE") == [toronto["id"]]
    assert ids("toron") == [toronto["id"]]
    assert ids("m5v 3l9") == [toronto["id"]]
    assert ids("M5V3L9") == [toronto["id"]]
    assert ids("tx-7") == [austin["id"]]
    assert ids("78701") == [austin["id"]]
    # Wildcards are taken literally.
    assert ids("%01") == [toronto["id"]]
    assert ids("_TOR") == [toronto["id"]]
    assert ids("%") == [toronto["id"]]
    assert ids("nothing like it") == []
    assert page(tenant, q="  ")["totalItems"] == 3
    filtered = page(tenant, q="o", pageSize=1)
    assert filtered["totalItems"] == 3 and len(filtered["locations"]) == 1


def test_supplied_id_is_unique_per_tenant(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    first = create(tenant, suppliedId="WH-9")
    duplicate = tenant.http.post(PATH, json=location(suppliedId="WH-9"))
    assert duplicate.status_code == 409
    assert duplicate.json()["errors"][0]["source"] == "suppliedId"
    second = create(tenant, suppliedId="WH-10")
    taken = tenant.http.put(f"{PATH}/{second['id']}", json=location(suppliedId="WH-9"))
    assert taken.status_code == 409
    # Keeping one's own suppliedId is fine; so are many locations without one.
    assert tenant.http.put(f"{PATH}/{first['id']}", json=location(suppliedId="WH-9")).is_success
    for blank in (" ", "", None):
        assert "suppliedId" not in create(tenant, suppliedId=blank)
    # Another tenant may use the same one.
    other = tenant_factory()
    assert other.http.post(PATH, json=location(suppliedId="WH-9")).status_code == 200


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    mine = create(tenant, name="Secret Yard")
    other = tenant_factory()
    url = f"{PATH}/{mine['id']}"
    assert other.http.get(url).status_code == 404
    assert other.http.put(url, json=location(name="Hijacked")).status_code == 404
    assert other.http.delete(url).status_code == 404
    assert page(other) == {"locations": [], "offset": 0, "pageSize": 10, "totalItems": 0}
    assert page(other, q="Secret")["totalItems"] == 0
    assert tenant.http.get(url).json() == mine


def test_needs_credentials(service: LiveService) -> None:
    assert httpx.get(f"{service.url}{PATH}").status_code == 401
    assert httpx.post(f"{service.url}{PATH}", json=location()).status_code == 401


def test_the_domain_function_creates_what_the_api_shows(tenant: TenantHandle) -> None:
    body = StopLocationInput(
        name="Generated",
        address=AddressInput(
            address_lines=["5 Dock Rd"], city="reno", state="Nevada", postal_code="89501"
        ),
        supplied_id="GEN-1",
    )
    sessions = tenant.service.context.sessions
    with transaction(sessions) as session:
        tenant_id = session.scalar(select(Tenant.id).where(Tenant.uuid == tenant.uuid))
        assert tenant_id is not None
        created = create_stop_location(session, tenant_id, body)
    assert created.version == 1 and created.address.state == "NV"
    assert created.address.city == "Reno"
    shown = tenant.http.get(f"{PATH}/{created.id}").json()
    assert shown["suppliedId"] == "GEN-1" and shown["version"] == 1
    # Its refusals are the same ApiError the API answers with.
    try:
        with transaction(sessions) as session:
            create_stop_location(session, tenant_id, body)
    except ApiError as refused:
        assert refused.status == 409
    else:
        raise AssertionError("a duplicate suppliedId was accepted")
