"""The service as a shared server: careless and hostile input over real HTTP (issue 19)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support import LiveService, TenantHandle

INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1
HUGE = 99999999999999999999999


def _refused(answer: httpx.Response, source: str) -> dict[str, Any]:
    """The Error body of a 400 that names `source` among its fields."""
    assert answer.status_code == 400, answer.text
    body: dict[str, Any] = answer.json()
    assert body["httpStatusCode"] == 400
    assert source in [error["source"] for error in body["errors"]], body
    return body


@pytest.mark.parametrize(
    ("method", "path", "source"),
    [
        ("DELETE", f"/api/v4/capacityprovideraccountgroups/{HUGE}", "id"),
        ("DELETE", f"/api/v4/capacityprovideraccountgroups/-{HUGE}", "id"),
        ("GET", f"/services/booking/v1/bookings?pageNumber={HUGE}", "pageNumber"),
        ("GET", "/services/booking/v1/bookings?pageNumber=1000001", "pageNumber"),
        ("GET", f"/services/booking/v1/packaging?pageNumber={HUGE}", "pageNumber"),
        ("POST", f"/api/v4/shipments/search?page={HUGE}", "page"),
        ("GET", f"/api/v4/stoplocations?offset={2**63}", "offset"),
        ("GET", f"/api/v4/webhooks/{HUGE}", "webhookId"),
        ("GET", f"/api/v4/webhooks/1/deliveries?offset={HUGE}", "offset"),
        ("POST", f"/api/v4/webhooks/1/deliveries/{HUGE}/redeliver", "messageId"),
    ],
)
def test_integers_beyond_the_database_are_refused_naming_the_parameter(
    tenant: TenantHandle, method: str, path: str, source: str
) -> None:
    body: dict[str, Any] | None = {} if method == "POST" else None
    _refused(tenant.http.request(method, path, json=body), source)


def test_integers_beyond_the_database_are_refused_naming_the_body_field(
    tenant: TenantHandle,
) -> None:
    hook = {"configName": "orders", "url": "https://hooks.example.com/in"}
    _refused(tenant.http.put("/api/v4/webhooks", json={**hook, "id": HUGE}), "id")
    _refused(tenant.http.put("/api/v4/webhooks", json={**hook, "version": -HUGE}), "version")
    # The largest id the database holds is an id like any other: not found, not refused.
    missing = tenant.http.delete(f"/api/v4/capacityprovideraccountgroups/{INT64_MAX}")
    assert missing.status_code == 404


def _integer_problems(document: dict[str, Any]) -> list[str]:
    """Every integer a request may carry (parameter or body field) without bounds that fit a
    64-bit column, as `METHOD path where`."""
    schemas = document["components"]["schemas"]
    problems: list[str] = []

    def walk(schema: Any, where: str, seen: frozenset[str]) -> None:
        if not isinstance(schema, dict):
            return
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            if name not in seen:
                walk(schemas[name], where, seen | {name})
            return
        if schema.get("type") == "integer":
            low, high = schema.get("minimum"), schema.get("maximum")
            # Bounds of 2**63 - 1 may come back as the nearest float, 2.0**63.
            if low is None or high is None or low < -(2**63) or high > 2**63:
                problems.append(f"{where} [{low}, {high}]")
        for key in ("anyOf", "oneOf", "allOf"):
            for option in schema.get(key, []):
                walk(option, where, seen)
        walk(schema.get("items"), f"{where}[]", seen)
        walk(schema.get("additionalProperties"), f"{where}{{}}", seen)
        for name, field in schema.get("properties", {}).items():
            walk(field, f"{where}.{name}", seen)

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                where = f"{method.upper()} {path} {parameter['in']} {parameter['name']}"
                walk(parameter.get("schema"), where, frozenset())
            for media in operation.get("requestBody", {}).get("content", {}).values():
                walk(media.get("schema"), f"{method.upper()} {path} body", frozenset())
    return problems


def test_every_integer_a_request_takes_is_bounded_in_the_openapi_document(
    sqlite_service: LiveService,
) -> None:
    document = httpx.get(f"{sqlite_service.url}/openapi.json", timeout=60).json()
    assert _integer_problems(document) == []
    # The walk sees what it should: the account group id is declared with its bounds.
    groups = document["paths"]["/api/v4/capacityprovideraccountgroups/{id}"]["delete"]
    assert groups["parameters"][0]["schema"]["minimum"] == -(2**63)
