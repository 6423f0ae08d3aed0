"""Webhook delivery over real HTTP to receivers on loopback: what receivers get.

Shipment changes are made through the tracking API (PUT and DELETE tracking) and, for data
that tracking sources report, through the tracking domain API on the live service's database
(as push processing does). Reliability (retries, order, restarts) is in
test_webhooks_reliability.py.
"""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from freightdesk.models.tracking import ShipmentException, ShipmentStateType
from freightdesk.server.domain import shipments as store
from freightdesk.server.webhooks import signing
from tests.server.test_tracking_support import air_body, create, receive, shipment_path
from tests.server.test_webhooks_support import (
    Receiver,
    authority,
    eventually,
    fast_delivery,
    hooks,
    issue,
    receiver,
    server_tls,
    settled,
)
from tests.support import TenantHandle

__all__ = ["fast_delivery", "hooks"]  # fixtures (tests/server/test_webhooks_support.py)

HOOKS = "/api/v4/webhooks"
PUT = "/api/v4/shipments/tracking"
T0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
KINDS = [
    "shipments.v1.event.added",
    "shipments.v1.event.updated",
    "shipments.v1.event.removed",
    "shipments.v1.state.added",
    "shipments.v1.state.updated",
    "shipments.v1.state.removed",
    "shipments.v1.shipment.created",
    "shipments.v1.shipment.deleted",
    "shipments.v1.exception.addedOrUpdated",
]
DATA_TYPES = {
    "event": "EventChange",
    "state": "StateChange",
    "shipment": "ShipmentChange",
    "exception": "ExceptionChange",
}


def configure(
    tenant: TenantHandle, url: str, kind: str | None = None, **fields: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"configName": f"hook-{uuid.uuid4().hex[:8]}", "url": url, **fields}
    if kind is not None:
        settings = body.setdefault("webhookConfiguration", {})
        settings["webhookEventType"] = kind
    answer = tenant.http.put(HOOKS, json=body)
    assert answer.status_code == 200, answer.text
    config: dict[str, Any] = answer.json()
    return config


def deliveries(tenant: TenantHandle, config_id: int, **query: Any) -> dict[str, Any]:
    answer = tenant.http.get(f"{HOOKS}/{config_id}/deliveries", params=query)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def event(type_: str, hours: int = 0, **extra: Any) -> dict[str, Any]:
    at = (T0 + timedelta(hours=hours)).isoformat()
    return {"id": str(uuid.uuid4()), "type": type_, "dateTime": at, **extra}


def assert_signed(request: Any, secret: str) -> None:
    now = int(time.time())
    assert signing.verify(secret, request.headers, request.body, now=now), request.headers
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("FreightDesk-Webhooks/")


