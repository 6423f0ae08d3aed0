"""The OpenAPI document the service serves is one integrators can generate clients from."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from freightdesk.models.common import MAX_JSON_STRING, MAX_PARAMETER_STRING
from freightdesk.server.openapi import OPERATION_IDS
from tests.server.test_documents import PDF
from tests.server.test_documents import metadata as document_metadata
from tests.server.test_rating_support import booking_of, poll, set_profile, tl_request
from tests.server.test_tracking_support import air_body, route
from tests.server.test_vltl import quote_body as vltl_quote_body
from tests.support import LiveService, make_tenant

METHODS = ("get", "put", "post", "delete", "patch")
GENERATED = "fd_generated_client"


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
        "GET /ready",
        "GET /services/demo/v1/status",
        "GET /services/meta/v1/extensions",
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


def test_every_success_body_has_a_schema(document: dict[str, Any]) -> None:
    untyped = [
        (method, path, code, media_type)
        for method, path, op in operations(document)
        for code, response in op["responses"].items()
        if code.startswith("2")
        for media_type, content in response.get("content", {}).items()
        if not content.get("schema")
    ]
    assert untyped == []
    paths = document["paths"]
    download = paths["/services/document/v1/documents/{documentId}/files/{fileId}"]["get"]
    for code in ("200", "206"):
        media = download["responses"][code]["content"]["application/octet-stream"]
        assert media["schema"] == {"type": "string", "format": "binary"}
    deleted = paths["/services/document/v1/documents/{documentId}"]["delete"]["responses"]["200"]
    assert deleted["content"]["application/json"]["schema"] == {"type": "null"}
    assert "content" not in paths["/api/v4/stoplocations/{id}"]["delete"]["responses"]["204"]


def test_each_operation_declares_only_the_errors_it_can_answer(document: dict[str, Any]) -> None:
    def errors(method: str, path: str) -> set[str]:
        return {code for code in document["paths"][path][method]["responses"] if code >= "400"}

    assert errors("get", "/health") == {"413", "500"}
    assert errors("get", "/services/demo/v1/status") == {"413", "500"}
    assert errors("post", "/api/v4/oauth2/token") == {"400", "401", "413", "429", "500"}
    assert errors("get", "/api/v4/public/shipments/{shareToken}") == {"400", "404", "413", "500"}
    assert errors("get", "/api/v4/shipments/{shipmentId}/tracking/history") == {
        "400",
        "401",
        "403",
        "404",
        "413",
        "500",
    }
    assert {"409", "413", "415"} <= errors("post", "/services/document/v1/documents")
    for method, path, _ in operations(document):
        codes = errors(method.lower(), path)
        assert "413" in codes, (method, path)  # the body limit counts every request's body
        if method == "GET":
            assert not codes & {"409", "415"}, (method, path)
        if path != "/api/v4/oauth2/token":
            assert "429" not in codes, (method, path)


def test_a_get_with_a_body_over_the_limit_is_answered_the_declared_413(
    sqlite_service: LiveService,
) -> None:
    # Why every operation declares 413: even /health, which reads no body, is refused one
    # over the limit, with the Error body.
    limit = sqlite_service.context.settings.json_body_limit_bytes
    answer = httpx.request(
        "GET",
        f"{sqlite_service.url}/health",
        content=b"x" * (limit + 1),
        headers={"Content-Type": "application/octet-stream"},
        timeout=60,
    )
    assert answer.status_code == 413
    assert answer.json()["httpStatusCode"] == 413


def test_integer_bounds_are_exact_integers(document: dict[str, Any]) -> None:
    # FastAPI keeps bounds as floats: 2**63 - 1 came out as 9.223372036854776e+18 (2**63).
    bounds = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
    inexact: list[tuple[str, Any]] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if node.get("type") == "integer":
                inexact.extend(
                    (where, node[name])
                    for name in bounds
                    if name in node and not isinstance(node[name], int)
                )
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}/{index}")

    walk(document, "#")
    assert inexact == []
    webhook_id = document["components"]["schemas"]["PushConfigurationInput"]["properties"]["id"]
    assert {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}.items() <= webhook_id[
        "anyOf"
    ][0].items()


def test_every_string_has_a_maximum_length(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    unbounded: list[str] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if (
                node.get("type") == "string"
                and "maxLength" not in node
                and not {"enum", "const"} & node.keys()
                and node.get("format") != "binary"
            ):
                unbounded.append(where)
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}/{index}")

    walk({k: v for k, v in document.items() if k != "components"}, "#")
    for name, schema in schemas.items():
        if name not in {"ErrorBody", "ErrorDetail"}:  # only answered: they quote what was sent
            walk(schema, f"#/components/schemas/{name}")
    assert unbounded == []
    # A model's own bound is kept; a string without one has the bound of every JSON body.
    assert schemas["PushConfigurationInput"]["properties"]["configName"]["maxLength"] == 200
    value = schemas["LogisticsIdentifier"]["properties"]["value"]
    assert value["maxLength"] == MAX_JSON_STRING


def test_a_string_beyond_the_bound_of_every_body_is_refused_naming_it(
    sqlite_service: LiveService,
) -> None:
    tenant = make_tenant(sqlite_service)
    try:
        identifiers = [
            {"type": "BILL_OF_LADING", "value": "B" * MAX_JSON_STRING},
            {"type": "PURCHASE_ORDER", "value": "P" * (MAX_JSON_STRING + 1)},
        ]
        refused = tenant.http.put("/api/v4/shipments/tracking", json={"identifiers": identifiers})
        assert refused.status_code == 400, refused.text
        errors = refused.json()["errors"]
        assert [(e["source"], e["message"]) for e in errors] == [
            ("identifiers[1].value", f"must be at most {MAX_JSON_STRING} characters long")
        ]
    finally:
        tenant.http.close()


def test_rules_the_document_can_state_are_in_it(document: dict[str, Any]) -> None:
    """What the fuzz run found refused but unstated (issue 20), now in the shapes' schemas."""
    schemas = document["components"]["schemas"]
    assert schemas["QuoteAddress"]["required"] == ["postalCode"]
    assert schemas["StopLocationContactInput"]["required"] == ["contactId", "type"]
    assert schemas["UnitWeight"]["properties"]["value"]["maximum"] == 100_000
    assert schemas["UnitDimensions"]["properties"]["length"]["maximum"] == 10_000
    assert schemas["TrailerLength"]["properties"]["value"]["maximum"] == 10_000
    assert schemas["PackageIdentifier"]["properties"]["value"]["maxLength"] == 200
    headers = schemas["PushConfigurationInput"]["properties"]["methodHeaders"]
    assert headers["propertyNames"]["pattern"].startswith("^[!#$%&'*+")
    assert headers["maxProperties"] == 50
    assert headers["additionalProperties"]["pattern"] == "^[^\\r\\n]*$"
    # A document's identifier value and name are trimmed before their minimum length.
    value = schemas["DocumentIdentifier"]["properties"]["value"]["pattern"]
    assert [text for text in (" ", "\t", "A-1", " A ") if re.search(value, text)] == ["A-1", " A "]
    # Text the service trims before it must not be empty: not blank in the document too.
    rail_value = schemas["RailShipmentIdentifier"]["properties"]["value"]["pattern"]
    config_name = schemas["PushConfigurationInput"]["properties"]["configName"]["pattern"]
    site_name = schemas["YardSiteInput"]["properties"]["name"]["pattern"]
    for pattern, good in ((rail_value, "W 1"), (config_name, "Orders feed"), (site_name, "DC")):
        assert [text for text in (" ", "\t", good) if re.search(pattern, text)] == [good]
    assert not re.search(config_name, "a/b")
    patch = schemas["DocumentPatch"]["properties"]
    assert [name for name, field in patch.items() if "null" in json.dumps(field)] == []
    form = document["paths"]["/services/document/v1/documents"]["post"]["requestBody"]
    assert form["content"]["multipart/form-data"]["schema"]["additionalProperties"] is False


