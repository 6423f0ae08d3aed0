"""Secrets of push configurations at rest, and bringing an older database up to date.

Authentication parameters and signing secrets are stored encrypted, answered masked, and
still presented to receivers. A database from before (an outbox of full messages, secrets in
clear) is migrated when the delivery worker starts: nothing pending is lost, the delivery log
keeps every attempt, and the secrets end up sealed.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import tempfile
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import (
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    inspect,
    update,
)

from freightdesk.models.webhooks import (
    MASK,
    AuthenticationMethod,
    AuthenticationType,
    PushConfigurationInput,
    WebhookConfiguration,
    WebhookEventType,
)
from freightdesk.server.db import Base, transaction, utcnow
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant
from freightdesk.server.tables.webhooks import WebhookConfigRow
from freightdesk.server.webhooks import configs, signing
from freightdesk.server.webhooks.secret_box import (
    ENVIRONMENT_KEY,
    KEY_FILE,
    SecretBox,
    box,
    load_key,
)
from tests.server.test_tracking_support import air_body, create
from tests.server.test_webhooks_delivery import assert_signed, configure, deliveries
from tests.server.test_webhooks_reliability import _settings
from tests.server.test_webhooks_support import (
    Receiver,
    eventually,
    fast_delivery,
    hooks,
    receiver,
    settled,
)
from tests.support import LiveService, TenantHandle

__all__ = ["fast_delivery", "hooks"]  # fixtures (tests/server/test_webhooks_support.py)

HOOKS = "/api/v4/webhooks"
CREATED = "shipments.v1.shipment.created"
API_KEY = "key-7f3a9c1e5b"
PASSWORD = "pass-1d8e4b2a6c"


def _row(tenant: TenantHandle, config_id: int) -> WebhookConfigRow:
    with tenant.service.context.sessions() as session:
        row = session.get(WebhookConfigRow, config_id)
        assert row is not None
        return row


def _methods() -> list[dict[str, Any]]:
    return [
        {"type": "API_KEY", "parameters": {"headerName": "X-Key", "apiKey": API_KEY}},
        {"type": "BASIC", "parameters": {"username": "hooks", "password": PASSWORD}},
    ]


def test_secrets_are_sealed_at_rest_masked_in_answers_and_presented_to_receivers(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    config = configure(tenant, hooks.url(), CREATED, authenticationMethods=_methods())
    secret = config["signingSecret"]
    row = _row(tenant, config["id"])
    stored = json.dumps(row.authentication_methods)
    assert API_KEY not in stored and PASSWORD not in stored
    assert row.signing_secret.startswith("enc1:") and secret not in row.signing_secret
    parameters = [m["parameters"] for m in row.authentication_methods]
    assert parameters[0]["apiKey"].startswith("enc1:")
    assert parameters[1] == {"username": "hooks", "password": parameters[1]["password"]}
    answer = tenant.http.get(f"{HOOKS}/{config['id']}").json()
    assert [
        m["parameters"].get("apiKey", m["parameters"].get("password"))
        for m in answer["authenticationMethods"]
    ] == [MASK, MASK]
    # The service's key sits in its data directory, readable by its user only.
    key_file = tenant.service.settings.data_dir / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    create(tenant, air_body())
    request = hooks.wait_for(1)[0]
    assert request.headers["x-key"] == API_KEY
    expected = base64.b64encode(f"hooks:{PASSWORD}".encode()).decode()
    assert request.headers["authorization"] == f"Basic {expected}"
    assert_signed(request, secret)

    # A rotated secret is sealed too; during the grace period both sign.
    rotated = tenant.http.post(f"{HOOKS}/{config['id']}/signing-secret").json()["signingSecret"]
    row = _row(tenant, config["id"])
    assert row.signing_secret.startswith("enc1:") and row.previous_signing_secret
    assert row.previous_signing_secret.startswith("enc1:")
    create(tenant, air_body("020-99999996"))
    later = hooks.wait_for(2)[1]
    assert_signed(later, rotated)
    assert_signed(later, secret)


def test_a_secret_the_key_cannot_open_fails_the_attempt_until_entered_again(
    tenant: TenantHandle, hooks: Receiver
) -> None:
    methods = _methods()[:1]
    config = configure(tenant, hooks.url(), CREATED, authenticationMethods=methods)
    foreign = SecretBox(os.urandom(32))
    broken = [
        {"type": "API_KEY", "parameters": {"headerName": "X-Key", "apiKey": foreign.seal("x")}}
    ]
    with transaction(tenant.service.context.sessions) as session:
        session.execute(
            update(WebhookConfigRow)
            .where(WebhookConfigRow.id == config["id"])
            .values(authentication_methods=broken, updated_at=utcnow())
        )
    sid = create(tenant, air_body())["id"]
    attempts = eventually(
        lambda: (log := deliveries(tenant, config["id"])["deliveries"]) and log[0]["attempts"]
    )
    assert "cannot be decrypted" in attempts[-1]["error"]
    assert hooks.received() == []
    # Sending the mask back cannot keep a secret that cannot be read: 400, not 500.
    edit = {
        **config,
        "authenticationMethods": [
            {"type": "API_KEY", "parameters": {"headerName": "X-Key", "apiKey": MASK}}
        ],
    }
    edit.pop("signingSecret")
    edit.pop("authType")
    edit.pop("authParams")
    refused = tenant.http.put(HOOKS, json=edit)
    assert refused.status_code == 400, refused.text
    # Entering it again repairs the configuration.
    edit["authenticationMethods"][0]["parameters"]["apiKey"] = API_KEY
    assert tenant.http.put(HOOKS, json=edit).status_code == 200
    create(tenant, air_body("020-99999996"))
    request = eventually(
        lambda: [
            r for r in hooks.received() if r.json()["context"]["shipment"]["shipmentId"] != sid
        ]
    )[0]
    assert request.headers["x-key"] == API_KEY


def test_the_key_comes_from_the_environment_or_a_private_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENVIRONMENT_KEY, raising=False)
    made = load_key(tmp_path / "data")
    assert len(made) == 32 and load_key(tmp_path / "data") == made
    assert stat.S_IMODE((tmp_path / "data" / KEY_FILE).stat().st_mode) == 0o600
    chosen = os.urandom(32)
    monkeypatch.setenv(ENVIRONMENT_KEY, base64.b64encode(chosen).decode())
    assert load_key(tmp_path / "elsewhere") == chosen
    assert not (tmp_path / "elsewhere").exists()
    monkeypatch.setenv(ENVIRONMENT_KEY, "too short")
    with pytest.raises(ValueError, match=ENVIRONMENT_KEY):
        load_key(tmp_path)
    sealed = SecretBox(chosen).seal("s3cret")
    assert sealed.startswith("enc1:") and SecretBox(chosen).open(sealed) == "s3cret"
    assert SecretBox(chosen).open("stored in clear") == "stored in clear"


# --- an older database -------------------------------------------------------------------------


def _legacy_tables() -> tuple[MetaData, Table, Table]:
    """The outbox as the first release made it."""
    legacy = MetaData()
    Base.metadata.tables["tenants"].to_metadata(legacy)
    Base.metadata.tables["webhook_configs"].to_metadata(legacy)
    messages = Table(
        "webhook_messages",
        legacy,
        Column("id", Integer, primary_key=True),
        Column("tenant_id", ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False),
        Column("config_id", ForeignKey("webhook_configs.id", ondelete="CASCADE"), nullable=False),
        Column("event_id", String(36), nullable=False),
        Column("event_type", String(60), nullable=False),
        Column("shipment_id", String(36)),
        Column("body", Text, nullable=False),
        Column("status", String(12), nullable=False),
        Column("attempt_count", Integer, nullable=False),
        Column("next_attempt_at", DateTime),
        Column("created_at", DateTime, nullable=False),
        Column("delivered_at", DateTime),
    )
    attempts = Table(
        "webhook_attempts",
        legacy,
        Column("id", Integer, primary_key=True),
        Column("message_id", ForeignKey("webhook_messages.id", ondelete="CASCADE"), index=True),
        Column("attempted_at", DateTime, nullable=False),
        Column("status_code", Integer),
        Column("latency_ms", Float, nullable=False),
        Column("error", String(500)),
    )
    return legacy, messages, attempts


def test_an_older_database_is_brought_up_to_date_when_the_worker_starts(
    database_url: str,
) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-older-"))
    try:
        with receiver() as hooks:
            live = LiveService(_settings(data_dir, database_url))
            context = live.context
            body = PushConfigurationInput(
                config_name="old",
                url=hooks.url(),
                authentication_methods=[
                    AuthenticationMethod(
                        type=AuthenticationType.API_KEY,
                        parameters={"headerName": "X-Key", "apiKey": API_KEY},
                    )
                ],
                webhook_configuration=WebhookConfiguration(
                    webhook_event_type=WebhookEventType.SHIPMENT_CREATED
                ),
            )
            with transaction(context.sessions) as session:
                tenant = ensure_tenant(session, "older", "admin-older", "older password").tenant
                app, app_secret = create_client_app(session, tenant.id, "tests")
                # Saved as the first release did: secrets in clear.
                row, secret = configs.save(session, tenant.id, body)
                assert secret is not None and row.signing_secret == secret
                tenant_id, config_id, client_id = tenant.id, row.id, app.id
            legacy, messages, attempts = _legacy_tables()
            now = utcnow().replace(tzinfo=None)
            sent, waiting = str(uuid.uuid4()), str(uuid.uuid4())
            with context.engine.begin() as connection:
                legacy.create_all(connection, tables=[messages, attempts])

                def message(shipment: str, status: str, failed: int) -> int:
                    return int(
                        connection.execute(
                            messages.insert().values(
                                tenant_id=tenant_id,
                                config_id=config_id,
                                event_id=str(uuid.uuid4()),
                                event_type=CREATED,
                                shipment_id=shipment,
                                body=json.dumps({"shipment": shipment}),
                                status=status,
                                attempt_count=failed,
                                next_attempt_at=None if status != "PENDING" else now,
                                created_at=now - timedelta(minutes=5),
                                delivered_at=now if status == "DELIVERED" else None,
                            )
                        ).inserted_primary_key[0]
                    )

                first = message(sent, "DELIVERED", 1)
                second = message(waiting, "PENDING", 1)
                for message_id, code, error in (
                    (first, 500, "HTTP 500"),
                    (first, 200, None),
                    (second, 503, "HTTP 503"),
                ):
                    connection.execute(
                        attempts.insert().values(
                            message_id=message_id,
                            attempted_at=now - timedelta(minutes=4),
                            status_code=code,
                            latency_ms=12.5,
                            error=error,
                        )
                    )
            live.start()
            try:
                request = hooks.wait_for(1)[0]
                assert request.json() == {"shipment": waiting}
                assert request.headers["x-key"] == API_KEY
                assert_signed(request, secret)
                token = httpx.post(
                    f"{live.url}/api/v4/oauth2/token",
                    data={
                        "grant_type": "client_credentials",
                        "client_id": client_id,
                        "client_secret": app_secret,
                    },
                ).json()["access_token"]
                with httpx.Client(
                    base_url=live.url, headers={"Authorization": f"Bearer {token}"}
                ) as http:

                    def log() -> list[dict[str, Any]]:
                        found: list[dict[str, Any]] = http.get(
                            f"{HOOKS}/{config_id}/deliveries"
                        ).json()["deliveries"]
                        return found

                    found = eventually(lambda: (f := log()) and f[0]["status"] == "DELIVERED" and f)
                    answer = http.get(f"{HOOKS}/{config_id}").json()
                assert [(d["shipmentId"], d["status"]) for d in found] == [
                    (waiting, "DELIVERED"),
                    (sent, "DELIVERED"),
                ]
                assert [a.get("statusCode") for a in found[0]["attempts"]] == [200, 503]
                assert [a.get("statusCode") for a in found[1]["attempts"]] == [200, 500]
                assert found[1]["attempts"][1]["error"] == "HTTP 500"
                assert answer["authenticationMethods"][0]["parameters"]["apiKey"] == MASK
                with context.engine.connect() as connection:
                    names = set(inspect(connection).get_table_names())
                    assert not names & {"webhook_messages", "webhook_attempts"}
                with context.sessions() as session:
                    stored = session.get(WebhookConfigRow, config_id)
                    assert stored is not None
                    assert stored.signing_secret.startswith("enc1:")
                    assert API_KEY not in json.dumps(stored.authentication_methods)
                    methods = box(context).open_methods(stored.authentication_methods)
                    assert methods[0]["parameters"]["apiKey"] == API_KEY
                settled(live, config_id)
                assert len(hooks.received()) == 1  # the delivered one is not sent again
            finally:
                live.stop()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_a_sealed_signing_secret_fits_its_column() -> None:
    sealed = SecretBox(os.urandom(32)).seal(signing.new_secret())
    column = Base.metadata.tables["webhook_configs"].c.signing_secret
    assert len(sealed) <= column.type.length  # PostgreSQL enforces VARCHAR(100)
