"""The OpenAPI document the service serves is one integrators can generate clients from."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import httpx
import pytest
import yaml

from freightdesk.server.openapi import OPERATION_IDS
from tests.support import LiveService

METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture(scope="module")
def document(sqlite_service: LiveService) -> dict[str, Any]:
    answer = httpx.get(f"{sqlite_service.url}/openapi.json", timeout=120)
    answer.raise_for_status()
    found: dict[str, Any] = answer.json()
    return found


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_schema_names_are_plain_unique_and_their_own_titles(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    qualified = [name for name in schemas if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name)]
    assert qualified == []
    assert [name for name, schema in schemas.items() if schema.get("title") != name] == []
    # What the clashes were: two modules' models of one class name, each now named for its area.
    for name in (
        "CapacityCarrierIdentifier",
        "VehicleCarrierIdentifier",
        "PackageHazmatDetail",
        "VolumeLtlHazmatDetail",
        "RateAccessorial",
        "PackageAccessorial",
        "AppointmentWindow",
        "RailAppointmentWindow",
        "CapacityCarrierIdentifierType",
        "CapacityProviderIdentifierType",
    ):
        assert name in schemas
    assert schemas["CapacityCarrierIdentifierType"]["enum"] == ["SCAC"]
    assert "FFW_SCAC" in schemas["CapacityProviderIdentifierType"]["enum"]


def test_every_reference_resolves_and_every_schema_is_used(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    text = json.dumps(document)
    referenced = Counter(re.findall(r'"#/components/schemas/([^"]+)"', text))
    assert set(referenced) - set(schemas) == set()
    assert set(schemas) - set(referenced) == set()


def test_every_operation_has_a_hand_chosen_short_unique_id_and_a_tag(
    document: dict[str, Any],
) -> None:
    found = operations(document)
    ids = [operation["operationId"] for _, _, operation in found]
    assert {f"{method} {path}": op["operationId"] for method, path, op in found} == OPERATION_IDS
    assert [i for i in ids if not re.fullmatch(r"[a-z]+(?:[A-Z0-9][a-z0-9]*)*", i)] == []
    assert [i for i in ids if len(i) > 40] == []
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert [f"{m} {p}" for m, p, op in found if not op.get("tags")] == []
    listed = [tag["name"] for tag in document["tags"]]
    assert sorted({tag for _, _, op in found for tag in op["tags"]}) == sorted(listed)
    by_id = {op["operationId"]: (m, p) for m, p, op in found}
    assert by_id["getTrackingHistory"] == ("GET", "/api/v4/shipments/{shipmentId}/tracking/history")
    assert by_id["pushTruckloadUpdate"] == ("POST", "/services/carrier-push/v1/tracking-updates")
    assert by_id["listStopLocations"] == ("GET", "/api/v4/stoplocations")


def test_security_schemes_and_every_operation_asks_for_what_the_service_checks(
    document: dict[str, Any], sqlite_service: LiveService
) -> None:
    schemes = document["components"]["securitySchemes"]
    flow = schemes["oauth2"]["flows"]["clientCredentials"]
    assert schemes["oauth2"]["type"] == "oauth2"
    assert flow["tokenUrl"] == "/api/v4/oauth2/token"
    assert schemes["basic"] == {**schemes["basic"], "type": "http", "scheme": "basic"}
    assert "security" not in document
    kinds: dict[str, list[str]] = {}
    for method, path, operation in operations(document):
        names = [name for requirement in operation["security"] for name in requirement]
        kinds.setdefault(",".join(names) or "none", []).append(f"{method} {path}")
    assert set(kinds) == {"oauth2", "basic", "none"}
    assert sorted(kinds["none"]) == [
        "GET /api/v4/public/shipments/{shareToken}",
        "GET /health",
        "GET /services/demo/v1/status",
        "POST /api/v4/oauth2/token",
    ]
    assert all(key.split(" ")[1].startswith("/api/v4/oauth2/client-") for key in kinds["basic"])
    assert len(kinds["basic"]) == 5
    # What the document says is what the service does: without credentials, every operation
    # that declares a scheme answers 401, and none of the others does.
    with httpx.Client(base_url=sqlite_service.url, timeout=30) as http:
        for kind, keys in kinds.items():
            for key in keys:
                method, path = key.split(" ")
                url = re.sub(r"\{[^}]+\}", "1", path)
                status = http.request(method, url).status_code
                assert (status == 401) == (kind != "none"), (key, status)


def test_servers_licence_contact_and_our_extensions_marked(document: dict[str, Any]) -> None:
    assert document["servers"][0]["url"] == "/"
    assert all(server.get("description") for server in document["servers"])
    assert document["info"]["license"]["name"]
    assert document["info"]["contact"]["name"]
    marked = {f"{m} {p}" for m, p, op in operations(document) if op.get("x-freightdesk-extension")}
    assert {
        "GET /health",
        "POST /api/v4/shipments/search",
        "GET /services/demo/v1/status",
    } <= marked
    assert "GET /api/v4/shipments/{shipmentId}/tracking/history" not in marked


def test_the_yaml_document_is_the_json_document(
    document: dict[str, Any], sqlite_service: LiveService
) -> None:
    answer = httpx.get(f"{sqlite_service.url}/openapi.yaml", timeout=120)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/yaml")
    assert "*id0" not in answer.text  # no YAML aliases, which some OpenAPI tools do not follow
    assert yaml.safe_load(answer.text) == document