def test_a_query_parameter_beyond_the_bound_of_every_parameter_is_refused_naming_it(
    sqlite_service: LiveService, document: dict[str, Any]
) -> None:
    (sku,) = [
        parameter
        for parameter in document["paths"]["/services/booking/v1/packaging"]["get"]["parameters"]
        if parameter["name"] == "skuIdentifier"
    ]
    assert sku["schema"]["anyOf"][0]["maxLength"] == MAX_PARAMETER_STRING
    tenant = make_tenant(sqlite_service)
    try:
        path = "/services/booking/v1/packaging"
        longest = tenant.http.get(path, params={"skuIdentifier": "é" * MAX_PARAMETER_STRING})
        assert longest.status_code == 200, longest.text
        refused = tenant.http.get(
            path, params={"skuIdentifier": "S" * (MAX_PARAMETER_STRING + 1), "pageSize": 5}
        )
        assert refused.status_code == 400, refused.text
        assert [(e["source"], e["message"]) for e in refused.json()["errors"]] == [
            ("skuIdentifier", f"must be at most {MAX_PARAMETER_STRING} characters long")
        ]
    finally:
        tenant.http.close()


# A closed shape (additionalProperties: false) inside a body each of these operations takes,
# a field the document does not name put in it, and where the answer must name it. These
# shapes are lenient where answers share them; the operation still refuses the unknown field.
UNKNOWN_INSIDE = [
    ("POST", "/api/v4/stoplocations", {"coordinates": {"latitude": 1, "x": 1}}, "coordinates.x"),
    ("PUT", f"/api/v4/stoplocations/{uuid.uuid4()}", {"coordinates": {"x": 1}}, "coordinates.x"),
    (
        "POST",
        "/services/booking/v1/packaging",
        {"accessorials": [{"type": "HAZMAT", "hazmatDetail": {"x": 1}}]},
        "accessorials[0].hazmatDetail.x",
    ),
    (
        "PUT",
        f"/services/booking/v1/packaging/{uuid.uuid4()}",
        {"items": [{"unitQuantity": 1, "x": 1}]},
        "items[0].x",
    ),
    ("POST", "/api/v4/rail/shipments", {"shipmentStops": [{"x": 1}]}, "shipmentStops[0].x"),
    (
        "POST",
        "/api/v4/tl/connected-capacity/carriers/search",
        {"carrierIdentifier": {"type": "SCAC", "value": "AA", "x": 1}},
        "carrierIdentifier.x",
    ),
    (
        "POST",
        "/api/v4/tl/connected-capacity/lanes/search",
        {"origin": {"city": "Reno", "x": 1}},
        "origin.x",
    ),
    (
        "POST",
        "/api/v4/tl/available-vehicles/query",
        {"geoCoordinates": {"latitude": 1, "x": 1}},
        "geoCoordinates.x",
    ),
    (
        "POST",
        "/api/v4/capacityproviders/parcel/shipments/statusupdates",
        {"shipmentIdentifiers": [{"type": "TRACKING_NUMBER", "value": "1Z", "x": 1}]},
        "shipmentIdentifiers[0].x",
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "source"), UNKNOWN_INSIDE)
def test_an_unknown_field_inside_a_closed_shape_of_a_body_is_refused_naming_it(
    sqlite_service: LiveService, method: str, path: str, body: dict[str, Any], source: str
) -> None:
    tenant = make_tenant(sqlite_service)
    try:
        refused = tenant.http.request(method, path, json=body)
        assert refused.status_code == 400, refused.text
        unknown = [e["message"] for e in refused.json()["errors"] if e["source"] == source]
        assert unknown == ["Extra inputs are not permitted"], refused.text
    finally:
        tenant.http.close()


