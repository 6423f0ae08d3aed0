"""Browsing tracked shipments (POST /api/v4/shipments/search) over real HTTP."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, text

from freightdesk.models.shipment_search import ShipmentSearchRequest
from freightdesk.models.tracking import ShipmentException, ShipmentStateType
from freightdesk.server.domain import shipments as store
from freightdesk.server.domain.shipment_search import search_shipments
from freightdesk.server.migrations import SCHEMA_VERSION, upgrade
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import make_change_seq_triggers
from tests.server.test_tracking_support import (
    PUT,
    SEARCH,
    create,
    receive,
    route,
    shipment_path,
    sources,
)
from tests.support import TenantHandle, make_tenant


def _in_order(answer: str | bytes) -> Any:
    """Parsed JSON with every object as its list of members, in order."""
    return json.loads(answer, object_pairs_hook=list)


def _ids(answer: Any) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [item["id"] for item in answer.json()["results"]]


@pytest.fixture
def fleet(tenant: TenantHandle) -> dict[str, str]:
    """Four shipments of different modes, states and attributes, created in this order."""
    made = {
        "air": create(
            tenant,
            {
                "identifiers": [{"type": "AIR_WAYBILL", "value": "020-11111111"}],
                "attributes": [{"name": "Customer", "value": "Acme"}],
                "routeInfo": route("Chicago", "Frankfurt"),
            },
        )["id"],
        "ocean": create(
            tenant,
            {
                "identifiers": [
                    {"type": "BILL_OF_LADING", "value": "maeu-777"},
                    {"type": "CARRIER_SCAC", "value": "MAEU"},
                ],
                "attributes": [{"name": "customer", "values": ["Globex", "Acme"]}],
            },
        )["id"],
        "parcel": create(tenant, {"identifiers": [{"type": "TRACKING_NUMBER", "value": "1Z999"}]})[
            "id"
        ],
        "ltl": create(
            tenant,
            {
                "identifiers": [
                    {"type": "PRO", "value": "PRO-42"},
                    {"type": "PURCHASE_ORDER", "value": "020-PO"},
                ]
            },
        )["id"],
    }
    eta = datetime(2030, 1, 1, tzinfo=UTC)

    def work(session: Any) -> None:
        store.set_state(session, made["ocean"], ShipmentStateType.IN_TRANSIT, eta, source="OCEAN")
        store.upsert_exception(session, made["ocean"], ShipmentException(type="ROLLOVER"), "OCEAN")
        store.set_eta(session, made["ocean"], eta + timedelta(days=2), source="OCEAN")
        store.set_eta(session, made["air"], eta + timedelta(days=1), source="AIR")

    receive(tenant, work)
    return made


def test_filters(tenant: TenantHandle, fleet: dict[str, str]) -> None:
    def search(**body: Any) -> list[str]:
        return sorted(_ids(tenant.http.post(SEARCH, json=body)))

    assert search() == sorted(fleet.values())
    # Free text: prefix of any identifier value, case-insensitive.
    assert search(text="020") == sorted([fleet["air"], fleet["ltl"]])
    assert search(text="MAEU-7") == [fleet["ocean"]]
    assert search(text="1z9") == [fleet["parcel"]]
    assert search(text="999") == []
    assert search(identifierType="PURCHASE_ORDER", identifierValue="020-po") == [fleet["ltl"]]
    assert search(identifierType="AIR_WAYBILL") == [fleet["air"]]
    assert search(identifierValue="MAEU") == [fleet["ocean"]]
    assert search(transportationModes=["PARCEL", "LTL"]) == sorted([fleet["parcel"], fleet["ltl"]])
    assert search(states=["IN_TRANSIT"]) == [fleet["ocean"]]
    assert len(search(states=["SCHEDULED"])) == 3
    assert search(hasOpenExceptions=True) == [fleet["ocean"]]
    assert len(search(hasOpenExceptions=False)) == 3
    assert search(attributeName="CUSTOMER", attributeValue="acme") == sorted(
        [fleet["air"], fleet["ocean"]]
    )
    assert search(attributeValue="globex") == [fleet["ocean"]]
    assert search(attributeName="customer") == sorted([fleet["air"], fleet["ocean"]])
    assert search(text="020", transportationModes=["AIR"]) == [fleet["air"]]
    summary = tenant.http.post(SEARCH, json={"text": "MAEU"}).json()["results"][0]
    assert summary["mode"] == "OCEAN" and summary["carrier"] == "MAEU"
    assert summary["currentState"] == "IN_TRANSIT" and summary["openExceptionCount"] == 1
    assert summary["nextEta"] == "2030-01-03T00:00:00Z"
    assert summary["primaryIdentifier"] == "maeu-777"
    air = tenant.http.post(SEARCH, json={"text": "020-1"}).json()["results"][0]
    assert (
        air["originName"] == "Chicago terminal" and air["destinationName"] == "Frankfurt terminal"
    )


def test_pasted_lists_report_what_was_not_found(
    tenant: TenantHandle, fleet: dict[str, str]
) -> None:
    pasted = ["1z999", " PRO-42 ", "NOPE-1", "nope-1", "", "020-11111111"]
    answer = tenant.http.post(SEARCH, json={"identifierValues": pasted})
    assert sorted(_ids(answer)) == sorted([fleet["parcel"], fleet["ltl"], fleet["air"]])
    assert answer.json()["notFoundValues"] == ["NOPE-1"]
    plain = tenant.http.post(SEARCH, json={"identifierValues": []}).json()
    assert plain["results"] == [] and plain["notFoundValues"] == []
    assert "notFoundValues" not in tenant.http.post(SEARCH, json={}).json()
    too_many = tenant.http.post(SEARCH, json={"identifierValues": ["x"] * 1001})
    assert sources(too_many) == ["identifierValues"]


def test_sort_and_paging(tenant: TenantHandle, fleet: dict[str, str]) -> None:
    def order(field: str, direction: str) -> list[str]:
        body = {"sort": {"field": field, "direction": direction}}
        return _ids(tenant.http.post(SEARCH, json=body))

    created = [fleet["air"], fleet["ocean"], fleet["parcel"], fleet["ltl"]]
    assert order("createdDateTime", "ASC") == created
    assert order("createdDateTime", "DESC") == created[::-1]
    # ETAs first by time, shipments without one last in both directions.
    assert order("nextEta", "ASC")[:2] == [fleet["air"], fleet["ocean"]]
    assert order("nextEta", "DESC")[:2] == [fleet["ocean"], fleet["air"]]
    # Case-insensitive: 020-11111111, 1Z999, maeu-777, PRO-42.
    assert order("primaryIdentifier", "ASC") == [
        fleet["air"],
        fleet["parcel"],
        fleet["ocean"],
        fleet["ltl"],
    ]
    # By lifecycle: SCHEDULED before IN_TRANSIT.
    assert order("state", "ASC")[-1] == fleet["ocean"]
    assert order("state", "DESC")[0] == fleet["ocean"]
    # The default: most recently modified first (set_eta touched air last).
    assert _ids(tenant.http.post(SEARCH, json={}))[0] == fleet["air"]

    pages = [
        tenant.http.post(SEARCH, params={"page": page, "pageSize": 3}, json={}).json()
        for page in (1, 2, 3)
    ]
    assert [len(p["results"]) for p in pages] == [3, 1, 0]
    assert pages[1]["paginationInfo"] == {"pageNumber": 2, "pageSize": 3, "total": 4}
    seen = [r["id"] for p in pages for r in p["results"]]
    assert sorted(seen) == sorted(fleet.values())
    assert sources(tenant.http.post(SEARCH, params={"pageSize": 0}, json={})) == ["pageSize"]
    assert sources(tenant.http.post(SEARCH, params={"pageSize": 501}, json={})) == ["pageSize"]
    assert sources(tenant.http.post(SEARCH, params={"page": 0}, json={})) == ["page"]
    big = tenant.http.post(SEARCH, params={"pageSize": 500}, json={}).json()
    assert big["paginationInfo"]["pageSize"] == 500


def test_windows_and_incremental_sync(tenant: TenantHandle, fleet: dict[str, str]) -> None:
    everything = tenant.http.post(SEARCH, json={}).json()["results"]
    created = {r["id"]: r["createdDateTime"] for r in everything}
    start = created[fleet["parcel"]]
    window = {"createdDateTime": {"startDateTime": start}}
    assert sorted(_ids(tenant.http.post(SEARCH, json=window))) == sorted(
        [fleet["parcel"], fleet["ltl"]]
    )
    window = {"createdDateTime": {"endDateTime": start}}
    assert sorted(_ids(tenant.http.post(SEARCH, json=window))) == sorted(
        [fleet["air"], fleet["ocean"]]
    )

    mark = max(r["lastModifiedDateTime"] for r in everything)
    time.sleep(0.01)
    quiet = tenant.http.post(SEARCH, json={"lastModifiedAfter": mark}).json()
    assert quiet["results"] == [] and quiet["removedIds"] == []
    body = tenant.http.get(shipment_path(fleet["parcel"])).json()
    body["attributes"] = [{"name": "touched", "value": "yes"}]
    assert tenant.http.put(PUT, json=body).status_code == 200
    assert tenant.http.delete(shipment_path(fleet["ltl"])).status_code == 202
    delta = tenant.http.post(SEARCH, json={"lastModifiedAfter": mark}).json()
    assert [r["id"] for r in delta["results"]] == [fleet["parcel"]]
    assert delta["removedIds"] == [fleet["ltl"]]
    # Windows include their start: the air shipment was modified exactly at the mark.
    modified = {"lastModifiedDateTime": {"startDateTime": mark}}
    assert sorted(_ids(tenant.http.post(SEARCH, json=modified))) == sorted(
        [fleet["parcel"], fleet["air"]]
    )
    naive = tenant.http.post(SEARCH, json={"lastModifiedAfter": "2024-01-01T00:00:00"})
    assert sources(naive) == ["lastModifiedAfter"]


def _keyset_pages(tenant: TenantHandle) -> Iterator[Any]:
    """Every change of `tenant`'s shipments in keyset pages of one shipment, first to last
    (no nextPageToken), each read when the caller asks for it: what the caller does between
    two pages happens between their reads."""
    token = ""
    while True:
        body = {"changesSince": "", "pageToken": token}
        answer = tenant.http.post(SEARCH, params={"pageSize": 1}, json=body)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        yield page
        token = page.get("nextPageToken")
        if not token:
            return


def test_keyset_pages_skip_none_when_a_shipment_leaves(
    tenant: TenantHandle, fleet: dict[str, str]
) -> None:
    """pageToken pages in change order; a shipment deleted after its page was read moves no
    other across a page boundary (an offset would skip one), and the last page has no
    nextPageToken."""
    pages = _keyset_pages(tenant)
    seen = [r["id"] for r in next(pages)["results"]]
    assert tenant.http.delete(shipment_path(seen[0])).status_code == 202
    for answer in pages:
        assert len(answer["results"]) <= 1 and answer["paginationInfo"]["total"] == 3
        seen += [r["id"] for r in answer["results"]]
    assert sorted(seen) == sorted(fleet.values())
    # A shipment changed meanwhile is read again after the others, as changed.
    body = tenant.http.get(shipment_path(fleet["ocean"])).json()
    body["attributes"] = [{"name": "touched", "value": "yes"}]
    again = _keyset_pages(tenant)
    next(again)
    assert tenant.http.put(PUT, json=body).status_code == 200
    later = [r["id"] for answer in again for r in answer["results"]]
    assert later[-1] == fleet["ocean"]
    assert sources(tenant.http.post(SEARCH, json={"pageToken": "x"})) == ["pageToken"]
    assert sources(tenant.http.post(SEARCH, json={"pageToken": 7})) == ["pageToken"]


def test_an_upgraded_database_pages_its_shipments_numbered_before(
    tenant: TenantHandle, fleet: dict[str, str]
) -> None:
    """Shipments written before version 7 have no change sequence: migration 8 numbers them,
    so keyset pages list them too."""

    def back_to_schema_7(session: Any) -> Any:
        postgresql = session.get_bind().dialect.name == "postgresql"
        if postgresql:
            session.execute(text("ALTER TABLE shipments DISABLE TRIGGER shipments_change_seq"))
        else:
            session.execute(text("DROP TRIGGER shipments_change_seq_update"))
        session.execute(text("UPDATE shipments SET change_seq = NULL"))
        if postgresql:
            session.execute(text("ALTER TABLE shipments ENABLE TRIGGER shipments_change_seq"))
        else:
            make_change_seq_triggers(session.connection())
        session.execute(text("DROP INDEX ix_shipments_tenant_change_pk"))
        session.execute(text("DELETE FROM schema_version"))
        session.execute(text("INSERT INTO schema_version (version) VALUES (7)"))
        return session.get_bind()

    engine = receive(tenant, back_to_schema_7)
    assert upgrade(engine) == 7
    assert upgrade(engine) == SCHEMA_VERSION
    seen = [r["id"] for answer in _keyset_pages(tenant) for r in answer["results"]]
    assert sorted(seen) == sorted(fleet.values())


def test_bad_search_bodies(tenant: TenantHandle) -> None:
    assert sources(tenant.http.post(SEARCH, json={"txet": "x"})) == ["txet"]
    assert sources(tenant.http.post(SEARCH, json={"states": ["LOST"]})) == ["states[0]"]
    assert sources(tenant.http.post(SEARCH, json={"sort": {"field": "weight"}})) == ["sort.field"]
    assert sources(tenant.http.post(SEARCH, json={"transportationModes": "AIR"})) == [
        "transportationModes"
    ]
    assert sources(tenant.http.post(SEARCH, json={"text": "x" * 201})) == ["text"]


def test_broad_and_narrow_plans_answer_the_same(
    tenant: TenantHandle, fleet: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Identifier and attribute filters are answered from their candidates when few, else by
    walking the sort order; both plans must give the same pages."""
    from freightdesk.server.domain import shipment_search

    bodies: list[dict[str, Any]] = [
        {"text": "020"},
        {"text": "020", "sort": {"field": "createdDateTime", "direction": "ASC"}},
        {"identifierValues": ["1Z999", "PRO-42", "nothing"]},
        {"attributeName": "customer", "attributeValue": "acme", "states": ["IN_TRANSIT"]},
        {"identifierType": "AIR_WAYBILL"},
    ]
    narrow = [tenant.http.post(SEARCH, json=body).json() for body in bodies]
    monkeypatch.setattr(shipment_search, "_NARROW", 0)
    broad = [tenant.http.post(SEARCH, json=body).json() for body in bodies]
    assert broad == narrow
    assert [len(answer["results"]) for answer in narrow] == [2, 2, 2, 1, 1]


