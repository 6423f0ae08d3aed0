"""The OpenAPI document the service serves is one integrators can generate clients from."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import httpx
import pytest

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
    qualified = [name for name in schemas if "__" in name or "-" in name]
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
