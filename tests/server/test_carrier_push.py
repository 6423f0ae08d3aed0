"""Carrier push over real HTTP: validation, the 202 answers, the receipts, tenant rules."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx

from tests.server.test_carrier_push_support import (
    INGESTIONS,
    PARCEL,
    TRUCKLOAD,
    accepted,
    ingestion,
    iso,
    java_time,
    now,
    parcel_body,
    refused,
    stored_pushes,
    truckload_body,
    unique,
)
from tests.support import TenantHandle

# --- parcel status updates -----------------------------------------------------------------


def test_parcel_update_is_accepted_with_an_ingestion_id(tenant: TenantHandle) -> None:
    ingestion_id = accepted(tenant.http.post(PARCEL, json=parcel_body(unique("1Z"))))
    receipt = ingestion(tenant, ingestion_id)
    assert receipt["ingestionId"] == ingestion_id
    assert receipt["status"] in {"PENDING", "UNMATCHED"}
    assert receipt["receivedDateTime"].endswith("Z")


def test_parcel_event_types_need_their_fields(tenant: TenantHandle) -> None:
    for event_type, extra, source, message in [
        ("POSITION_UPDATE", {}, "location", "is required for POSITION_UPDATE"),
        ("POSITION_UPDATE", {"location": {}}, "location", "geoCoordinates or an address"),
        ("ETA", {}, "estimatedTimeOfArrival", "is required for an ETA event"),
    ]:
        body = parcel_body(unique("1Z"), event_type, **extra)
        assert message in refused(tenant.http.post(PARCEL, json=body), source)


def test_parcel_event_types_with_their_fields_are_accepted(tenant: TenantHandle) -> None:
    tracking = unique("1Z")
    geo = {"geoCoordinates": {"latitude": 33.7, "longitude": -84.4}}
    address = {"address": {"city": "Atlanta", "state": "GA", "country": "US"}}
    eta = java_time(now() + timedelta(days=2))
    for event_type, extra in [
        ("POSITION_UPDATE", {"location": geo}),
        ("POSITION_UPDATE", {"location": address}),
        ("ETA", {"estimatedTimeOfArrival": eta}),
        ("EXCEPTION", {}),  # nothing beyond the required fields
        ("DELIVERY_MISSED", {"description": "Nobody home"}),
    ]:
        accepted(tenant.http.post(PARCEL, json=parcel_body(tracking, event_type, **extra)))


def test_parcel_timestamp_follows_the_java_pattern(tenant: TenantHandle) -> None:
    for timestamp in [
        "2026-01-05T14:05:00+0000",
        "2026-01-05T09:05:00-0500",
        "2026-01-05T14:05:00Z",
        "2026-01-05T15:05:00+01:00",
    ]:
        body = parcel_body(unique("1Z"), timestamp=timestamp)
        accepted(tenant.http.post(PARCEL, json=body))
    for wrong in [
        "2026-01-05T14:05:00.250+0000",  # fractions are not in the pattern
        "2026-01-05T14:05:00",  # no offset
        "2026-01-05T14:05+0000",  # no seconds
        "2026-01-05 14:05:00+0000",  # no T
        "2026-01-05",
        "05/01/2026 14:05",
        "2026-02-30T14:05:00+0000",  # no such day
        1767621900,  # a number is not the pattern
    ]:
        body = parcel_body(unique("1Z"), timestamp=wrong)
        refused(tenant.http.post(PARCEL, json=body), "timestamp")


def test_parcel_refusals_name_the_field(tenant: TenantHandle) -> None:
    def post(**changes: Any) -> httpx.Response:
        body = {**parcel_body(unique("1Z")), **changes}
        return tenant.http.post(PARCEL, json={k: v for k, v in body.items() if v is not None})

    refused(post(shipmentIdentifiers=[]), "shipmentIdentifiers")
    refused(post(shipmentIdentifiers=[{"type": "TRACKING_NUMBER"}]), "shipmentIdentifiers[0].value")
    refused(post(carrierIdentifier=None), "carrierIdentifier")
    refused(post(eventType="TELEPORTED"), "eventType")
    refused(post(eventType=None), "eventType")
    refused(post(timestamp=None), "timestamp")
    refused(post(estimatedTimeOfArrival="tomorrow"), "estimatedTimeOfArrival")
    refused(post(shipmentIdentifer=[]), "shipmentIdentifer")  # misspelt: not silently dropped
    late = java_time(now() + timedelta(minutes=6))
    assert "5 minutes in the future" in refused(post(timestamp=late), "timestamp")
    bad_place = {"geoCoordinates": {"latitude": 91, "longitude": 0}}
    body = parcel_body(unique("1Z"), "POSITION_UPDATE", location=bad_place)
    refused(tenant.http.post(PARCEL, json=body), "location.geoCoordinates.latitude")


# --- truckload tracking updates --------------------------------------------------------------


def test_truckload_update_is_accepted_with_an_ingestion_id(tenant: TenantHandle) -> None:
    reefer = {
        "dateTime": iso(now()),
        "sensor": {
            "ignitionStatus": "ON",
            "reefer": {"state": "ON", "powerSource": "DIESEL", "engineRpm": 1450},
            "fuel": {"type": "DIESEL", "fuelUnit": "PERCENT_REMAINING", "currentLevel": 62},
            "ambientTemperature": {"value": 4.5, "unit": "CELSIUS"},
            "tirePressure": [{"axle": 1, "position": "LEFT_OUTER", "psi": 101}],
            "zones": [
                {
                    "id": 1,
                    "returnAirTemperature": 3.1,
                    "setPoint": 2,
                    "temperatureUnit": "CELSIUS",
                    "humidity": {"percentage": 40},
                    "battery": {"percentage": 90},
                    "doorState": "CLOSED",
                }
            ],
        },
    }
    bodies = [
        truckload_body(unique("BOL")),
        truckload_body(order=unique("PO"), readings=reefer),
        truckload_body(
            unique("BOL"),
            shipmentEvent={"type": "ARRIVAL_AT_STOP", "dateTime": iso(now()), "stopNumber": 1},
        ),
    ]
    for body in bodies:
        ingestion_id = accepted(tenant.http.post(TRUCKLOAD, json=body))
        assert ingestion(tenant, ingestion_id)["ingestionId"] == ingestion_id


def test_truckload_push_answers_alike_whatever_the_credentials(tenant: TenantHandle) -> None:
    # One handler answers every push: the usual one (bearer token, JSON), another role, a
    # bad role header (found after the body was read) and a clock refused after validation.
    answer = tenant.http.post(TRUCKLOAD, json=truckload_body(unique("BOL")))
    ingestion_id = accepted(answer)
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-support-reference-id"]
    # A new bill of lading matches no shipment: kept, waiting or already tried, never failed.
    assert ingestion(tenant, ingestion_id)["status"] in {"PENDING", "UNMATCHED"}
    with tenant.as_role("NEITHER") as odd:
        refused(odd.post(TRUCKLOAD, json=truckload_body(unique("BOL"))), "x-tenant-role")
    with tenant.as_role("CARRIER") as carrier:
        accepted(carrier.post(TRUCKLOAD, json=truckload_body(unique("BOL"))))
    too_soon = truckload_body(
        unique("BOL"),
        readings={
            "dateTime": iso(now() + timedelta(days=2)),
            "position": {"latitude": 41.5, "longitude": -87.6},
        },
    )
    refused(tenant.http.post(TRUCKLOAD, json=too_soon), "truckload.readings.dateTime")


def test_pushes_with_the_deprecated_basic_authentication_are_accepted_and_marked(
    tenant: TenantHandle,
) -> None:
    for path, body in (
        (TRUCKLOAD, truckload_body(unique("BOL"))),
        (PARCEL, parcel_body(unique("1Z"))),
    ):
        answer = httpx.post(f"{tenant.service.url}{path}", json=body, auth=tenant.admin)
        ingestion_id = accepted(answer)
        assert answer.headers["deprecation"] == "true"
        assert "successor-version" in answer.headers["link"]
        assert ingestion(tenant, ingestion_id)["ingestionId"] == ingestion_id


def test_push_refusals_come_in_the_order_of_the_interface(tenant: TenantHandle) -> None:
    url = f"{tenant.service.url}{TRUCKLOAD}"
    json_type = {"content-type": "application/json"}
    # Malformed JSON is refused before the credentials are looked at; a body that is JSON
    # but not an update is refused only to a caller with credentials.
    for client in (tenant.http, httpx.Client()):
        malformed = client.post(url, content=b'{"truckload": ', headers=json_type)
        assert malformed.status_code == 400, malformed.text
        assert malformed.json()["errorMessage"] == "The request body is not valid JSON"
        assert malformed.json()["errors"][0]["diagnostic"] == "json_invalid"
    anonymous = httpx.post(url, json={"truckload": {}})
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"].startswith("Bearer")
    for content in (b"", b"null", b"[]", b'"x"'):
        refused(tenant.http.post(url, content=content, headers=json_type), "body")
    not_text = tenant.http.post(url, content=b"\x9a>?\xda", headers=json_type)
    assert not_text.status_code == 400, not_text.text
    assert not_text.json()["errorMessage"] == "There was an error parsing the body"
    # JSON in another JSON media type is JSON; a body of another type or none is not.
    suffixed = {"content-type": "application/vnd.carrier+json; charset=utf-8"}
    body = json.dumps(truckload_body(unique("BOL"))).encode()
    accepted(tenant.http.post(url, content=body, headers=suffixed))
    for headers in ({"content-type": "text/plain"}, {"content-type": ""}):
        assert tenant.http.post(url, content=body, headers=headers).status_code == 415
    # The parcel's unknown fields, inside its lenient parts too, are named to the caller.
    with_extra = parcel_body(unique("1Z"))
    with_extra["location"] = {"planet": "Earth"}
    refused(tenant.http.post(PARCEL, json=with_extra), "location.planet")
    assert httpx.post(f"{tenant.service.url}{PARCEL}", json=with_extra).status_code == 401
    # Other methods on a push path are not allowed, and say which one is.
    for path in (TRUCKLOAD, PARCEL):
        wrong = tenant.http.get(path)
        assert wrong.status_code == 405
        assert wrong.headers["allow"] == "POST"
        assert wrong.json()["httpStatusCode"] == 405


TRUCKLOAD_REFUSALS: list[tuple[dict[str, Any], str]] = [
    ({}, "truckload"),
    ({"truckload": {"identifiers": {}, "readings": {}}}, "truckload.identifiers"),
    (truckload_body(" "), "truckload.identifiers.billOfLadingNumber"),
    ({"truckload": {"identifiers": {"orderNumber": "PO1"}}}, "truckload"),
    (truckload_body("B", readings={"dateTime": "2026-01-05T10:00:00Z"}), "truckload.readings"),
    (
        truckload_body("B", readings={"dateTime": "2026-01-05T10:00:00Z", "sensor": {}}),
        "truckload.readings.sensor",
    ),
    (
        truckload_body("B", readings={"position": {"latitude": 1, "longitude": 2}}),
        "truckload.readings.dateTime",
    ),
    (
        truckload_body(
            "B", readings={"dateTime": "2026-01-05T10:00:00Z", "position": {"latitude": 1}}
        ),
        "truckload.readings.position.longitude",
    ),
    (
        truckload_body(
            "B",
            readings={
                "dateTime": "2026-01-05T10:00:00Z",
                "position": {"latitude": 1, "longitude": 200},
            },
        ),
        "truckload.readings.position.longitude",
    ),
    (
        truckload_body(
            "B",
            readings={
                "dateTime": "2026-01-05T10:00:00Z",
                "position": {"latitude": 1, "longitude": 2, "speed": 3, "speedUnit": "MPH"},
            },
        ),
        "truckload.readings.position.speedUnit",
    ),
    (
        truckload_body("B", shipmentEvent={"dateTime": "2026-01-05T10:00:00Z"}),
        "truckload.shipmentEvent.type",
    ),
    (truckload_body("B", shipmentEvent={"type": "X"}), "truckload.shipmentEvent.dateTime"),
    (
        truckload_body("B", shipmentEvent={"type": "X" * 61, "dateTime": "2026-01-05T10:00:00Z"}),
        "truckload.shipmentEvent.type",
    ),
    (
        truckload_body("B", shipmentEvent={"type": "X", "dateTime": "2026-01-05T10:00:00"}),
        "truckload.shipmentEvent.dateTime",
    ),
    (
        truckload_body("B", shipmentEvent={"type": "X", "dateTime": 1767607200}),
        "truckload.shipmentEvent.dateTime",
    ),
    (
        truckload_body("B", shipmentEvent={"type": "X", "dateTime": "yesterday"}),
        "truckload.shipmentEvent.dateTime",
    ),
    (
        truckload_body(
            "B",
            shipmentEvent={"type": "X", "dateTime": "2026-01-05T10:00:00Z", "stopNumber": 0},
        ),
        "truckload.shipmentEvent.stopNumber",
    ),
    ({"customerAccountNumber": "x" * 129, **truckload_body("B")}, "customerAccountNumber"),
    ({**truckload_body("B"), "shipperId": "1"}, "shipperId"),
]


def test_truckload_refusals_name_the_field(tenant: TenantHandle) -> None:
    for body, source in TRUCKLOAD_REFUSALS:
        refused(tenant.http.post(TRUCKLOAD, json=body), source)


def test_values_of_another_json_type_are_refused_not_coerced(tenant: TenantHandle) -> None:
    """Values pydantic's lax mode would convert ("41.5", true for a number) are refused with
    the JSON type the field wants, also inside the lenient shapes a parcel update holds; a
    whole number is taken where a number is. The usual body's values are checked by type
    alone (issue 18): each kind of mistake must still reach the full check."""
    stamp = iso(now() - timedelta(minutes=1))

    def readings(**position: Any) -> dict[str, Any]:
        return {"dateTime": stamp, "position": {"latitude": 41.5, "longitude": -87.6, **position}}

    cases = [
        ("latitude", "41.5", "a number, not text"),
        ("speed", True, "a number, not a boolean"),
        ("heading", [90], "a number, not an array"),
    ]
    for field, value, problem in cases:
        body = truckload_body("B", readings=readings(**{field: value}))
        source = f"truckload.readings.position.{field}"
        message = refused(tenant.http.post(TRUCKLOAD, json=body), source)
        assert message == f"must be {problem}", message
    event = {"type": "ARRIVAL_AT_STOP", "dateTime": stamp, "stopNumber": "1"}
    message = refused(
        tenant.http.post(TRUCKLOAD, json=truckload_body("B", shipmentEvent=event)),
        "truckload.shipmentEvent.stopNumber",
    )
    assert message == "must be an integer, not text", message
    identifiers = [{"type": "TRACKING_NUMBER", "value": 12345}]
    message = refused(
        tenant.http.post(PARCEL, json={**parcel_body("1Z"), "shipmentIdentifiers": identifiers}),
        "shipmentIdentifiers[0].value",
    )
    assert message == "must be a string, not an integer", message
    place = {"geoCoordinates": {"latitude": "41.5", "longitude": -87.6}}
    body = parcel_body(unique("1Z"), "POSITION_UPDATE", location=place)
    message = refused(tenant.http.post(PARCEL, json=body), "location.geoCoordinates.latitude")
    assert message == "must be a number, not text", message
    whole = truckload_body(unique("BOL"), readings=readings(latitude=41, speed=55))
    accepted(tenant.http.post(TRUCKLOAD, json=whole))


def test_truckload_timestamps_at_most_five_minutes_ahead(tenant: TenantHandle) -> None:
    soon, late = iso(now() + timedelta(minutes=4)), iso(now() + timedelta(minutes=6))
    position = {"latitude": 41.9, "longitude": -87.6}
    accepted(
        tenant.http.post(
            TRUCKLOAD,
            json=truckload_body(
                "B1",
                shipmentEvent={"type": "ARRIVAL_AT_STOP", "dateTime": soon},
                readings={"dateTime": soon, "position": position},
            ),
        )
    )
    event = truckload_body("B1", shipmentEvent={"type": "ARRIVAL_AT_STOP", "dateTime": late})
    message = refused(tenant.http.post(TRUCKLOAD, json=event), "truckload.shipmentEvent.dateTime")
    assert "5 minutes in the future" in message
    readings = truckload_body("B1", readings={"dateTime": late, "position": position})
    refused(tenant.http.post(TRUCKLOAD, json=readings), "truckload.readings.dateTime")


def test_a_refused_push_is_not_stored(tenant: TenantHandle) -> None:
    accepted(tenant.http.post(TRUCKLOAD, json=truckload_body("B1")))
    before = stored_pushes(tenant)
    late = iso(now() + timedelta(hours=1))
    for answer in [
        tenant.http.post(TRUCKLOAD, json={"truckload": {"identifiers": {}}}),
        tenant.http.post(
            TRUCKLOAD, json=truckload_body("B1", shipmentEvent={"type": "X", "dateTime": late})
        ),
        tenant.http.post(PARCEL, json=parcel_body("1Z", "ETA")),
        tenant.http.post(TRUCKLOAD, content=b"{", headers={"content-type": "application/json"}),
    ]:
        assert answer.status_code == 400
        assert "ingestionId" not in answer.json()
    assert stored_pushes(tenant) == before


def test_bad_requests_get_the_error_body(tenant: TenantHandle) -> None:
    malformed = tenant.http.post(
        TRUCKLOAD, content=b"{nope", headers={"content-type": "application/json"}
    )
    assert malformed.status_code == 400
    assert malformed.json()["errorMessage"] == "The request body is not valid JSON"
    text = tenant.http.post(TRUCKLOAD, content=b"x", headers={"content-type": "text/plain"})
    assert text.status_code == 415
    anonymous = httpx.post(f"{tenant.service.url}{TRUCKLOAD}", json=truckload_body("B1"))
    assert anonymous.status_code == 401
    assert anonymous.json()["httpStatusCode"] == 401


# --- receipts and tenants ------------------------------------------------------------------


def test_a_receipt_is_only_for_the_tenant_that_pushed(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    ingestion_id = accepted(tenant.http.post(TRUCKLOAD, json=truckload_body("B1")))
    assert other.http.get(f"{INGESTIONS}/{ingestion_id}").status_code == 404
    assert tenant.http.get(f"{INGESTIONS}/{ingestion_id.upper()}").status_code == 200
    missing = tenant.http.get(f"{INGESTIONS}/not-an-id")
    assert missing.status_code == 404 and missing.json()["httpStatusCode"] == 404


def test_only_a_carrier_may_push_for_another_tenant(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    customer = tenant_factory()
    carrier = tenant_factory("CARRIER")
    for_customer = {"customerAccountNumber": customer.uuid, **truckload_body("B1")}
    refused(tenant.http.post(TRUCKLOAD, json=for_customer), "customerAccountNumber", 403)
    accepted(carrier.http.post(TRUCKLOAD, json=for_customer))
    # Upper case works too: it is the same tenant id.
    shouting = {**for_customer, "customerAccountNumber": customer.uuid.upper()}
    accepted(carrier.http.post(TRUCKLOAD, json=shouting))
    nobody = {"customerAccountNumber": "0" * 128, **truckload_body("B1")}
    assert "no customer tenant" in refused(
        carrier.http.post(TRUCKLOAD, json=nobody), "customerAccountNumber"
    )
    # A tenant naming itself is just its own push.
    accepted(
        tenant.http.post(
            TRUCKLOAD, json={"customerAccountNumber": tenant.uuid, **truckload_body("B1")}
        )
    )
    parcel = {**parcel_body("1Z"), "customerAccountNumber": customer.uuid}
    accepted(carrier.http.post(PARCEL, json=parcel))
    refused(tenant.http.post(PARCEL, json=parcel), "customerAccountNumber", 403)
