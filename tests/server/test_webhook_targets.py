"""Webhooks are not sent to the service's own network (issue 19.3), over real HTTP.

A service that listens on loopback only (the desktop's, and the `service` fixture) sends
anywhere. One that does not (`loopback_only=False`, what `serve --host` with another address
sets) refuses receivers on loopback, private, link-local, multicast and unspecified addresses
when a configuration is saved (400 naming the field) and when a connection is made (the
attempt fails before any packet leaves, so a ping says the same of an open and of a closed
port), unless the operator allows them all or some networks. The last test runs `serve` on a
non-loopback address of a network namespace it creates, with its receiver on that namespace's
loopback.
"""

from __future__ import annotations

import ipaddress
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from freightdesk.models.webhooks import PushConfigurationInput
from freightdesk.server.db import transaction
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.webhooks import configs
from tests.netns import SERVICE_ADDRESS, inside
from tests.processes import SERVE, processes, read_until
from tests.server.test_tracking_support import air_body, create
from tests.server.test_webhooks_delivery import configure, deliveries
from tests.server.test_webhooks_support import eventually, receiver, tuned
from tests.support import (
    LiveService,
    PostgresServer,
    TenantHandle,
    free_port,
    make_tenant,
    running_service,
)

HOOKS = "/api/v4/webhooks"
CREATED = "shipments.v1.shipment.created"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def exposed(request: pytest.FixtureRequest) -> Iterator[LiveService]:
    """A service that does not listen on loopback only, with no network allowed."""
    url = None
    if request.param == "postgresql":
        pg: PostgresServer = request.getfixturevalue("postgres")
        url = pg.create_database()
    with running_service(url, loopback_only=False) as live, tuned(live):
        yield live


@pytest.fixture
def outsider(exposed: LiveService) -> Iterator[TenantHandle]:
    handle = make_tenant(exposed)
    yield handle
    handle.http.close()


def refused(answer: httpx.Response, source: str) -> str:
    """The 400 Error body's one error, about `source`; its message."""
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["httpStatusCode"] == 400
    assert [e["source"] for e in body["errors"]] == [source], body
    message: str = body["errors"][0]["message"]
    assert "own network" in message and "--allow-private-webhook-targets" in message
    return message


def put(tenant: TenantHandle, url: str, **fields: Any) -> httpx.Response:
    body = {"configName": f"hook-{uuid.uuid4().hex[:8]}", "url": url, **fields}
    return tenant.http.put(HOOKS, json=body)


# --- a service reachable from elsewhere ----------------------------------------------------


def test_a_receiver_on_loopback_is_refused_when_saved(outsider: TenantHandle) -> None:
    with receiver() as hooks:
        message = refused(put(outsider, hooks.url()), "url")
        assert "127.0.0.1 is a loopback address" in message
        # A name that resolves to loopback too; which address it resolves to is not said.
        message = refused(put(outsider, f"http://localhost:{hooks.port}/hook"), "url")
        assert "localhost resolves to an address on the service's own network" in message
        assert "127.0.0.1" not in message and "::1" not in message
        assert hooks.received() == []
    assert outsider.http.get(HOOKS).json()["webhookEndpoints"] == []


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("[::1]", "loopback"),
        ("[::ffff:127.0.0.1]", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "private"),
        ("[fd00::1]", "private"),
        ("169.254.169.254", "link-local"),
        ("[fe80::1]", "link-local"),
        ("224.0.0.1", "multicast"),
        ("[ff02::1]", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("[::]", "unspecified"),
    ],
)
def test_every_kind_of_local_address_is_refused(
    outsider: TenantHandle, host: str, kind: str
) -> None:
    message = refused(put(outsider, f"http://{host}:8080/hook"), "url")
    assert f"a {kind} address" in message


def test_a_public_address_is_accepted(outsider: TenantHandle) -> None:
    # Saved only (TEST-NET addresses would be refused; this one is a public address that
    # is never pinged here).
    answer = put(outsider, "https://93.184.215.14/hook")
    assert answer.status_code == 200, answer.text