def test_counts_forget_deleted_shipments(tenant: TenantHandle, fleet: dict[str, str]) -> None:
    def total(body: dict[str, Any]) -> int:
        answer = tenant.http.post(SEARCH, json=body).json()
        return int(answer["paginationInfo"]["total"])

    assert total({"text": "020"}) == 2 and total({"attributeName": "customer"}) == 2
    assert tenant.http.delete(shipment_path(fleet["air"])).status_code == 202
    assert total({"text": "020"}) == 1 and total({"attributeName": "customer"}) == 1


def test_the_answer_is_the_models_json(tenant: TenantHandle, fleet: dict[str, str]) -> None:
    """On SQLite the database writes the page's summaries as JSON; the answer must be the
    search model's own JSON (what the route sent before, and sends on PostgreSQL), for
    every field a summary can have: events and their time zones, ETAs with and without a
    fraction of a second, shares, non-ASCII identifiers, pasted lists, removals."""
    other = make_tenant(tenant.service)
    try:
        shared = create(
            other,
            {
                "identifiers": [{"type": "PRO", "value": "Zürich-ß “1”"}],
                "events": [
                    {
                        "id": str(uuid.uuid4()),
                        "type": "PICKED_UP",
                        "dateTime": "2030-01-02T03:04:05.120000+02:00",
                        "description": 'Abholung \\ "quoted"\n\x01 \u2028',
                    }
                ],
                "routeInfo": route("Zürich", "Genève"),
            },
        )["id"]
        answer = other.http.post(
            f"/api/v4/shipments/{shared}/shares", json={"tenantUuid": tenant.uuid}
        )
        assert answer.status_code == 201, answer.text
    finally:
        other.http.close()
    eta = datetime(2031, 5, 6, 7, 8, 9, 1, tzinfo=UTC)
    receive(
        tenant,
        lambda session: store.set_eta(session, fleet["parcel"], eta, source="PARCEL"),
    )
    deleted = create(tenant, {"identifiers": [{"type": "PRO", "value": "GONE-1"}]})["id"]
    assert tenant.http.delete(shipment_path(deleted)).status_code == 202
    with tenant.service.context.sessions() as session:
        tenant_id = session.scalars(select(Tenant.id).where(Tenant.uuid == tenant.uuid)).one()
    bodies: list[dict[str, Any]] = [
        {},
        {"text": "zür"},
        {"text": "020"},
        {"transportationModes": ["OCEAN"], "states": ["IN_TRANSIT"]},
        {"identifierValues": ["maeu-777", " Nope ", "nope", "ZÜRICH-SS “1”"]},
        {"lastModifiedAfter": "2000-01-01T00:00:00Z"},
        {"sort": {"field": "nextEta", "direction": "ASC"}},
    ]
    summaries = 0
    for body in bodies:
        for page, size in ((1, 50), (2, 2), (9, 50)):
            sent = tenant.http.post(SEARCH, json=body, params={"page": page, "pageSize": size})
            assert sent.status_code == 200, sent.text
            request = ShipmentSearchRequest.model_validate(body)
            with tenant.service.context.sessions() as session:
                model = search_shipments(session, tenant_id, request, page, size)
            # The same JSON, members in the same order (a string's escapes may differ: SQLite
            # keeps those of the stored identifiers).
            expected = model.model_dump_json(by_alias=True, exclude_none=True)
            assert _in_order(sent.content) == _in_order(expected)
            summaries += len(sent.json()["results"])
    everything = tenant.http.post(SEARCH, json={}).json()["results"]
    assert {"sharedBy", "latestEvent", "nextEta"} <= {key for s in everything for key in s}
    assert summaries > 20
