"""OpenAPI helpers: the Error body on every operation, extensions marked as such, and the
finishing of the document integrators generate clients from (schema names, operationIds,
security, servers)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from fastapi.routing import APIRoute

from freightdesk.models.booking import BookingStatus
from freightdesk.models.common import INT64_MAX, MAX_JSON_STRING, MAX_PARAMETER_STRING
from freightdesk.server.auth import require_admin

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
# Those operations listed (`METHOD path`), without building the document.
EXTENSIONS_PATH = "/services/meta/v1/extensions"

TOKEN_PATH = "/api/v4/oauth2/token"

# Every operation's operationId, the method name of a generated client: short, stable, chosen
# by hand, `verbNoun` in camelCase. A new route needs its line here (tests check it).
OPERATION_IDS: dict[str, str] = {
    "GET /api/v4/oauth2/client-applications": "listClientApplications",
    "POST /api/v4/oauth2/client-applications": "createClientApplication",
    "GET /api/v4/oauth2/client-applications/{client_id}": "getClientApplication",
    "DELETE /api/v4/oauth2/client-applications/{client_id}": "deleteClientApplication",
    "POST /api/v4/oauth2/client-applications/{client_id}/new-secret": "rotateClientSecret",
    f"POST {TOKEN_PATH}": "issueToken",
    "GET /api/v4/oauth2/tenant": "getCallerTenant",
    "GET /api/v4/capacityprovideraccountgroups": "listAccountGroups",
    "POST /api/v4/capacityprovideraccountgroups": "createAccountGroup",
    "PUT /api/v4/capacityprovideraccountgroups/{id}": "updateAccountGroup",
    "DELETE /api/v4/capacityprovideraccountgroups/{id}": "deleteAccountGroup",
    "POST /api/v4/address/validate": "validateAddress",
    "POST /api/v3/address/validate": "validateAddressV3",
    "GET /api/v4/stoplocations": "listStopLocations",
    "POST /api/v4/stoplocations": "createStopLocation",
    "GET /api/v4/stoplocations/{id}": "getStopLocation",
    "PUT /api/v4/stoplocations/{id}": "replaceStopLocation",
    "DELETE /api/v4/stoplocations/{id}": "deleteStopLocation",
    "GET /api/v4/webhooks": "listWebhooks",
    "PUT /api/v4/webhooks": "saveWebhook",
    "GET /api/v4/webhooks/name/{webhookName}": "getWebhookByName",
    "GET /api/v4/webhooks/{webhookId}": "getWebhook",
    "DELETE /api/v4/webhooks/{webhookId}": "deleteWebhook",
    "GET /api/v4/webhooks/id/{webhookId}/deliveries": "listWebhookDeliveries",
    "POST /api/v4/webhooks/id/{webhookId}/deliveries/{messageId}/redeliver": (
        "redeliverWebhookMessage"
    ),
    "POST /api/v4/webhooks/id/{webhookId}/ping": "pingWebhook",
    "POST /api/v4/webhooks/id/{webhookId}/signing-secret": "rotateWebhookSigningSecret",
    "GET /api/v4/shipments/{shipmentId}/attributes": "getShipmentAttributes",
    "GET /api/v4/shipments/{shipmentId}/eventhistory": "getEventHistory",
    "GET /api/v4/shipments/{shipmentId}/positionhistory": "getPositionHistory",
    "GET /api/v4/shipments/{shipmentId}/tracking": "getTrackedShipment",
    "DELETE /api/v4/shipments/{shipmentId}/tracking": "deleteTrackedShipment",
    "GET /api/v4/shipments/{shipmentId}/tracking/history": "getTrackingHistory",
    "PUT /api/v4/shipments/tracking": "saveTrackedShipment",
    "POST /api/v4/shipments/search": "searchShipments",
    "POST /api/v4/shipments/{shipmentId}/shares": "shareShipment",
    "DELETE /api/v4/shipments/{shipmentId}/shares/{tenantUuid}": "unshareShipment",
    "GET /api/v4/public/shipments/{shareToken}": "getPublicShipment",
    "POST /api/v4/shipments/positions/latest": "queryLatestPositions",
    "POST /api/v4/capacityproviders/parcel/shipments/statusupdates": "pushParcelStatusUpdates",
    "POST /services/carrier-push/v1/tracking-updates": "pushTruckloadUpdate",
    "GET /services/carrier-push/v1/ingestions/{ingestionId}": "getPushIngestion",
    "POST /services/document/v1/documents": "createDocument",
    "GET /services/document/v1/documents/{documentId}": "getDocument",
    "PUT /services/document/v1/documents/{documentId}": "replaceDocument",
    "PATCH /services/document/v1/documents/{documentId}": "updateDocument",
    "DELETE /services/document/v1/documents/{documentId}": "deleteDocument",
    "POST /services/document/v1/documents/search": "searchDocuments",
    "GET /services/document/v1/documents/{documentId}/files/{fileId}": "downloadDocumentFile",
    "POST /services/rating/v1/rate-requests": "createRateRequest",
    "GET /services/rating/v1/rate-requests": "listRateRequests",
    "GET /services/rating/v1/rate-requests/{id}": "getRateRequest",
    "POST /services/rating/v1/rate-requests/{id}/cancellations": "cancelRateRequest",
    "GET /services/booking/v1/bookings": "listBookings",
    "POST /services/booking/v1/bookings": "createBooking",
    "GET /services/booking/v1/bookings/{bookingId}": "getBooking",
    "PUT /services/booking/v1/bookings/{bookingId}": "replaceBooking",
    "POST /services/booking/v1/bookings/{bookingId}/cancellations": "cancelBooking",
    "POST /services/booking/v1/bookings/{bookingId}/carrier-response": "submitCarrierResponse",
    "GET /services/carriers/v1/profiles": "listCarrierProfiles",
    "GET /services/carriers/v1/names": "listCarrierNames",
    "GET /services/carriers/v1/profiles/{scac}": "getCarrierProfile",
    "PUT /services/carriers/v1/profiles/{scac}": "saveCarrierProfile",
    "DELETE /services/carriers/v1/profiles/{scac}": "deleteCarrierProfile",
    "GET /services/booking/v1/packaging": "searchPackages",
    "POST /services/booking/v1/packaging": "createPackage",
    "DELETE /services/booking/v1/packaging": "deletePackage",
    "GET /services/booking/v1/packaging/{packageId}": "getPackage",
    "PUT /services/booking/v1/packaging/{packageId}": "replacePackage",
    "POST /api/v2/vltl/quotes/rates/query": "queryVolumeLtlQuoteRates",
    "POST /api/v3/vltl/shipments/rates/query": "queryVolumeLtlShipmentRates",
    "POST /api/v4/vltl/dispatchedshipments": "dispatchVolumeLtlShipment",
    "POST /api/v4/rail/shipments": "createRailShipment",
    "GET /api/v4/rail/shipments": "listRailShipments",
    "GET /api/v4/rail/shipments/statuses": "findRailStatuses",
    "GET /api/v4/rail/shipments/{id}/statuses": "getRailStatuses",
    "DELETE /api/v4/rail/shipments/{id}": "deleteRailShipment",
    "POST /api/v4/tl/connected-capacity/carriers/search": "searchCapacityCarriers",
    "POST /api/v4/tl/connected-capacity/lanes/search": "searchCapacityLanes",
    "POST /api/v4/tl/available-vehicles/query": "queryAvailableVehicles",
    "GET /services/advanced-sailing-schedules/v1/carriers": "listOceanCarriers",
    "GET /services/advanced-sailing-schedules/v1/point-to-point-routes": "listPointToPointRoutes",
    "POST /services/appointments/v1/slots": "queryAppointmentSlots",
    "GET /services/appointments/v1/sites": "listYardSites",
    "POST /services/appointments/v1/sites": "addYardSite",
    "DELETE /services/appointments/v1/sites/{siteCode}": "removeYardSite",
    "GET /services/demo/v1/status": "getDemoStatus",
    "GET /health": "getHealth",
    f"GET {EXTENSIONS_PATH}": "listExtensions",
    "GET /ready": "getReadiness",
}

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
}

# Operations anyone may call: the token exchange itself (its client credentials go in the
# form body or in HTTP Basic), liveness, the demo's progress and a shipment shared by link.
UNAUTHENTICATED = frozenset(
    {
        f"POST {TOKEN_PATH}",
        "GET /health",
        "GET /ready",
        f"GET {EXTENSIONS_PATH}",
        "GET /services/demo/v1/status",
        "GET /api/v4/public/shipments/{shareToken}",
    }
)

SECURITY_SCHEMES: dict[str, Any] = {
    "oauth2": {
        "type": "oauth2",
        "description": (
            "A bearer token from the client credentials of a client application "
            f"(`POST {TOKEN_PATH}`), sent as `Authorization: Bearer <token>`. HTTP Basic of a "
            "user is still accepted by these operations but deprecated (the answer carries "
            "`Deprecation: true`)."
        ),
        "flows": {"clientCredentials": {"tokenUrl": TOKEN_PATH, "scopes": {}}},
    },
    "basic": {
        "type": "http",
        "scheme": "basic",
        "description": "HTTP Basic of a Customer Admin user: managing client applications.",
    },
}

SERVERS: list[dict[str, Any]] = [
    {"url": "/", "description": "The service this document was read from"},
    {
        "url": "http://{host}:{port}",
        "description": "A local service (`freightdesk serve`)",
        "variables": {
            "host": {"default": "127.0.0.1"},
            "port": {"default": "8044", "description": "`freightdesk serve --port`"},
        },
    },
]
# OpenAPI 3.1 wants a licence's SPDX identifier or URL; a proprietary licence has no SPDX id
# of its own, so a `LicenseRef-` one (SPDX's form for a licence outside its list).
LICENSE: dict[str, Any] = {
    "name": "Proprietary",
    "identifier": "LicenseRef-FreightDesk-Proprietary",
}
CONTACT: dict[str, Any] = {"name": "FreightDesk"}

# What each tag (an area of the interface, or the service itself) covers.
TAG_DESCRIPTIONS: dict[str, str] = {
    "Authentication": "OAuth 2.0 client applications and the client-credentials token",
    "Account groups": "Capacity provider account groups",
    "Postal address validation": "Postal address validation",
    "Stop locations": "Stop location management",
    "Push configurations (webhooks)": (
        "Push configurations; delivery log, redelivery, test ping and signing secret rotation "
        "are extensions"
    ),
    "Shipment tracking": "Tracked shipments: attributes, events, positions, history and shares",
    "Fleet": "Latest positions of many shipments at once",
    "Carrier push": "Tracking pushed by carriers: parcel status updates, universal truckload push",
    "Documents": "Multi-modal documents: upload, search, download",
    "Rating": "Multi-modal rate requests",
    "Booking": "Multi-modal bookings, carrier responses and carrier profiles",
    "Packaging": "Packages for multi-modal bookings",
    "Volume LTL": "Volume LTL quotes and dispatch",
    "Rail tracking": "Rail shipments and their statuses",
    "Connected capacity": "Truckload connected capacity: carrier and lane search",
    "Available vehicles": "Truckload available vehicles",
    "Sailing schedules": "Ocean point-to-point schedules",
    "Yard appointments": "Yard appointment slots; site management is an extension",
    "Service": "The local service itself: liveness and the demo's progress",
}

# What the routes check of their query parameters beyond their types, for the document: the
# parameters they require, patterns (merged into the parameter's non-null schema).
_UNLOCODE = r"^[A-Za-z]{2}[A-Za-z2-9]{3}$"
PARAMETER_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "GET /api/v4/rail/shipments/statuses": {
        "shipmentIdentifier.type": {"required": True},
        "shipmentIdentifier.value": {"required": True, "minLength": 1},
    },
    "GET /services/advanced-sailing-schedules/v1/point-to-point-routes": {
        "origin": {"required": True, "pattern": _UNLOCODE},
        "destination": {"required": True, "pattern": _UNLOCODE},
    },
    "GET /services/booking/v1/bookings": {
        "statuses": {"items": {"enum": [status.value for status in BookingStatus]}},
    },
    "POST /api/v4/tl/available-vehicles/query": {
        "sort": {
            "items": {
                "pattern": r"^(distance|carrierContact|estimatedArrivalDateTime|truckType)"
                r"(,[ ]*([aA][sS][cC]|[dD][eE][sS][cC]))?$"
            }
        },
    },
}
# Bodies a route declares optional (its model has defaults) but reads: refused when absent.
BODY_REQUIRED = frozenset({"POST /api/v4/tl/available-vehicles/query"})
# Query parameters given together or not at all (JSON Schema cannot relate two parameters):
# each names the other in `x-freightdesk-together-with` and in its description.
PAIRED_PARAMETERS: dict[str, tuple[tuple[str, str], ...]] = {
    "GET /services/booking/v1/bookings": (("attribute.name", "attribute.values"),),
    "GET /services/booking/v1/packaging": (("identifier.type", "identifier.value"),),
    "DELETE /services/booking/v1/packaging": (("identifier.type", "identifier.value"),),
    "GET /services/advanced-sailing-schedules/v1/point-to-point-routes": (
        ("departureStartDate", "departureEndDate"),
        ("arrivalStartDate", "arrivalEndDate"),
    ),
}

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_QUALIFIED = re.compile(r"^freightdesk__models__(?P<module>\w+?)__(?P<name>[A-Za-z0-9]+)$")
_MODE_SUFFIX = re.compile(r"^(?P<name>[A-Za-z0-9]+)-(?:Input|Output)$")


def finish_document(document: dict[str, Any], routes: Iterable[Any]) -> None:
    """Make FastAPI's document one that client generators take as it is: unique schema names,
    hand-chosen operationIds, the tags listed, security per operation, servers, licence and
    contact."""
    document["info"]["license"] = LICENSE
    document["info"]["contact"] = CONTACT
    document["servers"] = SERVERS
    _name_schemas(document, routes)
    document.setdefault("components", {})["securitySchemes"] = SECURITY_SCHEMES
    document.pop("security", None)
    admin = {
        _key(method, route.path)
        for route in _api_routes(routes)
        if _needs_admin(route)
        for method in route.methods or ()
    }
    tags: list[str] = []
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in _METHODS:
                continue
            key = _key(method, path)
            operation["operationId"] = OPERATION_IDS.get(key, operation.get("operationId"))
            if key in UNAUTHENTICATED:
                operation["security"] = []
            elif key in admin:
                operation["security"] = [{"basic": []}]
            else:
                operation["security"] = [{"oauth2": []}]
            tags.extend(tag for tag in operation.get("tags", []) if tag not in tags)
            _type_success_bodies(operation)
            _keep_possible_errors(key, operation)
            _state_parameter_rules(key, operation)
            if key in BODY_REQUIRED:
                operation["requestBody"]["required"] = True
    document["tags"] = [{"name": tag, "description": TAG_DESCRIPTIONS[tag]} for tag in tags]
    _exact_integer_bounds(document)
    _bound_strings(document)


def _state_parameter_rules(key: str, operation: dict[str, Any]) -> None:
    rules = PARAMETER_RULES.get(key, {})
    partners = {
        name: other for pair in PAIRED_PARAMETERS.get(key, ()) for name, other in (pair, pair[::-1])
    }
    for parameter in operation.get("parameters", []):
        name = parameter["name"]
        rule = dict(rules.get(name, {}))
        schema = parameter["schema"]
        if rule.pop("required", False):
            parameter["required"] = True
            # Required: the non-null branch of an optional parameter is its schema.
            branches = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
            if len(branches) == 1:
                schema = parameter["schema"] = {**schema, **branches[0]}
                schema.pop("anyOf")
                schema.pop("default", None)
        if rule:
            branches = [s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"]
            for branch in branches:
                for field, value in rule.items():
                    if isinstance(value, dict):
                        branch[field] = {**branch.get(field, {}), **value}
                    else:
                        branch[field] = value
        if name in partners:
            other = partners[name]
            parameter["x-freightdesk-together-with"] = other
            said = parameter.get("description", "")
            parameter["description"] = f"{said} Give together with `{other}` or not at all.".strip()


_BINARY = {"type": "string", "format": "binary"}


def _type_success_bodies(operation: dict[str, Any]) -> None:
    """A schema for every 2xx body: `null` where a route answers JSON null (FastAPI leaves it
    untyped), a binary string for bytes; a 206 carries the same bytes as the 200."""
    responses: dict[str, Any] = operation.get("responses", {})
    for code, response in responses.items():
        if not code.startswith("2"):
            continue
        for media_type, content in response.get("content", {}).items():
            if content.get("schema", {}) != {}:
                continue
            content["schema"] = {"type": "null"} if media_type == "application/json" else _BINARY
    full, partial = responses.get("200", {}), responses.get("206")
    if partial is not None and "content" not in partial and "content" in full:
        partial["content"] = full["content"]


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def _exact_integer_bounds(node: Any) -> None:
    """FastAPI's OpenAPI model holds every bound as a float, so the int64 bounds of integer
    schemas come out as 9.223372036854776e+18 (2**63, one past the largest int64) and every
    other integer bound as `1.0`: each integer schema's bounds as the exact integers."""
    if isinstance(node, dict):
        if node.get("type") == "integer":
            for name in _BOUNDS:
                value = node.get(name)
                if isinstance(value, float):
                    node[name] = _exact_integer(value)
        for value in node.values():
            _exact_integer_bounds(value)
    elif isinstance(node, list):
        for value in node:
            _exact_integer_bounds(value)