def test_an_optional_body_may_still_be_null_where_unknown_fields_are_refused(
    sqlite_service: LiveService,
) -> None:
    tenant = make_tenant(sqlite_service)
    try:
        path = "/api/v4/tl/connected-capacity/carriers/search"
        headers = {"Content-Type": "application/json"}
        answer = tenant.http.post(path, content=b"null", headers=headers)
        assert answer.status_code == 200, answer.text
        refused = tenant.http.post(path, content=b"0", headers=headers)
        assert refused.status_code == 400, refused.text
    finally:
        tenant.http.close()


def test_webhook_extensions_have_unambiguous_paths_and_the_former_ones_still_answer(
    document: dict[str, Any], sqlite_service: LiveService
) -> None:
    paths = set(document["paths"])
    extensions = {
        "/api/v4/webhooks/id/{webhookId}/deliveries",
        "/api/v4/webhooks/id/{webhookId}/deliveries/{messageId}/redeliver",
        "/api/v4/webhooks/id/{webhookId}/ping",
        "/api/v4/webhooks/id/{webhookId}/signing-secret",
    }
    assert extensions <= paths
    assert {"/api/v4/webhooks/{webhookId}", "/api/v4/webhooks/name/{webhookName}"} <= paths
    assert not [path for path in paths if path.startswith("/api/v4/webhooks/{webhookId}/")]
    tenant = make_tenant(sqlite_service)
    try:
        made = tenant.http.put(
            "/api/v4/webhooks",
            json={
                "configName": "former-paths",
                "url": "https://hooks.example.com/in",
                "enabled": False,
            },
        )
        assert made.status_code == 200, made.text
        webhook_id = made.json()["id"]
        for prefix in ("/api/v4/webhooks/id", "/api/v4/webhooks"):
            log = tenant.http.get(f"{prefix}/{webhook_id}/deliveries")
            assert log.status_code == 200, (prefix, log.text)
            assert log.json()["deliveries"] == []
            assert tenant.http.get(f"{prefix}/{webhook_id + 1000}/deliveries").status_code == 404
    finally:
        tenant.http.close()


