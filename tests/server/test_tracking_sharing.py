"""Sharing tracked shipments between tenants, and tenant isolation of every tracking route."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import httpx

from tests.server.test_tracking_support import (
    PUT,
    SEARCH,
    air_body,
    create,
    journal,
    route,
    shipment_path,
    sources,
)
from tests.support import TenantHandle

READS = ("tracking", "tracking/history", "eventhistory", "positionhistory", "attributes")


def _share(owner: TenantHandle, shipment_id: str, recipient: TenantHandle) -> httpx.Response:
    return owner.http.post(
        shipment_path(shipment_id, "shares"), json={"tenantUuid": recipient.uuid}
    )


def test_recipient_reads_but_cannot_change_or_delete(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    shipment = create(
        tenant,
        air_body(attributes=[{"name": "customer", "value": "Acme"}], routeInfo=route("A", "B")),
    )
    sid = shipment["id"]
    shared = _share(tenant, sid, other)
    assert shared.status_code == 201, shared.text
    context = shared.json()
    assert context["dataOriginators"] == [{"tenantName": tenant.name, "tenantUuid": tenant.uuid}]
    assert [r["tenantUuid"] for r in context["recipients"]] == [other.uuid]
    assert _share(tenant, sid, other).status_code == 200  # already shared

    for tail in READS:
        assert other.http.get(shipment_path(sid, tail)).status_code == 200, tail
    assert other.http.get(shipment_path(sid, "attributes")).json()[0]["attributeName"] == "customer"
    history = other.http.get(shipment_path(sid, "tracking/history")).json()
    assert history["sharingContext"]["recipients"][0]["tenantName"] == other.name
    own_view = tenant.http.get(shipment_path(sid, "eventhistory")).json()["sharingContext"]
    assert own_view["recipients"][0]["tenantUuid"] == other.uuid

    # Interface rule 1: DELETE of a shipment shared with the caller is 404.
    assert other.http.delete(shipment_path(sid)).status_code == 404
    assert other.http.put(PUT, json={**shipment, "attributes": []}).status_code == 404
    assert _share(other, sid, tenant).status_code == 404
    assert tenant.http.get(shipment_path(sid)).status_code == 200

    found = other.http.post(SEARCH, json={"text": "020"}).json()["results"]
    assert [r["id"] for r in found] == [sid]
    assert found[0]["sharedBy"] == {"tenantName": tenant.name, "tenantUuid": tenant.uuid}
    assert "sharedBy" not in tenant.http.post(SEARCH, json={}).json()["results"][0]
    kinds = [kind for kind, _ in journal(tenant, sid)]
    assert kinds.count("shipment.shared") == 1


def test_unsharing_and_deleting_reach_the_recipients_sync(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    first = create(tenant, air_body("020-1"))["id"]
    second = create(tenant, air_body("020-2"))["id"]
    for sid in (first, second):
        assert _share(tenant, sid, other).status_code == 201
    mark = other.http.post(SEARCH, json={}).json()["results"][0]["lastModifiedDateTime"]

    assert tenant.http.delete(shipment_path(first, f"shares/{other.uuid}")).status_code == 204
    assert tenant.http.delete(shipment_path(first, f"shares/{other.uuid}")).status_code == 404
    assert tenant.http.delete(shipment_path(second)).status_code == 202
    for sid in (first, second):
        assert other.http.get(shipment_path(sid)).status_code == 404
    delta = other.http.post(SEARCH, json={"lastModifiedAfter": mark}).json()
    assert delta["results"] == []
    assert sorted(delta["removedIds"]) == sorted([first, second])
    # Shared again, it is back.
    assert _share(tenant, first, other).status_code == 201
    assert other.http.get(shipment_path(first)).status_code == 200


def test_carriers_do_not_see_attributes(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    carrier = tenant_factory("CARRIER")
    sid = create(tenant, air_body(attributes=[{"name": "margin", "value": "12%"}]))["id"]
    assert _share(tenant, sid, carrier).status_code == 201
    assert carrier.http.get(shipment_path(sid, "attributes")).json() == []
    assert carrier.http.get(shipment_path(sid)).json()["attributes"] == []
    # A shipper tenant calling with the carrier role header is treated the same way.
    shipper = tenant_factory()
    assert _share(tenant, sid, shipper).status_code == 201
    with shipper.as_role("CARRIER") as as_carrier:
        assert as_carrier.get(shipment_path(sid, "attributes")).json() == []
    assert shipper.http.get(shipment_path(sid, "attributes")).json() != []


def test_share_refusals(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]
    path = shipment_path(sid, "shares")
    assert sources(tenant.http.post(path, json={"tenantUuid": tenant.uuid})) == ["tenantUuid"]
    unknown = tenant.http.post(path, json={"tenantUuid": str(uuid.uuid4())})
    assert sources(unknown) == ["tenantUuid"]
    assert sources(tenant.http.post(path, json={"tenantUuid": "nope"})) == ["tenantUuid"]
    misspelt = tenant.http.post(path, json={"tenant": tenant.uuid})
    assert set(sources(misspelt)) == {"tenantUuid", "tenant"}
    missing = shipment_path(str(uuid.uuid4()), "shares")
    assert tenant.http.post(missing, json={"tenantUuid": tenant.uuid}).status_code == 404


def test_foreign_ids_answer_404_everywhere(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    shipment = create(tenant, air_body())
    sid = shipment["id"]
    for tail in READS:
        answer = other.http.get(shipment_path(sid, tail))
        assert answer.status_code == 404, tail
        assert answer.json()["errorMessage"] == f"Shipment {sid} was not found"
    assert other.http.delete(shipment_path(sid)).status_code == 404
    assert other.http.put(PUT, json={**shipment, "attributes": []}).status_code == 404
    assert _share(other, sid, other).status_code == 404
    assert other.http.delete(shipment_path(sid, f"shares/{other.uuid}")).status_code == 404
    assert other.http.post(SEARCH, json={}).json()["results"] == []
    pasted = other.http.post(SEARCH, json={"identifierValues": ["020-12345675"]}).json()
    assert pasted["notFoundValues"] == ["020-12345675"]
    # Relating to a foreign shipment is refused like relating to none.
    related = other.http.put(PUT, json=air_body(relatedShipments=[{"id": sid}]))
    assert sources(related) == ["relatedShipments[0].id"]
    # The owner still has it, untouched.
    assert tenant.http.get(shipment_path(sid)).json() == shipment


def test_related_shipments_must_be_visible(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    theirs = create(other, air_body("020-9"))["id"]
    assert _share(other, theirs, tenant).status_code == 201
    mine = create(tenant, air_body("020-8"))["id"]
    body = air_body(relatedShipments=[{"id": mine, "relationType": "PARENT"}, {"id": theirs}])
    child = create(tenant, body)
    assert [r["id"] for r in child["relatedShipments"]] == [mine, theirs]
    itself = {**child, "relatedShipments": [{"id": child["id"]}]}
    assert sources(tenant.http.put(PUT, json=itself)) == ["relatedShipments[0].id"]
