"""Why a delivery failed, provoked for real: a refused port, a receiver that never answers, a
host name that does not resolve, a self-signed TLS certificate and HTTP statuses. Each reads
as plain words (`error`), with what the network, TLS or the receiver said kept beside them
(`errorDetail`), in the ping's answer and in the delivery log alike."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from tests.server.test_tracking_support import air_body, create
from tests.server.test_webhooks_delivery import configure, deliveries
from tests.server.test_webhooks_support import (
    FAST,
    authority,
    eventually,
    fast_delivery,
    receiver,
    server_tls,
    tuned,
)
from tests.support import LiveService, TenantHandle, free_port

__all__ = ["fast_delivery"]  # a fixture (tests/server/test_webhooks_support.py)

HOOKS = "/api/v4/webhooks"
CREATED = "shipments.v1.shipment.created"
# What the words never show: the network stack's and TLS library's own texts.
TECHNICAL = ("Errno", "Connect call failed", "_ssl.c", "gaierror", "SSL:")


def ping(tenant: TenantHandle, url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ping a new configuration of `url`: the ping's answer and its attempt in the log."""
    config = configure(tenant, url, CREATED)
    answer = tenant.http.post(f"{HOOKS}/{config['id']}/ping")
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    assert result["delivered"] is False
    logged = deliveries(tenant, config["id"])["deliveries"]
    assert [d["status"] for d in logged] == ["FAILED"]
    attempt: dict[str, Any] = logged[0]["attempts"][0]
    # The log keeps both, as the ping said them.
    assert (attempt["error"], attempt["errorDetail"]) == (result["error"], result["errorDetail"])
    assert not [t for t in TECHNICAL if t in result["error"]], result["error"]
    return result, attempt


@contextmanager
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog does) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield int(listener.getsockname()[1])


def test_a_refused_connection(tenant: TenantHandle) -> None:
    port = free_port()
    result, _attempt = ping(tenant, f"http://127.0.0.1:{port}/hook")
    assert result["error"] == (
        f"The receiver refused the connection: nothing accepts connections at 127.0.0.1:{port}"
    )
    assert result["errorDetail"].startswith("ConnectionRefusedError: [Errno")
    assert "statusCode" not in result


def test_a_refused_connection_of_a_message_is_in_its_log(tenant: TenantHandle) -> None:
    port = free_port()
    config = configure(tenant, f"http://127.0.0.1:{port}/hook", CREATED)
    create(tenant, air_body())
    attempts = eventually(
        lambda: (log := deliveries(tenant, config["id"])["deliveries"]) and log[0]["attempts"]
    )
    assert attempts[0]["error"].startswith("The receiver refused the connection")
    assert attempts[0]["errorDetail"].startswith("ConnectionRefusedError")


def test_a_receiver_that_never_answers_times_out(
    tenant: TenantHandle, service: LiveService
) -> None:
    with (
        silent_port() as port,
        tuned(service, replace(FAST, timeout_seconds=0.3, connect_timeout_seconds=0.3)),
    ):
        result, _attempt = ping(tenant, f"http://127.0.0.1:{port}/hook")
    assert result["error"] == "The receiver did not answer within 0.3 s (timed out)"
    assert "TimeoutError" in result["errorDetail"]
    assert result["latencyMs"] >= 300


def test_a_host_name_that_does_not_resolve(tenant: TenantHandle) -> None:
    result, _attempt = ping(tenant, "http://receiver.freightdesk.invalid/hook")
    assert result["error"] == (
        "The receiver's host name receiver.freightdesk.invalid was not found (DNS); check the URL"
    )
    assert result["errorDetail"].startswith("gaierror: [Errno")


def test_a_self_signed_tls_certificate(tenant: TenantHandle) -> None:
    certificate, _cert, _key = authority("self-signed receiver")
    with receiver(server_tls(certificate, None)) as secure:
        result, _attempt = ping(tenant, secure.url())
        assert secure.received() == []
    assert result["error"] == (
        "The receiver's TLS certificate was not accepted (self-signed certificate)"
    )
    assert "CERTIFICATE_VERIFY_FAILED" in result["errorDetail"]


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (503, "The receiver answered 503 Service Unavailable"),
        (500, "The receiver answered 500 Internal Server Error"),
        (401, "The receiver answered 401 Unauthorized: it did not accept the credentials"),
        (404, "The receiver answered 404 Not Found: it has no such address; check the URL"),
        (302, "The receiver answered 302 Found: redirects are not followed"),
        (599, "The receiver answered 599"),
    ],
)
def test_an_http_status_with_its_reason(tenant: TenantHandle, status: int, words: str) -> None:
    with receiver() as hooks:
        hooks.answer = lambda _r: (status, {})
        hooks.reply_body = b"busy:\n  try again   later"
        result, attempt = ping(tenant, hooks.url())
        assert len(hooks.received()) == 1
    assert result["error"].startswith(words)
    # The receiver's own words, on one line.
    assert result["errorDetail"] == f"HTTP {status}: busy: try again later"
    assert result["statusCode"] == attempt["statusCode"] == status