def test_every_event_kind_is_delivered_with_its_envelope(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    configs = {kind: configure(tenant, hooks.url(f"/{kind}"), kind) for kind in KINDS}
    first = event("PICKED_UP", 0, description="picked up")
    sid = create(tenant, air_body(events=[first]))["id"]
    # The context is the shipment as it is when the message is made: let the creation's
    # messages be made before the shipment changes further.
    eventually(lambda: [r for r in hooks.received() if r.path == "/shipments.v1.shipment.created"])

    def air_reports(session: Any) -> None:
        store.set_state(session, sid, ShipmentStateType.IN_TRANSIT, T0, source="AIR")
        store.upsert_exception(session, sid, ShipmentException(type="DELAY"), "AIR")

    receive(tenant, air_reports)
    edited = {**first, "description": "picked up at dock 4"}
    second = event("ARRIVAL_AT_STOP", 3)
    assert tenant.http.put(PUT, json=air_body(id=sid, events=[edited, second])).status_code == 200
    assert tenant.http.put(PUT, json=air_body(id=sid, events=[edited])).status_code == 200
    ocean = {
        "id": sid,
        "identifiers": [{"type": "BOOKING_NUMBER", "value": "BK123"}],
        "events": [edited],
    }
    assert tenant.http.put(PUT, json=ocean).status_code == 200  # AIR data goes (rule 4)
    assert tenant.http.delete(shipment_path(sid)).status_code == 202

    expected = {
        "shipments.v1.shipment.created": 1,
        "shipments.v1.state.added": 2,
        "shipments.v1.state.updated": 2,
        "shipments.v1.state.removed": 1,
        "shipments.v1.event.added": 2,
        "shipments.v1.event.updated": 1,
        "shipments.v1.event.removed": 1,
        "shipments.v1.exception.addedOrUpdated": 1,
        "shipments.v1.shipment.deleted": 1,
    }

    def by_kind() -> dict[str, list[Any]]:
        return {k: [r for r in hooks.received() if r.path == f"/{k}"] for k in KINDS}

    eventually(lambda: all(len(by_kind()[k]) >= n for k, n in expected.items()))
    settled(tenant.service, *(c["id"] for c in configs.values()))  # nothing more arrives
    got = by_kind()
    assert {k: len(v) for k, v in got.items()} == expected
    for kind, requests in got.items():
        for request in requests:
            assert_signed(request, configs[kind]["signingSecret"])
            message = request.json()
            assert set(message) == {
                "eventId",
                "eventType",
                "createdDateTime",
                "dataType",
                "context",
                "data",
            }
            assert message["eventType"] == kind
            assert message["eventId"] == request.headers["webhook-id"]
            assert uuid.UUID(message["eventId"])
            assert message["dataType"] == DATA_TYPES[kind.split(".")[2]]
            datetime.fromisoformat(message["createdDateTime"])
            shipment = message["context"]["shipment"]
            assert shipment["shipmentId"] == sid and set(message["context"]) == {"shipment"}
            assert {"identifiers", "attributes", "createdDateTime", "lastModifiedDateTime"} <= set(
                shipment
            )

    def data(kind: str, index: int = 0) -> Any:
        return got[kind][index].json()["data"]

    assert data("shipments.v1.shipment.created") == {}
    created = got["shipments.v1.shipment.created"][0].json()["context"]["shipment"]
    assert created["identifiers"] == [{"type": "AIR_WAYBILL", "value": "020-12345675"}]
    assert created["shipmentShareLink"].startswith(tenant.service.url)
    assert created["shipmentShareLink"] == tenant.http.get(shipment_path(sid)).json().get(
        "shipmentShareLink", created["shipmentShareLink"]
    )
    added = [data("shipments.v1.event.added", i)["eventNotification"]["event"] for i in (0, 1)]
    assert [e["id"] for e in added] == [first["id"], second["id"]]
    assert data("shipments.v1.event.updated")["eventNotification"]["event"]["description"] == (
        "picked up at dock 4"
    )
    # A removed item carries its last known value.
    assert data("shipments.v1.event.removed")["eventNotification"]["event"]["id"] == second["id"]
    states = [data("shipments.v1.state.added", i)["stateNotification"]["state"] for i in (0, 1)]
    assert [s["type"] for s in states] == ["SCHEDULED", "IN_TRANSIT"]
    removed = data("shipments.v1.state.removed")["stateNotification"]["state"]
    assert removed["type"] == "IN_TRANSIT" and removed["id"] == states[1]["id"]
    closed = data("shipments.v1.state.updated")["stateNotification"]["state"]
    assert closed["type"] == "SCHEDULED" and closed["endDateTime"]
    problem = data("shipments.v1.exception.addedOrUpdated")["exceptionNotification"]["exception"]
    assert problem["type"] == "DELAY" and problem["status"] == "OPEN"
    deleted = data("shipments.v1.shipment.deleted")["shipmentNotification"]["shipment"]
    assert deleted["shipmentId"] == sid
    # The deleted shipment's context is its last known value (ocean identifiers by then).
    last = got["shipments.v1.shipment.deleted"][0].json()["context"]["shipment"]
    assert last["identifiers"] == [{"type": "BOOKING_NUMBER", "value": "BK123"}]


def test_include_context_adds_route_and_related_shipments(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    variants = {
        "default": None,
        "shipment": ["SHIPMENT"],
        "route": ["ROUTE"],
        "related": ["RELATED_SHIPMENTS"],
        "all": ["SHIPMENT", "ROUTE", "RELATED_SHIPMENTS"],
    }
    for name, include in variants.items():
        settings: dict[str, Any] = {}
        if include is not None:
            settings["shipmentV1Event"] = {"includeContext": include}
        configure(
            tenant,
            hooks.url(f"/{name}"),
            "shipments.v1.shipment.created",
            webhookConfiguration=settings,
        )
    parent = create(tenant, air_body("020-99999996"))["id"]
    hooks.wait_for(len(variants))  # the parent's messages
    stops = [str(uuid.uuid4()), str(uuid.uuid4())]
    route = {
        "stops": [
            {"id": stops[0], "location": {"address": {"city": "Chicago", "country": "US"}}},
            {"id": stops[1], "location": {"address": {"city": "Dallas", "country": "US"}}},
        ],
        "routeSegments": [
            {"id": str(uuid.uuid4()), "fromStopId": stops[0], "toStopId": stops[1],
             "transportationMode": "AIR"}
        ],
    }  # fmt: skip
    child = create(
        tenant,
        air_body(routeInfo=route, relatedShipments=[{"id": parent, "relationType": "PARENT"}]),
    )["id"]
    hooks.wait_for(2 * len(variants))

    def context(name: str) -> dict[str, Any]:
        for request in hooks.received():
            message = request.json()
            if request.path == f"/{name}" and message["context"]["shipment"]["shipmentId"] == child:
                found: dict[str, Any] = message["context"]
                return found
        raise AssertionError(f"no message for {name}")

    assert set(context("default")) == {"shipment"}
    assert context("shipment") == context("default")
    with_route = context("route")
    assert set(with_route) == {"shipment", "route"}
    assert [s["id"] for s in with_route["route"]["stops"]] == stops
    assert with_route["route"]["routeSegments"][0]["transportationMode"] == "AIR"
    related = context("related")
    assert set(related) == {"shipment", "relatedShipments"}
    assert related["relatedShipments"] == [{"id": parent, "relationType": "PARENT"}]
    assert set(context("all")) == {"shipment", "route", "relatedShipments"}


def test_filters_by_event_type_and_transportation_mode(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    configs = [
        configure(
            tenant,
            hooks.url("/arrivals"),
            "shipments.v1.event.added",
            webhookConfiguration={"filters": {"eventTypes": ["ARRIVAL_AT_STOP"]}},
        ),
        configure(
            tenant,
            hooks.url("/ocean-created"),
            "shipments.v1.shipment.created",
            webhookConfiguration={"filters": {"transportationModes": ["OCEAN"]}},
        ),
        configure(
            tenant,
            hooks.url("/air-events"),
            "shipments.v1.event.added",
            webhookConfiguration={"filters": {"transportationModes": ["AIR", "TL"]}},
        ),
        configure(tenant, hooks.url("/everything"), "shipments.v1.event.added"),
    ]
    air = create(tenant, air_body(events=[event("ARRIVAL_AT_STOP"), event("PICKED_UP", 1)]))
    ocean = create(
        tenant,
        {
            "identifiers": [{"type": "BOOKING_NUMBER", "value": "BK-1"}],
            "events": [event("ARRIVAL_AT_STOP", 2)],
        },
    )
    hooks.wait_for(3 + 2 + 2 + 1)
    settled(tenant.service, *(c["id"] for c in configs))

    def seen(path: str) -> list[tuple[str, str]]:
        found = []
        for request in hooks.received():
            if request.path == path:
                message = request.json()
                notification = message["data"].get("eventNotification") or {}
                found.append(
                    (
                        message["context"]["shipment"]["shipmentId"],
                        notification.get("event", {}).get("type", message["eventType"]),
                    )
                )
        return sorted(found)

    assert seen("/everything") == sorted(
        [(air["id"], "ARRIVAL_AT_STOP"), (air["id"], "PICKED_UP"), (ocean["id"], "ARRIVAL_AT_STOP")]
    )
    assert seen("/arrivals") == sorted(
        [(air["id"], "ARRIVAL_AT_STOP"), (ocean["id"], "ARRIVAL_AT_STOP")]
    )
    assert seen("/air-events") == sorted([(air["id"], "ARRIVAL_AT_STOP"), (air["id"], "PICKED_UP")])
    assert seen("/ocean-created") == [(ocean["id"], "shipments.v1.shipment.created")]


def test_classic_push_sends_the_tracking_history_on_every_change(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    config = configure(tenant, hooks.url("/classic"))
    sid = create(tenant, air_body(events=[event("PICKED_UP")]))["id"]
    history_path = shipment_path(sid, "tracking/history")
    eventually(
        lambda: hooks.received() and hooks.bodies()[-1] == tenant.http.get(history_path).json()
    )
    before = len(hooks.received())
    receive(
        tenant,
        lambda s: store.set_state(s, sid, ShipmentStateType.IN_TRANSIT, T0, source="AIR"),
    )
    eventually(lambda: len(hooks.received()) > before)
    current = tenant.http.get(history_path).json()
    eventually(lambda: hooks.bodies()[-1] == current)
    assert sorted(s["type"] for s in hooks.bodies()[-1]["states"]) == ["IN_TRANSIT", "SCHEDULED"]
    for request in hooks.received():
        assert_signed(request, config["signingSecret"])
    log = deliveries(tenant, config["id"])["deliveries"]
    assert {d["eventType"] for d in log} == {"shipment.trackingHistory"}
    assert all(d["shipmentId"] == sid for d in log)
    # A deleted shipment has no history to send.
    count = len(hooks.received())
    logged = deliveries(tenant, config["id"])["totalItems"]
    assert tenant.http.delete(shipment_path(sid)).status_code == 202
    settled(tenant.service, config["id"])
    assert len(hooks.received()) == count
    assert deliveries(tenant, config["id"])["totalItems"] == logged


def test_method_headers_params_and_signature(tenant: TenantHandle, hooks: Receiver) -> None:
    config = configure(
        tenant,
        hooks.url("/in") + "?fixed=1&region=eu",
        "shipments.v1.shipment.created",
        method="PATCH",
        methodHeaders={"X-Team": "dispatch", "X-Trace": "abc"},
        methodParams={"source": "freightdesk", "region": "na"},
    )
    create(tenant, air_body())
    request = hooks.wait_for(1)[0]
    assert request.method == "PATCH" and request.path == "/in"
    assert request.query == {"fixed": ["1"], "region": ["na"], "source": ["freightdesk"]}
    assert request.headers["x-team"] == "dispatch" and request.headers["x-trace"] == "abc"
    assert_signed(request, config["signingSecret"])
    assert request.headers["webhook-signature"].startswith("v1,")
    assert abs(int(request.headers["webhook-timestamp"]) - time.time()) < 30
    # Any other secret does not verify.
    assert not signing.verify(
        signing.new_secret(), request.headers, request.body, now=int(time.time())
    )

    rotated = tenant.http.post(f"{HOOKS}/{config['id']}/signing-secret")
    assert rotated.status_code == 200
    new_secret = rotated.json()["signingSecret"]
    assert new_secret.startswith("whsec_") and new_secret != config["signingSecret"]
    assert rotated.json()["previousSecretExpiresDateTime"]
    create(tenant, air_body("020-99999996"))
    later = hooks.wait_for(2)[1]
    # During the grace period both secrets verify: receivers switch without losing messages.
    assert len(later.headers["webhook-signature"].split()) == 2
    assert_signed(later, new_secret)
    assert_signed(later, config["signingSecret"])


def test_a_get_configuration_still_sends_the_body(tenant: TenantHandle, hooks: Receiver) -> None:
    configure(tenant, hooks.url("/get"), "shipments.v1.shipment.created", method="GET")
    sid = create(tenant, air_body())["id"]
    request = hooks.wait_for(1)[0]
    assert request.method == "GET"
    assert request.json()["context"]["shipment"]["shipmentId"] == sid


# --- authentication --------------------------------------------------------------------------


def test_api_keys_basic_and_deprecated_auth(tenant: TenantHandle, hooks: Receiver) -> None:
    configure(
        tenant,
        hooks.url("/keys"),
        "shipments.v1.shipment.created",
        authenticationMethods=[
            {"type": "API_KEY", "parameters": {"apiKey": "key-one"}},
            {"type": "API_KEY", "parameters": {"headerName": "X-Second", "apiKey": "key-two"}},
        ],
    )
    configure(
        tenant,
        hooks.url("/basic"),
        "shipments.v1.shipment.created",
        authenticationMethods=[
            {"type": "BASIC", "parameters": {"username": "hooks", "password": "pa55"}}
        ],
    )
    old = configure(
        tenant,
        hooks.url("/deprecated"),
        "shipments.v1.shipment.created",
        authType="API_KEY",
        authParams={"headerName": "X-Old", "apiKey": "old-key"},
    )
    create(tenant, air_body())
    hooks.wait_for(3)
    by_path = {r.path: r.headers for r in hooks.received()}
    assert by_path["/keys"]["x-api-key"] == "key-one"
    assert by_path["/keys"]["x-second"] == "key-two"
    assert by_path["/basic"]["authorization"] == "Basic aG9va3M6cGE1NQ=="
    assert by_path["/deprecated"]["x-old"] == "old-key"
    # Editing with the masked key sent back keeps delivering the real key.
    old.pop("signingSecret")
    assert tenant.http.put(HOOKS, json={**old, "methodHeaders": {"X-Edit": "1"}}).status_code == 200
    create(tenant, air_body("020-99999996"))
    hooks.wait_for(6)
    edited = [r for r in hooks.received() if r.path == "/deprecated"][-1]
    assert edited.headers["x-old"] == "old-key" and edited.headers["x-edit"] == "1"


def _behind_oauth2(
    tenant: TenantHandle, hooks: Receiver, secret: str = "s3cret", **parameters: str
) -> dict[str, Any]:
    """A configuration for created shipments sent to `hooks` behind OAuth2 client
    credentials, whose token endpoint takes the secret "s3cret"; `secret` is the one sent."""
    hooks.tokens.client_secret = "s3cret"
    method = {"tokenUrl": hooks.url("/token"), "clientId": "freightdesk", "clientSecret": secret}
    return configure(
        tenant,
        hooks.url("/oauth"),
        "shipments.v1.shipment.created",
        authenticationMethods=[{"type": "OAUTH2", "parameters": method | parameters}],
    )


def test_oauth2_token_is_fetched_once_and_reused(tenant: TenantHandle, hooks: Receiver) -> None:
    _behind_oauth2(tenant, hooks, scope="shipments.read")
    for value in ("020-12345675", "020-99999996", "020-11111115"):
        create(tenant, air_body(value))
    requests = hooks.wait_for(3)
    assert len(hooks.tokens.issued) == 1
    assert {r.headers["authorization"] for r in requests} == {f"Bearer {hooks.tokens.issued[0]}"}
    assert hooks.tokens.forms[0]["scope"] == "shipments.read"


def test_a_401_from_the_receiver_fetches_a_new_token(tenant: TenantHandle, hooks: Receiver) -> None:
    answers = iter([401])
    hooks.answer = lambda _r: (next(answers, 200), {})
    _behind_oauth2(tenant, hooks)
    create(tenant, air_body())
    refused, accepted = hooks.wait_for(2)
    assert len(hooks.tokens.issued) == 2
    assert refused.headers["authorization"] == f"Bearer {hooks.tokens.issued[0]}"
    assert accepted.headers["authorization"] == f"Bearer {hooks.tokens.issued[1]}"


def test_oauth2_token_refused_is_an_attempt_error(tenant: TenantHandle, hooks: Receiver) -> None:
    config = _behind_oauth2(tenant, hooks, secret="wrong")
    create(tenant, air_body())
    attempts = eventually(
        lambda: (
            (log := deliveries(tenant, config["id"])["deliveries"])
            and len(log[0]["attempts"]) >= 2
            and log[0]["attempts"]
        )
    )
    assert "token endpoint" in attempts[0]["error"] and "401" in attempts[0]["error"]
    assert "statusCode" not in attempts[0]
    assert hooks.received() == []


@pytest.mark.parametrize("rsa_key", [True, False], ids=["RS256", "ES256"])
def test_ad_oauth2_cert_proves_the_client_with_its_certificate(
    tenant: TenantHandle, hooks: Receiver, rsa_key: bool
) -> None:
    client = issue(authority("entra-test"), "freightdesk-app", rsa_key=rsa_key)
    hooks.tokens.certificate_pem = client.certificate
    hooks.tokens.client_secret = None
    configure(
        tenant,
        hooks.url("/ad"),
        "shipments.v1.shipment.created",
        authenticationMethods=[
            {
                "type": "AD_OAUTH2_CERT",
                "parameters": {
                    "tokenUrl": hooks.url("/token"),
                    "clientId": "freightdesk",
                    "certificatePem": client.certificate,
                    "privateKeyPem": client.key,
                    "resource": "api://receiver",
                },
            }
        ],
    )
    create(tenant, air_body())
    request = hooks.wait_for(1)[0]
    assert hooks.tokens.issued, hooks.tokens.forms
    assert request.headers["authorization"] == f"Bearer {hooks.tokens.issued[0]}"
    assert hooks.tokens.forms[0]["resource"] == "api://receiver"


def test_mtls_presents_the_client_certificate(tenant: TenantHandle) -> None:
    server_ca = authority("receiver-ca")
    client_ca = authority("client-ca")
    rogue_ca = authority("rogue-ca")
    tls = server_tls(issue(server_ca, "receiver", server=True), client_ca[0])
    good = issue(client_ca, "freightdesk")
    bad = issue(rogue_ca, "intruder")
    with receiver(tls) as secure:

        def mtls(pem: Any) -> list[dict[str, Any]]:
            parameters = {
                "certificatePem": pem.certificate,
                "privateKeyPem": pem.key,
                "caCertificatePem": server_ca[0].certificate,
            }
            return [{"type": "MTLS", "parameters": parameters}]

        configure(
            tenant,
            secure.url("/good"),
            "shipments.v1.shipment.created",
            authenticationMethods=mtls(good),
        )
        refused = configure(
            tenant,
            secure.url("/bad"),
            "shipments.v1.shipment.created",
            authenticationMethods=mtls(bad),
        )
        sid = create(tenant, air_body())["id"]
        request = secure.wait_for(1)[0]
        assert request.path == "/good"
        assert request.json()["context"]["shipment"]["shipmentId"] == sid
        log = eventually(lambda: deliveries(tenant, refused["id"])["deliveries"][0]["attempts"])
        # The receiver refuses the certificate with a TLS alert, or (Python's test server,
        # failing in accept) by dropping the connection: either way plainly said.
        assert log[0]["error"] in (
            "The receiver did not accept the client certificate (MTLS; TLS refused)",
            "The receiver closed the connection without answering",
        ), log[0]
        assert log[0]["errorDetail"].startswith("Closed: ") and "statusCode" not in log[0]
        assert [r.path for r in secure.received()] == ["/good"]