# Schemas only answered, never sent: their strings quote what was refused, so may be longer.
_ANSWER_ONLY = ("ErrorBody", "ErrorDetail")


def _bound_strings(document: dict[str, Any]) -> None:
    """Every string the document describes has a length bound where the model sets none of its
    own: MAX_JSON_STRING in bodies (server/body_limits.py refuses longer strings in any JSON
    body), MAX_PARAMETER_STRING in path and query parameters (the server reads at most 16 KiB of
    a request's head; longer parameters may be cut off with the connection). Enumerations,
    constants and binary bodies are bounded already; the Error body is only answered."""
    schemas = document.get("components", {}).get("schemas", {})
    skip = {id(schemas[name]) for name in _ANSWER_ONLY if name in schemas}
    parameters = [
        parameter
        for item in document.get("paths", {}).values()
        for operation in item.values()
        if isinstance(operation, dict)
        for parameter in operation.get("parameters", [])
    ]
    # Parameters first, with their own bound: a request's head must hold all of them.
    _bound_strings_in(parameters, MAX_PARAMETER_STRING, skip)
    _bound_strings_in(document, MAX_JSON_STRING, skip)


def _bound_strings_in(root: Any, bound: int, skip: set[int]) -> None:
    pending: list[Any] = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict) and id(node) not in skip:
            if (
                node.get("type") == "string"
                and "maxLength" not in node
                and not {"enum", "const"} & node.keys()
                and node.get("format") != "binary"
            ):
                node["maxLength"] = bound
            pending.extend(node.values())