@pytest.fixture(scope="module")
def generated(
    document: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ModuleType, str]]:
    """A Python client generated from the served document as an integrator would, imported
    from its directory; the generator's output beside it."""
    root = tmp_path_factory.mktemp("generated")
    (root / "openapi.json").write_text(json.dumps(document))
    # No formatting of the generated code: what is generated is the subject, not its style.
    (root / "config.json").write_text(json.dumps({"post_hooks": []}))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(root / "openapi.json"),
            "--config",
            str(root / "config.json"),
            "--meta",
            "none",
            "--output-path",
            str(root / GENERATED),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(GENERATED), output
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == GENERATED or n.startswith(f"{GENERATED}.")]:
            del sys.modules[name]


def test_a_generated_client_has_every_operation_and_no_warnings(
    document: dict[str, Any], generated: tuple[ModuleType, str]
) -> None:
    package, output = generated
    # Its only line when all went well; a warning adds "some pieces may be missing" and the why.
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Generating "), output
    modules = {
        path.stem
        for path in Path(package.__file__ or "").parent.glob("api/*/*.py")
        if path.stem != "__init__"
    }
    wanted = {
        re.sub(r"(?<!^)(?=[A-Z])", "_", op["operationId"]).lower()
        for _, _, op in operations(document)
    }
    assert modules == wanted


def test_a_generated_client_reads_tracking_history_and_errors_from_the_service(
    sqlite_service: LiveService, generated: tuple[ModuleType, str]
) -> None:
    package, _ = generated
    save, history_of = (
        importlib.import_module(f"{GENERATED}.api.shipment_tracking.{name}")
        for name in ("save_tracked_shipment", "get_tracking_history")
    )
    models = importlib.import_module(f"{GENERATED}.models")
    tenant = make_tenant(sqlite_service)
    token = tenant.http.headers["Authorization"].removeprefix("Bearer ")
    tenant.http.close()
    with package.AuthenticatedClient(base_url=sqlite_service.url, token=token) as client:
        body = models.TrackedShipmentInput.from_dict(
            air_body(routeInfo=route("Chicago", "Frankfurt"))
        )
        created = save.sync_detailed(client=client, body=body)
        assert created.status_code == 201, created.content
        shipment = created.parsed
        assert isinstance(shipment, models.TrackedShipment)

        history = history_of.sync(shipment_id=shipment.id, client=client)
        assert isinstance(history, models.TrackingHistory)
        assert history.shipment.id == shipment.id
        assert [stop.location.address.city for stop in history.shipment.route_info.stops] == [
            "Chicago",
            "Frankfurt",
        ]

        missing = history_of.sync_detailed(
            shipment_id="00000000-0000-4000-8000-000000000000", client=client
        )
        assert missing.status_code == 404
        assert isinstance(missing.parsed, models.ErrorBody)
        assert missing.parsed.http_status_code == 404
        assert missing.parsed.support_reference_id


