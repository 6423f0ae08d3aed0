"""Push configurations (webhooks) over real HTTP: the configuration rules, not delivery."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sqlalchemy import select

from freightdesk.server.tables.webhooks import WebhookConfigRow
from freightdesk.server.webhooks import secret_box
from tests.support import TenantHandle

PATH = "/api/v4/webhooks"
P0 = "authenticationMethods[0].parameters"
MASK = "********"


def _certificate(name: str = "freightdesk-client") -> tuple[str, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    return cert_pem, key_pem


CERT, KEY = _certificate()
OTHER_CERT, OTHER_KEY = _certificate("someone-else")


def _put(tenant: TenantHandle, **fields: Any) -> Any:
    body = {"configName": "orders", "url": "https://hooks.example.com/in", **fields}
    return tenant.http.put(PATH, json=body)


def _created(tenant: TenantHandle, **fields: Any) -> dict[str, Any]:
    answer = _put(tenant, **fields)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _problem(answer: Any, source: str, status: int = 400) -> str:
    assert answer.status_code == status, answer.text
    body = answer.json()
    sources = [e["source"] for e in body["errors"]]
    assert source in sources, sources
    message: str = next(e["message"] for e in body["errors"] if e["source"] == source)
    return message


def _stored_methods(tenant: TenantHandle, config_id: int) -> list[dict[str, Any]]:
    """The stored methods, secrets decrypted."""
    with tenant.service.context.sessions() as session:
        row = session.scalar(select(WebhookConfigRow).where(WebhookConfigRow.id == config_id))
        assert row is not None
        return secret_box.box(tenant.service.context).open_methods(row.authentication_methods)


def test_create_with_defaults_then_read_by_id_name_and_list(tenant: TenantHandle) -> None:
    created = _created(tenant)
    assert isinstance(created["id"], int)
    assert created["method"] == "POST" and created["payloadFormat"] == "JSON"
    assert created["methodHeaders"] == {} and created["methodParams"] == {}
    assert created["authenticationMethods"] == [] and created["enabled"] is True
    assert "webhookConfiguration" not in created and "version" not in created
    # The signing secret is shown once, when the configuration is created.
    assert created.pop("signingSecret").startswith("whsec_")
    by_id = tenant.http.get(f"{PATH}/{created['id']}")
    assert by_id.status_code == 200 and by_id.json() == created
    by_name = tenant.http.get(f"{PATH}/name/orders")
    assert by_name.status_code == 200 and by_name.json() == created
    assert tenant.http.get(PATH).json() == {"webhookEndpoints": [created]}


def test_every_field_is_stored_and_answered(tenant: TenantHandle) -> None:
    created = _created(
        tenant,
        method="PATCH",
        methodHeaders={"X-Team": "dispatch"},
        methodParams={"source": "freightdesk", "region": "na"},
        version=3,
        webhookConfiguration={
            "webhookEventType": "shipments.v1.event.added",
            "shipmentV1Event": {"includeContext": ["ROUTE"]},
            "filters": {"eventTypes": ["ARRIVAL_AT_STOP"], "transportationModes": ["TL", "LTL"]},
        },
    )
    assert created["method"] == "PATCH" and created["version"] == 3
    assert created["methodHeaders"] == {"X-Team": "dispatch"}
    assert created["methodParams"] == {"source": "freightdesk", "region": "na"}
    # SHIPMENT is always part of the context.
    assert created["webhookConfiguration"] == {
        "webhookEventType": "shipments.v1.event.added",
        "shipmentV1Event": {"includeContext": ["SHIPMENT", "ROUTE"]},
        "filters": {"eventTypes": ["ARRIVAL_AT_STOP"], "transportationModes": ["TL", "LTL"]},
    }
    granular_default = _created(
        tenant,
        configName="states",
        webhookConfiguration={"webhookEventType": "shipments.v1.state.added"},
    )
    assert granular_default["webhookConfiguration"] == {
        "webhookEventType": "shipments.v1.state.added",
        "shipmentV1Event": {"includeContext": ["SHIPMENT"]},
    }
    classic_filtered = _created(
        tenant,
        configName="classic",
        url="http://127.0.0.1:9/x?fixed=1",
        webhookConfiguration={"filters": {"transportationModes": ["OCEAN"]}},
    )
    assert classic_filtered["url"] == "http://127.0.0.1:9/x?fixed=1"
    assert classic_filtered["webhookConfiguration"] == {
        "filters": {"eventTypes": [], "transportationModes": ["OCEAN"]}
    }


def test_put_with_id_replaces_the_whole_configuration(tenant: TenantHandle) -> None:
    created = _created(tenant, method="PUT", methodHeaders={"X-A": "1"}, version=1)
    replaced = tenant.http.put(
        PATH, json={"id": created["id"], "configName": "renamed", "url": "https://new.example/h"}
    )
    assert replaced.status_code == 200
    body = replaced.json()
    assert body["id"] == created["id"] and body["configName"] == "renamed"
    # Omitted fields take their defaults again: PUT replaces, it does not merge.
    assert body["method"] == "POST" and body["methodHeaders"] == {} and "version" not in body
    assert "signingSecret" not in body
    assert body["createdDateTime"] == created["createdDateTime"]
    assert body["lastModifiedDateTime"] >= created["lastModifiedDateTime"]
    assert tenant.http.get(f"{PATH}/name/orders").status_code == 404
    assert len(tenant.http.get(PATH).json()["webhookEndpoints"]) == 1


def test_unknown_id_on_put_get_and_delete_is_404(tenant: TenantHandle) -> None:
    assert _put(tenant, id=987654321).status_code == 404
    assert tenant.http.get(f"{PATH}/987654321").status_code == 404
    assert tenant.http.delete(f"{PATH}/987654321").status_code == 404
    assert tenant.http.get(f"{PATH}/name/nothing").status_code == 404
    assert tenant.http.get(PATH).json() == {"webhookEndpoints": []}


def test_delete_answers_200_and_frees_the_name(tenant: TenantHandle) -> None:
    created = _created(tenant)
    deleted = tenant.http.delete(f"{PATH}/{created['id']}")
    assert deleted.status_code == 200
    assert tenant.http.get(f"{PATH}/{created['id']}").status_code == 404
    assert tenant.http.delete(f"{PATH}/{created['id']}").status_code == 404
    assert _put(tenant).status_code == 200


def test_config_name_is_unique_per_tenant(tenant: TenantHandle) -> None:
    first = _created(tenant)
    _problem(_put(tenant), "configName", 409)
    _problem(_put(tenant, configName="  orders "), "configName", 409)
    second = _created(tenant, configName="billing")
    # Renaming onto another configuration's name is refused; keeping one's own name is fine.
    _problem(_put(tenant, id=second["id"]), "configName", 409)
    assert _put(tenant, id=first["id"], method="PUT").status_code == 200


def test_at_most_50_configurations_per_tenant(tenant: TenantHandle) -> None:
    ids = [_created(tenant, configName=f"hook-{n}")["id"] for n in range(50)]
    refused = _put(tenant, configName="one-too-many")
    assert refused.status_code == 409
    assert "at most 50" in refused.json()["errorMessage"]
    # Updating is still allowed at the limit, and deleting one makes room.
    assert _put(tenant, id=ids[0], configName="hook-0", method="PUT").status_code == 200
    assert tenant.http.delete(f"{PATH}/{ids[1]}").status_code == 200
    assert _put(tenant, configName="one-too-many").status_code == 200


ALL_METHODS = [
    {"type": "API_KEY", "parameters": {"headerName": "X-Key", "apiKey": "key-1"}},
    {"type": "API_KEY", "parameters": {"apiKey": "key-2"}},
    {"type": "OAUTH2", "parameters": {"tokenUrl": "https://idp.example/token", "clientId": "c1",
                                      "clientSecret": "s3cret", "scope": "hooks"}},
    {"type": "MTLS", "parameters": {"certificatePem": CERT, "privateKeyPem": KEY}},
]  # fmt: skip


def test_secrets_are_masked_in_every_answer(tenant: TenantHandle) -> None:
    created = _created(tenant, authenticationMethods=ALL_METHODS)
    methods = created["authenticationMethods"]
    assert methods[0]["parameters"] == {"headerName": "X-Key", "apiKey": MASK}
    assert methods[1]["parameters"] == {"headerName": "X-API-Key", "apiKey": MASK}
    assert methods[2]["parameters"]["clientSecret"] == MASK
    assert methods[2]["parameters"]["clientId"] == "c1"
    assert methods[3]["parameters"] == {"certificatePem": CERT, "privateKeyPem": MASK}
    basic = _created(
        tenant,
        configName="basic",
        authenticationMethods=[{"type": "BASIC", "parameters": {"username": "u", "password": "p"}}],
    )
    assert basic["authenticationMethods"][0]["parameters"] == {"username": "u", "password": MASK}
    for answer in (
        tenant.http.get(PATH).text,
        tenant.http.get(f"{PATH}/{created['id']}").text,
        tenant.http.get(f"{PATH}/name/basic").text,
    ):
        for secret in ("key-1", "key-2", "s3cret", "PRIVATE KEY", '"p"'):
            assert secret not in answer


def test_sending_the_mask_back_keeps_each_stored_secret(tenant: TenantHandle) -> None:
    created = _created(tenant, authenticationMethods=ALL_METHODS)
    created.pop("signingSecret")
    # The app edits what it read (methods reordered, a header added) and sends it back.
    edited = dict(created, methodHeaders={"X-Edited": "yes"})
    first, second, oauth, mtls = created["authenticationMethods"]
    edited["authenticationMethods"] = [mtls, second, oauth, first]
    edited.pop("authType")
    edited.pop("authParams")
    saved = tenant.http.put(PATH, json=edited)
    assert saved.status_code == 200, saved.text
    stored = _stored_methods(tenant, created["id"])
    assert stored[0]["parameters"]["privateKeyPem"] == KEY
    assert stored[1]["parameters"] == {"headerName": "X-API-Key", "apiKey": "key-2"}
    assert stored[2]["parameters"]["clientSecret"] == "s3cret"
    assert stored[3]["parameters"] == {"headerName": "X-Key", "apiKey": "key-1"}
    # A renamed header keeps the key of the API key method at the same position.
    renamed = {"type": "API_KEY", "parameters": {"headerName": "X-Renamed", "apiKey": MASK}}
    edited["authenticationMethods"] = [mtls, renamed]
    assert tenant.http.put(PATH, json=edited).status_code == 200
    assert _stored_methods(tenant, created["id"])[1]["parameters"] == {
        "headerName": "X-Renamed",
        "apiKey": "key-2",
    }
    # A new secret in clear replaces the stored one.
    edited["authenticationMethods"] = [
        {"type": "API_KEY", "parameters": {"headerName": "X-Renamed", "apiKey": "key-new"}}
    ]
    assert tenant.http.put(PATH, json=edited).status_code == 200
    assert _stored_methods(tenant, created["id"])[0]["parameters"]["apiKey"] == "key-new"


def test_the_mask_without_a_stored_secret_is_refused(tenant: TenantHandle) -> None:
    masked = [{"type": "BASIC", "parameters": {"username": "u", "password": MASK}}]
    message = _problem(_put(tenant, authenticationMethods=masked), P0 + ".password")
    assert "send the secret itself" in message
    created = _created(tenant, authenticationMethods=ALL_METHODS[:1])
    # A different credential (other type) cannot borrow the stored API key.
    other = [{"type": "BASIC", "parameters": {"username": "u", "password": MASK}}]
    _problem(
        _put(tenant, id=created["id"], authenticationMethods=other),
        P0 + ".password",
    )


@pytest.mark.parametrize(
    ("method", "source"),
    [
        ({"type": "API_KEY", "parameters": {}}, P0 + ".apiKey"),
        (
            {"type": "API_KEY", "parameters": {"apiKey": "k", "headerName": "bad header"}},
            P0 + ".headerName",
        ),
        (
            {"type": "API_KEY", "parameters": {"apiKey": "k", "headerName": "webhook-signature"}},
            P0 + ".headerName",
        ),
        (
            {"type": "API_KEY", "parameters": {"apiKey": "k", "key": "v"}},
            P0 + ".key",
        ),
        ({"type": "BASIC", "parameters": {"password": "p"}}, P0 + ".username"),
        (
            {"type": "BASIC", "parameters": {"username": "a:b", "password": "p"}},
            P0 + ".username",
        ),
        (
            {"type": "OAUTH2", "parameters": {"clientId": "c", "clientSecret": "s"}},
            P0 + ".tokenUrl",
        ),
        (
            {
                "type": "OAUTH2",
                "parameters": {"tokenUrl": "ftp://x/t", "clientId": "c", "clientSecret": "s"},
            },
            P0 + ".tokenUrl",
        ),
        ({"type": "MTLS", "parameters": {"certificatePem": CERT}}, P0 + ".privateKeyPem"),
        (
            {"type": "MTLS", "parameters": {"certificatePem": "not a cert", "privateKeyPem": KEY}},
            P0 + ".certificatePem",
        ),
        (
            {"type": "MTLS", "parameters": {"certificatePem": CERT, "privateKeyPem": "nope"}},
            P0 + ".privateKeyPem",
        ),
        (
            {"type": "MTLS", "parameters": {"certificatePem": CERT, "privateKeyPem": OTHER_KEY}},
            P0 + ".privateKeyPem",
        ),
        (
            {
                "type": "MTLS",
                "parameters": {
                    "certificatePem": CERT,
                    "privateKeyPem": KEY,
                    "caCertificatePem": "x",
                },
            },
            P0 + ".caCertificatePem",
        ),
        (
            {
                "type": "AD_OAUTH2_CERT",
                "parameters": {
                    "tokenUrl": "https://login.example/t",
                    "certificatePem": CERT,
                    "privateKeyPem": KEY,
                },
            },
            P0 + ".clientId",
        ),
        ({"type": "KERBEROS", "parameters": {}}, "authenticationMethods[0].type"),
        ({"type": "API_KEY", "parameters": {"apiKey": 5}}, P0 + ".apiKey"),
    ],
)
def test_authentication_parameters_are_checked_per_type(
    tenant: TenantHandle, method: dict[str, Any], source: str
) -> None:
    _problem(_put(tenant, authenticationMethods=[method]), source)


def test_methods_that_cannot_be_combined_are_refused(tenant: TenantHandle) -> None:
    basic = {"type": "BASIC", "parameters": {"username": "u", "password": "p"}}
    oauth = ALL_METHODS[2]
    _problem(_put(tenant, authenticationMethods=[basic, oauth]), "authenticationMethods[1]")
    mtls = ALL_METHODS[3]
    _problem(_put(tenant, authenticationMethods=[mtls, mtls]), "authenticationMethods[1]")
    _problem(_put(tenant, url="http://plain.example/h", authenticationMethods=[mtls]), "url")
    same_header = {"type": "API_KEY", "parameters": {"headerName": "x-key", "apiKey": "k"}}
    _problem(
        _put(tenant, authenticationMethods=[ALL_METHODS[0], same_header]),
        "authenticationMethods[1].parameters.headerName",
    )
    authorization_key = {
        "type": "API_KEY",
        "parameters": {"headerName": "Authorization", "apiKey": "k"},
    }
    _problem(
        _put(tenant, authenticationMethods=[basic, authorization_key]),
        "authenticationMethods[1].parameters.headerName",
    )
    _problem(
        _put(tenant, methodHeaders={"X-Key": "v"}, authenticationMethods=[ALL_METHODS[0]]),
        "methodHeaders.X-Key",
    )
    _problem(_put(tenant, authenticationMethods=[same_header] * 5), "authenticationMethods")
    # Two API keys, or an API key plus OAuth 2.0, are the usual combinations.
    assert _put(tenant, authenticationMethods=ALL_METHODS[:3]).status_code == 200


def test_deprecated_auth_type_and_params_still_work(tenant: TenantHandle) -> None:
    created = _created(tenant, authType="BASIC", authParams={"username": "u", "password": "pw"})
    masked = {"username": "u", "password": MASK}
    assert created["authenticationMethods"] == [{"type": "BASIC", "parameters": masked}]
    assert created["authType"] == "BASIC" and created["authParams"] == masked
    assert _stored_methods(tenant, created["id"])[0]["parameters"]["password"] == "pw"
    # An answer sent back as it is carries both forms, agreeing: accepted.
    created.pop("signingSecret")
    assert tenant.http.put(PATH, json=created).status_code == 200
    assert _stored_methods(tenant, created["id"])[0]["parameters"]["password"] == "pw"
    # A deprecated-only update with the mask keeps the secret too.
    again = _put(tenant, id=created["id"], authType="BASIC", authParams=masked)
    assert again.status_code == 200
    assert _stored_methods(tenant, created["id"])[0]["parameters"]["password"] == "pw"
    disagree = dict(created, authType="API_KEY", authParams={"apiKey": "k"})
    _problem(tenant.http.put(PATH, json=disagree), "authType")
    _problem(_put(tenant, configName="x", authParams={"apiKey": "k"}), "authParams")
    _problem(_put(tenant, configName="y", authType="API_KEY", authParams={}), "authParams.apiKey")
    _problem(_put(tenant, configName="z", authType="TOKEN"), "authType")


@pytest.mark.parametrize(
    ("fields", "source"),
    [
        ({"url": "ftp://files.example/x"}, "url"),
        ({"url": "/relative/path"}, "url"),
        ({"url": "https://user:pw@example.com/h"}, "url"),
        ({"url": "https://example.com/h#frag"}, "url"),
        ({"url": "https://example.com/a b"}, "url"),
        ({"url": "https://example.com:99999/h"}, "url"),
        ({"url": "https://" + "a" * 2100 + ".com"}, "url"),
        ({"url": None}, "url"),
        ({"configName": ""}, "configName"),
        ({"configName": "   "}, "configName"),
        ({"configName": "a/b"}, "configName"),
        ({"configName": "n" * 201}, "configName"),
        ({"method": "DELETE"}, "method"),
        ({"payloadFormat": "XML"}, "payloadFormat"),
        ({"version": "one"}, "version"),
        ({"version": 2**63}, "version"),
        ({"id": 2**63}, "id"),
        ({"methodHeaders": {"bad header": "v"}}, "methodHeaders"),
        ({"methodHeaders": {"Content-Type": "text/plain"}}, "methodHeaders"),
        ({"methodHeaders": {"X-A": "line\r\nbreak"}}, "methodHeaders"),
        ({"methodHeaders": {"X-A": "1", "x-a": "2"}}, "methodHeaders"),
        ({"methodHeaders": {"X-A": 1}}, "methodHeaders.X-A"),
        ({"methodParams": {"a": ["list"]}}, "methodParams.a"),
        ({"methodParams": {f"p{n}": "v" for n in range(51)}}, "methodParams"),
        (
            {"webhookConfiguration": {"webhookEventType": "shipments.v2.event.added"}},
            "webhookConfiguration.webhookEventType",
        ),
        (
            {"webhookConfiguration": {"shipmentV1Event": {"includeContext": ["ROUTE"]}}},
            "webhookConfiguration.shipmentV1Event",
        ),
        (
            {
                "webhookConfiguration": {
                    "webhookEventType": "shipments.v1.event.added",
                    "shipmentV1Event": {"includeContext": ["EVERYTHING"]},
                }
            },
            "webhookConfiguration.shipmentV1Event.includeContext[0]",
        ),
        (
            {
                "webhookConfiguration": {
                    "webhookEventType": "shipments.v1.state.added",
                    "filters": {"eventTypes": ["ARRIVAL"]},
                }
            },
            "webhookConfiguration.filters.eventTypes",
        ),
        (
            {"webhookConfiguration": {"filters": {"eventTypes": ["ARRIVAL"]}}},
            "webhookConfiguration.filters.eventTypes",
        ),
        (
            {
                "webhookConfiguration": {
                    "webhookEventType": "shipments.v1.event.added",
                    "filters": {"transportationModes": ["SPACE"]},
                }
            },
            "webhookConfiguration.filters.transportationModes[0]",
        ),
        (
            {"webhookConfiguration": {"filters": {"modes": ["TL"]}}},
            "webhookConfiguration.filters.modes",
        ),
        ({"enabled": "sometimes"}, "enabled"),
        ({"unknownField": 1}, "unknownField"),
    ],
)
def test_bad_configurations_name_the_field(
    tenant: TenantHandle, fields: dict[str, Any], source: str
) -> None:
    _problem(_put(tenant, **fields), source)


def test_bad_requests(tenant: TenantHandle) -> None:
    assert tenant.http.get(f"{PATH}/not-a-number").status_code == 400
    assert tenant.http.get(f"{PATH}/{2**63}").status_code == 400
    assert tenant.http.delete(f"{PATH}/1.5").status_code == 400
    missing = tenant.http.put(PATH, json={"url": "https://example.com/h"})
    _problem(missing, "configName")
    malformed = tenant.http.put(
        PATH, content=b"{nope", headers={"content-type": "application/json"}
    )
    assert malformed.status_code == 400
    text = tenant.http.put(PATH, content=b"x=1", headers={"content-type": "text/plain"})
    assert text.status_code == 415
    assert tenant.http.post(PATH, json={}).status_code == 405


def test_the_answer_of_a_create_can_be_sent_back(tenant: TenantHandle) -> None:
    created = _created(tenant, authenticationMethods=ALL_METHODS[:1])
    again = tenant.http.put(PATH, json=created)
    assert again.status_code == 200, again.text
    # The signing secret is not changed by sending it back, nor shown again.
    assert "signingSecret" not in again.json()
    assert _stored_methods(tenant, created["id"])[0]["parameters"]["apiKey"] == "key-1"


def test_answers_of_get_can_be_sent_back_unchanged(tenant: TenantHandle) -> None:
    created = _created(
        tenant,
        authenticationMethods=ALL_METHODS,
        webhookConfiguration={"webhookEventType": "shipments.v1.shipment.created"},
    )
    read = tenant.http.get(f"{PATH}/{created['id']}").json()
    again = tenant.http.put(PATH, json=read)
    assert again.status_code == 200, again.text
    assert {k: v for k, v in again.json().items() if k != "lastModifiedDateTime"} == {
        k: v for k, v in read.items() if k != "lastModifiedDateTime"
    }
    assert _stored_methods(tenant, created["id"])[2]["parameters"]["clientSecret"] == "s3cret"


def test_enabled_false_pauses_and_any_put_enables(tenant: TenantHandle) -> None:
    created = _created(tenant, enabled=False)
    assert created["enabled"] is False and created["disabledReason"]
    assert "disabledDateTime" in created
    enabled = _created(tenant, id=created["id"])
    assert enabled["enabled"] is True and "disabledReason" not in enabled


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    mine = _created(tenant, authenticationMethods=ALL_METHODS[:1])
    assert other.http.get(PATH).json() == {"webhookEndpoints": []}
    assert other.http.get(f"{PATH}/{mine['id']}").status_code == 404
    assert other.http.get(f"{PATH}/name/orders").status_code == 404
    assert other.http.delete(f"{PATH}/{mine['id']}").status_code == 404
    # Another tenant can neither update my configuration nor borrow its stored secret.
    stolen = _put(other, id=mine["id"], authenticationMethods=mine["authenticationMethods"])
    assert stolen.status_code == 404
    theirs = _created(other)  # the same name is free in another tenant
    assert theirs["id"] != mine["id"]
    assert tenant.http.get(f"{PATH}/{mine['id']}").json()["url"] == mine["url"]
    assert tenant.http.get(f"{PATH}/name/orders").json()["id"] == mine["id"]