def _exact_integer(value: float) -> int:
    if value == float(INT64_MAX):  # 2**63 - 1 as a float rounds up to 2**63
        return INT64_MAX
    return int(value)  # -2**63 is exact as a float, as is every bound below 2**53


def _keep_possible_errors(key: str, operation: dict[str, Any]) -> None:
    """Of the error statuses every route declares (ERRORS), only those this operation can
    answer: no credentials, no 401 or 403; no request body, no 415; no input at all, no 400
    or 404; 409 only on writes; 429 only from the token exchange (its rate limit). 413 on
    every operation: the body limit (server/body_limits.py) counts any request's body, a
    GET's too."""
    method = key.split(" ", 1)[0]
    secured = bool(operation.get("security")) or key == f"POST {TOKEN_PATH}"
    has_body = "requestBody" in operation
    # The role header (x-tenant-role) is input to every operation that identifies its caller.
    takes_input = secured or has_body or bool(operation.get("parameters"))
    possible = {413, 500}
    if takes_input:
        possible |= {400, 404}
    if secured:
        possible |= {401, 403}
    if has_body:
        possible.add(415)
    if secured and method in {"POST", "PUT", "PATCH", "DELETE"}:
        possible.add(409)
    if key == f"POST {TOKEN_PATH}":
        # A request the exchange cannot read, a client it does not know, too many tokens.
        possible = {400, 401, 413, 429, 500}
    responses: dict[str, Any] = operation.get("responses", {})
    for code in _ERROR_CODES:
        if code not in possible:
            responses.pop(str(code), None)