def test_a_generated_client_rates_books_quotes_and_moves_documents(
    sqlite_service: LiveService, generated: tuple[ModuleType, str]
) -> None:
    """The commerce and document operations the generator once dropped or typed "anything",
    called through the generated client, the answers parsed into its typed models."""
    package, _ = generated
    api = f"{GENERATED}.api"
    models = importlib.import_module(f"{GENERATED}.models")
    types = importlib.import_module(f"{GENERATED}.types")
    tenant = make_tenant(sqlite_service)
    try:
        set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=0)
        token = tenant.http.headers["Authorization"].removeprefix("Bearer ")
    finally:
        tenant.http.close()
    with package.AuthenticatedClient(
        base_url=sqlite_service.url, token=token, timeout=httpx.Timeout(60)
    ) as client:
        rating = importlib.import_module(f"{api}.rating.create_rate_request")
        reading = importlib.import_module(f"{api}.rating.get_rate_request")
        created = rating.sync_detailed(
            client=client,
            body=models.RateRequestCreate.from_dict(
                tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
            ),
        )
        assert created.status_code == 200, created.content
        assert isinstance(created.parsed, models.RateRequest)
        request = poll(
            lambda: reading.sync(id=created.parsed.id, client=client),
            lambda r: isinstance(r, models.RateRequest) and r.status != "QUOTES_REQUESTED",
            seconds=30,
        )
        [quote] = request.quotes
        assert quote.capacity_provider_identifier.value == "PRLF"

        booking = importlib.import_module(f"{api}.booking.create_booking").sync_detailed(
            client=client, body=models.BookingInput.from_dict(booking_of(quote.to_dict()))
        )
        assert booking.status_code == 200, booking.content
        assert isinstance(booking.parsed, models.Booking)
        assert booking.parsed.shipment_id == request.id
        assert str(booking.parsed.status) == "PROCESSING"

        vltl = importlib.import_module(f"{api}.volume_ltl.query_volume_ltl_quote_rates")
        quotes = vltl.sync_detailed(
            client=client,
            body=models.VltlQuoteRequest.from_dict(vltl_quote_body()),
            username="dispatcher@example.com",
            enabled=True,
        )
        assert quotes.status_code == 200, quotes.content
        assert isinstance(quotes.parsed, models.RateQuoteList)
        priced = {q.carrier_code for q in quotes.parsed.rate_quotes if q.rate_quote_detail}
        assert priced == {"NBFL", "RDRN"}

        upload = importlib.import_module(f"{api}.documents.create_document").sync_detailed(
            client=client,
            body=models.CreateDocumentBody(
                document=json.dumps(document_metadata()),
                upload_file=types.File(
                    payload=BytesIO(PDF), file_name="bol-4471.pdf", mime_type="application/pdf"
                ),
            ),
        )
        assert upload.status_code == 200, upload.content
        stored = upload.parsed
        assert isinstance(stored, models.Document)
        [image] = stored.files
        download = importlib.import_module(f"{api}.documents.download_document_file")
        got = download.sync_detailed(document_id=stored.id, file_id=image.id, client=client)
        assert got.status_code == 200
        assert got.content == PDF
        assert got.headers["content-type"] == "application/pdf"

        refused = rating.sync_detailed(
            client=client,
            body=models.RateRequestCreate.from_dict(tl_request(["PRLF"], name="x" * 201)),
        )
        assert refused.status_code == 400, refused.content
        assert isinstance(refused.parsed, models.ErrorBody)
        assert refused.parsed.errors
