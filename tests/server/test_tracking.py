"""Shipment tracking over real HTTP: PUT/GET/DELETE tracking, the histories, rules 3 to 6."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from freightdesk.models.tracking import (
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentEvent,
    TrackedShipmentPosition,
)
from freightdesk.server.domain import shipments as store
from tests.server.test_tracking_support import (
    PUT,
    SEARCH,
    air_body,
    create,
    journal,
    receive,
    route,
    shipment_path,
    sources,
)
from tests.support import TenantHandle

T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)


def _record_air_tracking(tenant: TenantHandle, shipment_id: str, source: str = "AIR") -> None:
    """What an air tracking source reports: events, positions, a state, an exception."""

    def work(session: Any) -> None:
        store.add_event(
            session,
            shipment_id,
            TrackedShipmentEvent(type="DEPARTED", date_time=T0 + timedelta(hours=2)),
            source,
        )
        store.add_positions(
            session,
            shipment_id,
            [
                TrackedShipmentPosition(
                    date_time=T0 + timedelta(minutes=i), latitude=41 + i / 100, longitude=-87.9
                )
                for i in range(5)
            ],
            source,
        )
        store.set_state(session, shipment_id, ShipmentStateType.IN_TRANSIT, T0, source=source)
        store.upsert_exception(session, shipment_id, ShipmentException(type="DELAY"), source)

    receive(tenant, work)


def test_create_answers_201_with_location_and_reads_back(tenant: TenantHandle) -> None:
    body = air_body(
        attributes=[{"name": "customer", "value": "Acme"}, {"name": "lanes", "values": ["A", "B"]}],
        accessGroups=[{"id": str(uuid.uuid4())}],
        costs=[{"type": "FREIGHT", "totalCost": {"amount": 1200.5, "currency": "USD"}}],
        plan={"expectedTransportationModes": ["AIR"]},
        routeInfo=route("Chicago", "Frankfurt"),
        events=[{"type": "BOOKED", "dateTime": "2024-05-01T06:00:00-02:00"}],
        createdDateTime="2000-01-01T00:00:00Z",  # read only: ignored
    )
    answer = tenant.http.put(PUT, json=body)
    assert answer.status_code == 201, answer.text
    shipment = answer.json()
    assert answer.headers["location"] == f"/api/v4/shipments/{shipment['id']}/tracking"
    assert shipment["createdDateTime"] != "2000-01-01T00:00:00Z"
    stops = shipment["routeInfo"]["stops"]
    assert all(uuid.UUID(stop["id"]) for stop in stops)
    assert stops[0]["location"]["address"]["addressLines"] == []
    assert shipment["events"][0]["dateTime"] == "2024-05-01T08:00:00Z"
    assert shipment["shipmentShareLink"].startswith("http")

    read = tenant.http.get(shipment_path(shipment["id"]))
    assert read.status_code == 200
    assert read.json() == shipment
    attributes = tenant.http.get(shipment_path(shipment["id"], "attributes")).json()
    assert attributes == [
        {"attributeName": "customer", "attributeValues": ["Acme"]},
        {"attributeName": "lanes", "attributeValues": ["A", "B"]},
    ]


def test_histories_and_include_route_info(tenant: TenantHandle) -> None:
    shipment = create(tenant, air_body(routeInfo=route("Chicago", "Frankfurt")))
    sid = shipment["id"]
    _record_air_tracking(tenant, sid)

    events = tenant.http.get(shipment_path(sid, "eventhistory")).json()
    assert set(events) == {"costs", "events", "exceptions", "shipment", "states", "sharingContext"}
    assert "routeInfo" not in events["shipment"]
    assert [e["type"] for e in events["events"]] == ["DEPARTED"]
    assert {s["type"] for s in events["states"]} == {"SCHEDULED", "IN_TRANSIT"}
    assert events["exceptions"][0]["status"] == "OPEN"
    assert events["sharingContext"] == {"dataOriginators": [], "recipients": []}
    with_route = tenant.http.get(shipment_path(sid, "eventhistory?includeRouteInfo=true")).json()
    assert len(with_route["shipment"]["routeInfo"]["stops"]) == 2

    positions = tenant.http.get(shipment_path(sid, "positionhistory")).json()
    assert set(positions) == {"positions", "shipment"}
    assert "routeInfo" not in positions["shipment"]
    assert [p["latitude"] for p in positions["positions"]] == [41, 41.01, 41.02, 41.03, 41.04]
    assert positions["positions"][0]["source"] == "AIR"
    routed = tenant.http.get(shipment_path(sid, "positionhistory?includeRouteInfo=1")).json()
    assert "routeInfo" in routed["shipment"]

    history = tenant.http.get(shipment_path(sid, "tracking/history")).json()
    assert set(history) == {
        "costs",
        "events",
        "exceptions",
        "positions",
        "shipment",
        "states",
        "sharingContext",
    }
    assert len(history["positions"]) == 5 and history["shipment"]["routeInfo"]["stops"]
    bad = tenant.http.get(shipment_path(sid, "eventhistory?includeRouteInfo=perhaps"))
    assert sources(bad) == ["includeRouteInfo"]


def test_events_ascending_and_positions_downsampled(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]
    times = [T0 + timedelta(hours=h) for h in (5, 1, 3)]

    def work(session: Any) -> None:
        for at in times:
            store.add_event(
                session, sid, TrackedShipmentEvent(type=f"E{at.hour}", date_time=at), "AIR"
            )
        # A zig-zag track longer than the service returns (2000 by default).
        track = [
            TrackedShipmentPosition(
                date_time=T0 + timedelta(seconds=30 * i),
                latitude=40 + i / 10_000,
                longitude=-90 + (0.5 if i == 1234 else 0.0),
            )
            for i in range(2600)
        ]
        assert store.add_positions(session, sid, list(reversed(track)), "AIR") == 2600
        # The same instants again are ignored (a retried push).
        assert store.add_positions(session, sid, track[:10], "AIR") == 0

    receive(tenant, work)
    events = tenant.http.get(shipment_path(sid, "eventhistory")).json()["events"]
    assert [e["type"] for e in events] == ["E9", "E11", "E13"]
    positions = tenant.http.get(shipment_path(sid, "positionhistory")).json()["positions"]
    assert len(positions) == 2000
    stamps = [p["dateTime"] for p in positions]
    assert stamps == sorted(stamps)
    assert stamps[0] == "2024-05-01T08:00:00Z"
    assert stamps[-1] == (T0 + timedelta(seconds=30 * 2599)).isoformat().replace("+00:00", "Z")
    # The detour point shapes the track, so down-sampling keeps it.
    assert any(p["longitude"] == -89.5 for p in positions)


def test_replace_changes_user_data_only(tenant: TenantHandle) -> None:
    shipment = create(
        tenant,
        air_body(
            attributes=[{"name": "customer", "value": "Acme"}],
            events=[{"type": "NOTE", "dateTime": "2024-05-01T07:00:00Z", "description": "call"}],
        ),
    )
    sid = shipment["id"]
    _record_air_tracking(tenant, sid)
    user_event = shipment["events"][0]

    current = tenant.http.get(shipment_path(sid)).json()
    current["attributes"] = [{"name": "customer", "value": "Globex"}]
    # Sent back as read: the received DEPARTED event too, which PUT must not touch.
    replaced = tenant.http.put(PUT, json=current)
    assert replaced.status_code == 200, replaced.text
    shipment2 = replaced.json()
    assert shipment2["attributes"] == [{"name": "customer", "value": "Globex", "values": []}]
    assert sorted(e["type"] for e in shipment2["events"]) == ["DEPARTED", "NOTE"]
    assert [e["id"] for e in shipment2["events"] if e["type"] == "NOTE"] == [user_event["id"]]
    assert shipment2["lastModifiedDateTime"] > shipment["lastModifiedDateTime"]

    # Without events the user's events go; received data stays.
    bare = air_body(id=sid)
    again = tenant.http.put(PUT, json=bare).json()
    assert [e["type"] for e in again["events"]] == ["DEPARTED"]
    assert again["attributes"] == []
    history = tenant.http.get(shipment_path(sid, "tracking/history")).json()
    assert len(history["positions"]) == 5 and len(history["exceptions"]) == 1
    kinds = [kind for kind, _payload in journal(tenant, sid)]
    assert "shipments.v1.event.removed" in kinds and kinds[-1] == "shipment.replaced"


def test_rule_4_changing_the_mode_removes_the_old_source_data(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body(events=[{"type": "NOTE", "dateTime": "2024-05-01T07:00:00Z"}]))[
        "id"
    ]
    _record_air_tracking(tenant, sid)
    ocean = {
        "id": sid,
        "identifiers": [
            {"type": "BILL_OF_LADING", "value": "MAEU123456789"},
            {"type": "CARRIER_SCAC", "value": "MAEU"},
        ],
        "events": tenant.http.get(shipment_path(sid)).json()["events"],
    }
    assert tenant.http.put(PUT, json=ocean).status_code == 200
    history = tenant.http.get(shipment_path(sid, "tracking/history")).json()
    assert [e["type"] for e in history["events"]] == ["NOTE"]  # the user's event stays
    assert history["positions"] == [] and history["exceptions"] == []
    assert [s["type"] for s in history["states"]] == ["SCHEDULED"]
    assert "endDateTime" not in history["states"][0]
    summary = tenant.http.post(SEARCH, json={}).json()["results"][0]
    assert summary["mode"] == "OCEAN" and summary["currentState"] == "SCHEDULED"
    assert summary["openExceptionCount"] == 0 and summary["carrier"] == "MAEU"
    kinds = [kind for kind, _ in journal(tenant, sid)]
    for kind in (
        "shipments.v1.event.removed",
        "shipments.v1.state.removed",
        "exception.removed",
        "positions.removed",
    ):
        assert kind in kinds

    # Adding an identifier that keeps the ocean source keeps the ocean data.
    receive(
        tenant,
        lambda s: store.add_event(
            s, sid, TrackedShipmentEvent(type="LOADED", date_time=T0), "OCEAN"
        ),
    )
    ocean["identifiers"].append({"type": "CONTAINER_ID", "value": "MSKU1234565"})
    ocean["events"] = []
    assert tenant.http.put(PUT, json=ocean).status_code == 200
    events = tenant.http.get(shipment_path(sid, "eventhistory")).json()["events"]
    assert [e["type"] for e in events] == ["LOADED"]


@pytest.mark.parametrize(
    ("identifiers", "plan", "mode"),
    [
        ([("AIR_WAYBILL", "020-1")], None, "AIR"),
        ([("HOUSE_AIR_WAYBILL", "H1"), ("CARRIER_SCAC", "LH")], None, "AIR"),
        ([("WAGON_ID", "W1"), ("TRAIN_NUMBER", "T1")], None, "RAIL"),
        ([("RAIL_CAR_ID", "R1"), ("WAYBILL", "WB1"), ("TRAILER_ID", "TR1")], None, "RAIL"),
        ([("CONTAINER_ID", "C1")], ["RAIL"], "RAIL"),
        (
            [("BILL_OF_LADING", "B1"), ("BOOKING_NUMBER", "K1"), ("CONTAINER_ID", "C1")],
            None,
            "OCEAN",
        ),
        ([("HOUSE_BILL_OF_LADING", "H1"), ("FFW_SCAC", "FW")], None, "OCEAN"),
        (
            [("TRACKING_NUMBER", "1Z"), ("CARRIER_SCAC", "UPSN"), ("REFERENCE_NUMBER", "R")],
            None,
            "PARCEL",
        ),
        (
            [
                ("CAPACITY_PROVIDER_ACCOUNT_GROUP", "G"),
                ("CAPACITY_PROVIDER_ACCOUNT_CODE", "C"),
                ("PRO", "P1"),
                ("PICKUP", "PU"),
                ("PURCHASE_ORDER", "PO"),
            ],
            None,
            "LTL",
        ),
        ([("PRO_NUMBER", "P2")], None, "LTL"),
        ([("BILL_OF_LADING", "B1")], ["LTL"], "LTL"),
        ([("BILL_OF_LADING", "B1"), ("PURCHASE_ORDER", "PO1")], ["TL"], "TL"),
    ],
)
def test_rule_6_accepted_identifiers_by_mode(
    tenant: TenantHandle,
    identifiers: list[tuple[str, str]],
    plan: list[str] | None,
    mode: str,
) -> None:
    body: dict[str, Any] = {"identifiers": [{"type": t, "value": v} for t, v in identifiers]}
    if plan:
        body["plan"] = {"expectedTransportationModes": plan}
    sid = create(tenant, body)["id"]
    summary = tenant.http.post(SEARCH, json={"identifierValue": identifiers[0][1]}).json()
    assert [(r["id"], r["mode"]) for r in summary["results"]] == [(sid, mode)]


def test_rule_5_and_6_refusals_name_the_field(tenant: TenantHandle) -> None:
    def put(identifiers: list[dict[str, Any]]) -> httpx.Response:
        return tenant.http.put(PUT, json={"identifiers": identifiers})

    assert sources(put([])) == ["identifiers"]
    assert sources(tenant.http.put(PUT, json={})) == ["identifiers"]
    refused = put(
        [
            {"type": "AIR_WAYBILL", "value": "1"},
            {"type": "PRO", "value": "2"},
            {"type": "CARRIER_SCAC", "value": "3"},
            {"type": "SKU", "value": "4"},
        ]
    )
    assert sources(refused) == ["identifiers[3].type"]
    assert "SKU is not accepted" in refused.json()["errors"][0]["message"]
    hawb = put([{"type": "HOUSE_AIR_WAYBILL", "value": "H1"}])
    assert sources(hawb) == ["identifiers[0].type"]
    assert "CARRIER_SCAC" in hawb.json()["errorMessage"]
    assert sources(put([{"type": "CARRIER_SCAC", "value": "MAEU"}])) == ["identifiers"]
    assert sources(put([{"type": "PRO", "value": "   "}])) == ["identifiers[0].value"]
    assert sources(put([{"type": "PRO"}])) == ["identifiers[0].value"]
    assert sources(put([{"value": "1"}])) == ["identifiers[0].type"]
    dup = put([{"type": "PRO", "value": "a1"}, {"type": "PRO", "value": "A1 "}])
    assert sources(dup) == ["identifiers[1]"]


def test_limits(tenant: TenantHandle) -> None:
    many = [{"type": "PRO", "value": f"P{i}"} for i in range(251)]
    assert sources(tenant.http.put(PUT, json={"identifiers": many})) == ["identifiers"]
    assert tenant.http.put(PUT, json={"identifiers": many[:250]}).status_code == 201
    attributes = [{"name": f"a{i}", "value": "v"} for i in range(26)]
    assert sources(tenant.http.put(PUT, json=air_body(attributes=attributes))) == ["attributes"]
    assert tenant.http.put(PUT, json=air_body(attributes=attributes[:25])).status_code == 201
    costs = [{"type": "FREIGHT", "totalCost": {"amount": 1, "currency": "USD"}}] * 26
    assert sources(tenant.http.put(PUT, json=air_body(costs=costs))) == ["costs"]
    related = [{"id": str(uuid.uuid4())} for _ in range(251)]
    assert sources(tenant.http.put(PUT, json=air_body(relatedShipments=related))) == [
        "relatedShipments"
    ]
    lines = {"addressLines": ["1", "2", "3", "4"], "country": "US"}
    body = air_body(routeInfo={"stops": [{"location": {"address": lines}}]})
    assert sources(tenant.http.put(PUT, json=body)) == [
        "routeInfo.stops[0].location.address.addressLines"
    ]


def test_bad_bodies_name_every_field(tenant: TenantHandle) -> None:
    stop_a, stop_b = str(uuid.uuid4()), str(uuid.uuid4())
    group = str(uuid.uuid4())
    body = air_body(
        attributes=[{"name": "x", "value": "1"}, {"name": "X", "value": "2"}, {"name": " "}],
        accessGroups=[{"id": group}, {"id": group}],
        routeInfo={
            "stops": [
                {"id": stop_a, "appointmentWindow": {"localTimeZoneIdentifier": "Mars/Olympus"}},
                {"id": stop_a},
            ],
            "routeSegments": [{"fromStopId": stop_a, "toStopId": stop_b}],
        },
        events=[{"type": "X", "stopId": stop_b}],
        relatedShipments=[{"id": str(uuid.uuid4())}],
    )
    got = sources(tenant.http.put(PUT, json=body))
    # Model-level problems come first; the zone is one of them.
    assert got == ["routeInfo.stops[0].appointmentWindow.localTimeZoneIdentifier"]
    body["routeInfo"]["stops"][0]["appointmentWindow"] = {}
    got = sources(tenant.http.put(PUT, json=body))
    assert got == [
        "attributes[1].name",
        "attributes[2].name",
        "accessGroups[1].id",
        "routeInfo.stops[1].id",
        "routeInfo.routeSegments[0].toStopId",
        "relatedShipments[0].id",
        "events[0].stopId",
    ]

    cases: list[tuple[dict[str, Any], str]] = [
        (air_body(events=[{"type": "A", "dateTime": "2024-05-01T10:00:00"}]), "events[0].dateTime"),
        (air_body(accessGroups=[{"id": "not-a-uuid"}]), "accessGroups[0].id"),
        (
            air_body(costs=[{"type": "F", "totalCost": {"amount": 1, "currency": "GBP"}}]),
            "costs[0].totalCost.currency",
        ),
        (
            air_body(plan={"expectedTransportationModes": ["SPACE"]}),
            "plan.expectedTransportationModes[0]",
        ),
        (
            air_body(
                routeInfo={
                    "stops": [{"location": {"coordinates": {"latitude": 91, "longitude": 0}}}]
                }
            ),
            "routeInfo.stops[0].location.coordinates.latitude",
        ),
        (
            air_body(
                routeInfo={
                    "stops": [
                        {
                            "appointmentWindow": {
                                "startDateTime": "2024-05-02T10:00:00Z",
                                "endDateTime": "2024-05-01T10:00:00Z",
                            }
                        }
                    ]
                }
            ),
            "routeInfo.stops[0].appointmentWindow",
        ),
        (air_body(routeInfo={"stops": [{"type": "MOON"}]}), "routeInfo.stops[0].type"),
        (air_body(routeInfo={"stops": [{"locaton": {}}]}), "routeInfo.stops[0].locaton"),
        (air_body(surprise=1), "surprise"),
        (air_body(attributes="many"), "attributes"),
        (
            air_body(
                routeInfo={
                    "routeSegments": [
                        {"emissions": {"totalCO2Emissions": {"value": "x", "unit": "KG"}}}
                    ]
                }
            ),
            "routeInfo.routeSegments[0].emissions.totalCO2Emissions.value",
        ),
    ]
    for bad, path in cases:
        answer = tenant.http.put(PUT, json=bad)
        assert sources(answer) == [path], (path, answer.text)
        assert answer.json()["supportReferenceId"]

    malformed = tenant.http.put(PUT, content=b"{nope", headers={"content-type": "application/json"})
    assert malformed.status_code == 400
    assert malformed.json()["errorMessage"] == "The request body is not valid JSON"
    text = tenant.http.put(PUT, content=b"x", headers={"content-type": "text/plain"})
    assert text.status_code == 415
    listed = tenant.http.put(PUT, json=[air_body()])
    assert listed.status_code == 400


def test_put_with_an_unknown_id_is_404_and_creates_nothing(tenant: TenantHandle) -> None:
    missing = str(uuid.uuid4())
    answer = tenant.http.put(PUT, json=air_body(id=missing))
    assert answer.status_code == 404
    assert answer.json()["httpStatusCode"] == 404
    assert tenant.http.post(SEARCH, json={}).json()["paginationInfo"]["total"] == 0


def test_delete_answers_202_and_removes_the_record(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]
    _record_air_tracking(tenant, sid)
    deleted = tenant.http.delete(shipment_path(sid))
    assert deleted.status_code == 202
    for tail in ("tracking", "tracking/history", "eventhistory", "positionhistory", "attributes"):
        assert tenant.http.get(shipment_path(sid, tail)).status_code == 404
    assert tenant.http.delete(shipment_path(sid)).status_code == 404
    assert tenant.http.put(PUT, json=air_body(id=sid)).status_code == 404
    assert tenant.http.post(SEARCH, json={}).json()["results"] == []
    assert journal(tenant, sid)[-1][0] == "shipments.v1.shipment.deleted"


def test_etag_and_if_none_match(tenant: TenantHandle) -> None:
    sid = create(tenant, air_body())["id"]
    for tail in ("tracking", "tracking/history", "eventhistory", "positionhistory", "attributes"):
        first = tenant.http.get(shipment_path(sid, tail))
        etag = first.headers["etag"]
        again = tenant.http.get(shipment_path(sid, tail), headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
    etag = tenant.http.get(shipment_path(sid)).headers["etag"]
    receive(
        tenant,
        lambda s: store.add_event(s, sid, TrackedShipmentEvent(type="X", date_time=T0), "AIR"),
    )
    changed = tenant.http.get(shipment_path(sid), headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag


def test_bad_ids_and_missing_credentials(tenant: TenantHandle) -> None:
    bad = tenant.http.get("/api/v4/shipments/not-a-uuid/tracking")
    assert sources(bad) == ["shipmentId"]
    anonymous = httpx.get(f"{tenant.service.url}{shipment_path(str(uuid.uuid4()))}")
    assert anonymous.status_code == 401
    anonymous_put = httpx.put(f"{tenant.service.url}{PUT}", json={"surprise": 1})
    assert anonymous_put.status_code == 401


def test_public_share_link_shows_tracking_not_business_data(tenant: TenantHandle) -> None:
    shipment = create(
        tenant,
        air_body(
            attributes=[{"name": "margin", "value": "12%"}],
            costs=[{"type": "FREIGHT", "totalCost": {"amount": 10, "currency": "EUR"}}],
            routeInfo=route("Chicago", "Dallas"),
        ),
    )
    link = shipment["shipmentShareLink"]
    public = httpx.get(link)
    assert public.status_code == 200
    view = public.json()
    assert view["id"] == shipment["id"] and len(view["routeInfo"]["stops"]) == 2
    assert view["attributes"] == [] and view["costs"] == []
    assert httpx.get(link + "x").status_code == 404
    tenant.http.delete(shipment_path(shipment["id"]))
    assert httpx.get(link).status_code == 404


def test_values_that_cannot_be_stored_are_refused_not_failed(tenant: TenantHandle) -> None:
    def raw_put(body: bytes) -> httpx.Response:
        return tenant.http.put(PUT, content=body, headers={"content-type": "application/json"})

    pro = b'{"identifiers":[{"type":"PRO","value":"1"}]'
    nan = raw_put(pro + b',"costs":[{"type":"F","totalCost":{"amount":NaN,"currency":"USD"}}]}')
    assert sources(nan) == ["costs[0].totalCost.amount"]
    inf = raw_put(pro + b',"routeInfo":{"routeSegments":[{"emissions":{"loadFactor":Infinity}}]}}')
    assert sources(inf) == ["routeInfo.routeSegments[0].emissions.loadFactor"]
    late = raw_put(pro + b',"events":[{"type":"X","dateTime":"9999-12-31T23:00:00-05:00"}]}')
    assert sources(late) == ["events[0].dateTime"]
    early = raw_put(pro + b',"events":[{"type":"X","dateTime":"0001-01-01T00:30:00+01:00"}]}')
    assert sources(early) == ["events[0].dateTime"]
    nul = raw_put(
        b'{"identifiers":[{"type":"PRO","value":"1"}],"attributes":[{"name":"a\\u0000"}]}'
    )
    assert sources(nul) == ["attributes[0].name"]
    assert sources(
        tenant.http.post(SEARCH, json={"lastModifiedAfter": "9999-12-31T23:00:00-05:00"})
    ) == ["lastModifiedAfter"]
    window = {"createdDateTime": {"endDateTime": "0001-01-01T00:00:00+01:00"}}
    assert sources(tenant.http.post(SEARCH, json=window)) == ["createdDateTime.endDateTime"]
    for text in ("\U0010ffff", "A\U0010ffff", "%", "_"):
        assert tenant.http.post(SEARCH, json={"text": text}).status_code == 200


def test_only_an_ltl_shipment_names_its_carrier_by_its_account(tenant: TenantHandle) -> None:
    """An LTL shipment's account code is its carrier's SCAC (rule 6 gives LTL no SCAC); a
    parcel shipment's is the shipper's account number with its carrier, never a carrier."""
    account = {"type": "CAPACITY_PROVIDER_ACCOUNT_CODE", "value": "ACC-4471"}
    create(tenant, {"identifiers": [{"type": "TRACKING_NUMBER", "value": "1Z999"}, account]})
    ltl_account = {"type": "CAPACITY_PROVIDER_ACCOUNT_CODE", "value": "NBFL"}
    create(tenant, {"identifiers": [{"type": "PRO", "value": "PRO-88"}, ltl_account]})
    summaries = tenant.http.post(SEARCH, json={}).json()["results"]
    carriers = {s["mode"]: s.get("carrier") for s in summaries}
    assert carriers == {"PARCEL": None, "LTL": "NBFL"}
