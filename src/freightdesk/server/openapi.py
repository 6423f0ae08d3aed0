"""OpenAPI helpers: the Error body on every operation, extensions marked as such, and the
finishing of the document integrators generate clients from (schema names, operationIds,
security, servers)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from fastapi.routing import APIRoute

_ERROR_CODES = {
    400: "The request is not valid",
    401: "Missing, invalid or expired credentials",
    403: "Not allowed for this caller",
    404: "Not found (or not visible to this tenant)",
    409: "Conflicts with the current state",
    413: "Payload too large",
    415: "Unsupported content type",
    429: "Too many requests",
    500: "Internal error",
}

# By reference: /health names the model itself (server/app.py), so that FastAPI does not build
# a validator and serializer of the Error body for each of the ~700 responses (0.1-0.25 s of
# every start). The document is the same.
_ERROR_BODY = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"content": _ERROR_BODY, "description": text} for code, text in _ERROR_CODES.items()
}

# Operations the interface does not describe; marked in the OpenAPI document.
EXTENSION: dict[str, Any] = {"x-freightdesk-extension": True}

# Schema names of models whose class name another model module uses too (pydantic then names
# both after their modules, `freightdesk__models__capacity__CarrierIdentifier`, and gives both
# the same title, on which generators name their classes). Keyed by `module.Class`; a clash
# not listed here is named `<Module><Class>`.
SCHEMA_NAMES: dict[str, str] = {
    "capacity.CarrierIdentifier": "CapacityCarrierIdentifier",
    "capacity.CarrierIdentifierType": "CapacityCarrierIdentifierType",
    "vehicles.CarrierIdentifier": "VehicleCarrierIdentifier",
    "rating.CarrierIdentifierType": "CapacityProviderIdentifierType",
    "rating.Accessorial": "RateAccessorial",
    "packaging.Accessorial": "PackageAccessorial",
    "packaging.HazmatDetail": "PackageHazmatDetail",
    "vltl.HazmatDetail": "VolumeLtlHazmatDetail",
    "tracking.AppointmentWindow": "AppointmentWindow",
    "rail.AppointmentWindow": "RailAppointmentWindow",
}

_QUALIFIED = re.compile(r"^freightdesk__models__(?P<module>\w+?)__(?P<name>[A-Za-z0-9]+)$")
_MODE_SUFFIX = re.compile(r"^(?P<name>[A-Za-z0-9]+)-(?:Input|Output)$")


def finish_document(document: dict[str, Any], routes: Iterable[Any]) -> None:
    """Make FastAPI's document one that client generators take as it is: unique schema names."""
    _name_schemas(document, routes)


def _key(method: str, path: str) -> str:
    return f"{method.upper()} {path}"


def _api_routes(routes: Iterable[Any]) -> list[APIRoute]:
    return [route for route in routes if isinstance(route, APIRoute) and route.include_in_schema]


def _name_schemas(document: dict[str, Any], routes: Iterable[Any]) -> None:
    """Rename module-qualified schemas (and their `-Input`/`-Output` twins), then point every
    reference at the new names; each renamed schema takes its name as title."""
    schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
    renames: dict[str, str] = {}
    # Which class a `Name-Input` schema is: the qualified schema of that class with the same body.
    by_class: dict[str, list[str]] = {}
    for old in schemas:
        match = _QUALIFIED.match(old)
        if match is None:
            continue
        module, name = match["module"], match["name"]
        new = SCHEMA_NAMES.get(f"{module}.{name}") or (
            "".join(part.capitalize() for part in module.split("_")) + name
        )
        renames[old] = new
        by_class.setdefault(name, []).append(old)
    for old in schemas:
        match = _MODE_SUFFIX.match(old)
        if match is None:
            continue
        twins = [q for q in by_class.get(match["name"], []) if schemas[q] == schemas[old]]
        if len(twins) == 1:
            renames[old] = renames[twins[0]]
    if not renames:
        return
    renamed: dict[str, Any] = {}
    for old, schema in schemas.items():
        new = renames.get(old, old)
        if new != old:
            schema["title"] = new
        # A twin renamed to its class's name is the same schema: one is kept.
        renamed.setdefault(new, schema)
    schemas.clear()
    schemas.update(renamed)
    prefix = "#/components/schemas/"
    targets = {prefix + old: prefix + new for old, new in renames.items()}
    _rewrite_refs(document, targets)


def _rewrite_refs(node: Any, targets: dict[str, str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in targets:
            node["$ref"] = targets[ref]
        for value in node.values():
            _rewrite_refs(value, targets)
    elif isinstance(node, list):
        for value in node:
            _rewrite_refs(value, targets)