def test_a_token_endpoint_on_loopback_is_refused_when_saved(outsider: TenantHandle) -> None:
    method = {
        "type": "OAUTH2",
        "parameters": {
            "clientId": "c",
            "clientSecret": "s",
            "tokenUrl": f"http://127.0.0.1:{free_port()}/token",
        },
    }
    answer = put(outsider, "https://93.184.215.14/hook", authenticationMethods=[method])
    refused(answer, "authenticationMethods[0].parameters.tokenUrl")


def _saved_before(service: LiveService, tenant: TenantHandle, url: str) -> int:
    """A configuration of `url` saved without the check, as one made before the rule (or by
    a name that resolved elsewhere when it was saved): the connection must still refuse it."""
    with transaction(service.context.sessions) as session:
        tenant_id = session.query(Tenant.id).filter(Tenant.uuid == tenant.uuid).scalar()
        body = PushConfigurationInput.model_validate(
            {
                "configName": f"old-{uuid.uuid4().hex[:8]}",
                "url": url,
                "webhookConfiguration": {"webhookEventType": CREATED},
            }
        )
        row, _secret = configs.save(session, tenant_id, body)
        return row.id


def _ping(tenant: TenantHandle, config_id: int) -> dict[str, Any]:
    answer = tenant.http.post(f"{HOOKS}/{config_id}/ping")
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def test_a_ping_cannot_tell_an_open_port_from_a_closed_one(
    exposed: LiveService, outsider: TenantHandle
) -> None:
    with receiver() as hooks:
        opened = _saved_before(exposed, outsider, hooks.url())
        closed = _saved_before(exposed, outsider, f"http://127.0.0.1:{free_port()}/hook")
        named = _saved_before(exposed, outsider, f"http://localhost:{hooks.port}/hook")
        results = [_ping(outsider, config_id) for config_id in (opened, closed, named)]
        assert hooks.received() == []
    for result in results:
        assert result["delivered"] is False
        assert "statusCode" not in result
    assert (
        results[0]["error"]
        == results[1]["error"]
        == ("Not sent: 127.0.0.1 is a loopback address, on the service's own network")
    )
    assert results[0]["errorDetail"] == results[1]["errorDetail"]
    assert "--allow-private-webhook-targets" in results[0]["errorDetail"]
    assert results[2]["error"].startswith("Not sent: the host localhost resolves to an address")


def test_a_delivery_to_a_stored_local_receiver_is_not_sent(
    exposed: LiveService, outsider: TenantHandle
) -> None:
    with receiver() as hooks:
        config_id = _saved_before(exposed, outsider, hooks.url())
        create(outsider, air_body())

        def attempted() -> dict[str, Any] | None:
            for delivery in deliveries(outsider, config_id)["deliveries"]:
                if delivery["attempts"]:
                    found: dict[str, Any] = delivery["attempts"][0]
                    return found
            return None

        attempt = eventually(attempted)
        assert attempt is not None
        assert attempt["error"].startswith("Not sent: 127.0.0.1 is a loopback address")
        assert hooks.received() == []


# --- what the operator allows ----------------------------------------------------------------


def test_the_operator_can_allow_every_local_receiver() -> None:
    with (
        running_service(loopback_only=False, allow_private_webhook_targets=True) as live,
        tuned(live),
        receiver() as hooks,
    ):
        tenant = make_tenant(live)
        config = configure(tenant, f"http://localhost:{hooks.port}/hook", CREATED)
        assert _ping(tenant, config["id"])["delivered"] is True
        assert len(hooks.received()) == 1
        tenant.http.close()