def document_yaml(document: dict[str, Any]) -> str:
    """The document as YAML, for `/openapi.yaml`; equal to the JSON once read."""
    import yaml  # type: ignore[import-untyped]  # PyYAML: this document only

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        def ignore_aliases(self, data: Any) -> bool:
            # Objects shared in the document (the Error body) written out each time: some
            # OpenAPI tools do not follow YAML anchors.
            return True

    text: str = yaml.dump(
        document, Dumper=Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )
    return text


def _key(method: str, path: str) -> str:
    return f"{method.upper()} {path}"


def _api_routes(routes: Iterable[Any]) -> list[APIRoute]:
    return [route for route in routes if isinstance(route, APIRoute) and route.include_in_schema]


def _needs_admin(route: APIRoute) -> bool:
    pending = [route.dependant]
    while pending:
        dependant = pending.pop()
        if dependant.call is require_admin:
            return True
        pending.extend(dependant.dependencies)
    return False


def _name_schemas(document: dict[str, Any], routes: Iterable[Any]) -> None:
    """Rename module-qualified schemas (and their `-Input`/`-Output` twins) and the form bodies
    FastAPI names after its automatic operationIds, then point every reference at the new
    names; each renamed schema takes its name as title."""
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
    for route in _api_routes(routes):
        body = f"Body_{route.unique_id}"
        for method in route.methods or ():
            operation_id = OPERATION_IDS.get(_key(method, route.path))
            if body in schemas and operation_id is not None:
                renames[body] = operation_id[0].upper() + operation_id[1:] + "Body"
                # A form's parts are its fields: a document upload refuses any other part.
                schemas[body]["additionalProperties"] = False
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