def test_allowed_networks_and_redirects_are_not_followed_out_of_them() -> None:
    allowed = (ipaddress.ip_network("127.0.0.1/32"),)
    with (
        running_service(loopback_only=False, allowed_webhook_networks=allowed) as live,
        tuned(live),
        receiver() as hooks,
        socket.socket() as elsewhere,
    ):
        tenant = make_tenant(live)
        # Another loopback address, outside the allowed network: refused when saved...
        elsewhere.bind(("127.0.0.2", 0))
        elsewhere.listen()
        elsewhere.setblocking(False)
        outside = f"http://127.0.0.2:{elsewhere.getsockname()[1]}/hook"
        refused(put(tenant, outside), "url")
        # ...and not reached by a redirect from an allowed receiver either.
        hooks.answer = lambda _request: (302, {"Location": outside})
        config = configure(tenant, hooks.url(), CREATED)
        result = _ping(tenant, config["id"])
        assert (result["delivered"], result["statusCode"]) == (False, 302)
        assert "redirects are not followed" in result["error"]
        with pytest.raises(BlockingIOError):
            elsewhere.accept()
        tenant.http.close()


def test_a_service_on_loopback_only_sends_to_loopback(tenant: TenantHandle) -> None:
    with receiver() as hooks:
        config = configure(tenant, f"http://localhost:{hooks.port}/hook", CREATED)
        assert _ping(tenant, config["id"])["delivered"] is True
        assert len(hooks.received()) == 1


def test_serve_refuses_a_network_that_is_not_one() -> None:
    command = [*SERVE, "--allowed-webhook-networks", "10.0.0.0/8,10.1.2.300/32"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "'10.1.2.300/32' is not a network" in done.stderr


# --- serve on a non-loopback address of a network namespace ------------------------------------


def test_serve_on_a_network_address_refuses_receivers_on_its_own_machine(
    namespace: str, tmp_path: Path
) -> None:
    data = ["--data-dir", str(tmp_path)]
    admin = [sys.executable, "-m", "freightdesk.cli"]
    subprocess.run([*admin, "tenant", "add", "t", "--admin", "a:b", *data], check=True)
    made = subprocess.run(
        [*admin, "client", "add", "t", "tests", *data], check=True, capture_output=True, text=True
    )
    client_id, secret = made.stdout.split("client id ")[1].strip().split(", client secret ")
    serve = ["ip", "netns", "exec", namespace, *SERVE, "--host", SERVICE_ADDRESS, *data]

    def client(url: str) -> httpx.Client:
        form = {"grant_type": "client_credentials", "client_id": client_id}
        token = httpx.post(
            f"{url}/api/v4/oauth2/token", data={**form, "client_secret": secret}, timeout=30
        )
        token.raise_for_status()
        bearer = {"Authorization": f"Bearer {token.json()['access_token']}"}
        return httpx.Client(base_url=url, headers=bearer, timeout=30)

    with processes() as running:
        process = running.start(serve)
        url = read_until(process, r"listening on (http://\S+)", 60)[1]

        def refused_there() -> list[httpx.Response]:
            with receiver() as hooks, client(url) as http:
                answers = [
                    http.put(HOOKS, json={"configName": f"h{i}", "url": target})
                    for i, target in enumerate(
                        [
                            hooks.url(),
                            f"http://localhost:{hooks.port}/hook",
                            f"http://{SERVICE_ADDRESS}:{hooks.port}/hook",
                        ]
                    )
                ]
                assert hooks.received() == []
                return answers

        for answer in inside(namespace, refused_there):
            assert answer.status_code == 400, answer.text
            assert answer.json()["errors"][0]["source"] == "url"
        process.kill()
        process.wait(30)

        process = running.start([*serve, "--allow-private-webhook-targets"])
        url = read_until(process, r"listening on (http://\S+)", 60)[1]

        def allowed_there() -> tuple[dict[str, Any], int]:
            with receiver() as hooks, client(url) as http:
                saved = http.put(HOOKS, json={"configName": "allowed", "url": hooks.url()})
                assert saved.status_code == 200, saved.text
                ping = http.post(f"{HOOKS}/{saved.json()['id']}/ping")
                return ping.json(), len(hooks.received())

        result, received = inside(namespace, allowed_there)
        assert result["delivered"] is True, result
        assert received == 1
