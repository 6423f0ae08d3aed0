"""Bounded requests over real HTTP (issue 19, points 2 and 6): body limits per operation (413),
NUL characters (400 naming the field), stalled headers and bodies (408, connection closed),
connections per address (503)."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from freightdesk.models.errors import ErrorBody
from tests.netns import SERVICE_ADDRESS, inside
from tests.processes import SERVE, processes, read_until
from tests.server.test_carrier_push_support import (
    PARCEL,
    SHIPMENTS,
    TRUCKLOAD,
    accepted,
    parcel_body,
    refused,
    stored_pushes,
    truckload_body,
    unique,
)
from tests.server.test_documents_limits import read_response
from tests.support import (
    DATABASES,
    LiveService,
    TenantHandle,
    new_database,
    running_service,
    tenant_of,
)

PUSH_LIMIT = 16 * 1024
JSON_LIMIT = 64 * 1024
# Short bounds, so that the stalled cases take seconds; generous enough that a loaded machine
# (a load of 10) still sends a whole small request in time.
STALL_SECONDS = 2.0
MIN_RATE = 1024
# How long after the bound the service may take to act on it on a loaded machine.
SLACK_SECONDS = 15.0


BOUNDS: dict[str, object] = {
    "push_body_limit_bytes": PUSH_LIMIT,
    "json_body_limit_bytes": JSON_LIMIT,
    "body_timeout_seconds": STALL_SECONDS,
    "body_min_bytes_per_second": MIN_RATE,
    "header_timeout_seconds": STALL_SECONDS,
}


@pytest.fixture(scope="module")
def bounded() -> Iterator[LiveService]:
    """On SQLite, for the tests of the connection (the database plays no part in them)."""
    with running_service(None, **BOUNDS) as live:
        yield live


@pytest.fixture(scope="module", params=DATABASES)
def bounded_on_each(request: pytest.FixtureRequest) -> Iterator[LiveService]:
    """On each database, for the tests of what is stored (a body at its limit, NUL)."""
    if request.param == "sqlite":
        yield request.getfixturevalue("bounded")
        return
    with running_service(new_database(request, request.param), **BOUNDS) as live:
        yield live


@pytest.fixture
def sqlite_tenant(bounded: LiveService) -> Iterator[TenantHandle]:
    with tenant_of(bounded) as handle:
        yield handle


@pytest.fixture
def tenant(bounded_on_each: LiveService) -> Iterator[TenantHandle]:
    """A tenant of the bounded service, on each database."""
    with tenant_of(bounded_on_each) as handle:
        yield handle


def padded(body: dict[str, Any], size: int) -> bytes:
    """`body` as JSON of exactly `size` bytes (trailing blanks are JSON's whitespace)."""
    text = json.dumps(body).encode()
    assert len(text) <= size
    return text + b" " * (size - len(text))


def post_json(tenant: TenantHandle, path: str, content: bytes) -> httpx.Response:
    return tenant.http.post(path, content=content, headers={"content-type": "application/json"})


def error_of(head: bytes, body: bytes, status: int) -> ErrorBody:
    """The Error body of a raw answer, which must have `status` and close the connection."""
    error = ErrorBody.model_validate_json(body)
    assert head.split(b"\r\n")[0] == f"HTTP/1.1 {status} {error.http_message}".encode()
    assert error.http_status_code == status
    assert re.search(rb"(?im)^connection:\s*close\s*$", head), head
    return error


def closed(sock: socket.socket) -> bool:
    """Whether the service closed the connection (within a few seconds)."""
    sock.settimeout(5)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def head_of(tenant: TenantHandle, path: str, length: int | None, *, chunked: bool = False) -> bytes:
    token = tenant.http.headers["authorization"]
    lines = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Authorization: {token}",
        "Content-Type: application/json",
    ]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# --- sizes -----------------------------------------------------------------------------------


def test_a_push_of_exactly_its_limit_is_accepted_and_one_byte_more_refused(
    tenant: TenantHandle,
) -> None:
    for path, body in [(PARCEL, parcel_body(unique("1Z"))), (TRUCKLOAD, truckload_body("BOL-1"))]:
        before = stored_pushes(tenant)
        accepted(post_json(tenant, path, padded(body, PUSH_LIMIT)))
        assert stored_pushes(tenant) == before + 1
        answer = post_json(tenant, path, padded(body, PUSH_LIMIT + 1))
        assert f"larger than the limit of {PUSH_LIMIT} bytes" in refused(answer, "body", 413)
        assert stored_pushes(tenant) == before + 1


def test_other_json_bodies_have_the_larger_limit(tenant: TenantHandle) -> None:
    shipment = {"identifiers": [{"type": "BILL_OF_LADING", "value": unique("BOL")}]}
    # Beyond a push's limit, within the others': the operation answers it.
    answer = tenant.http.put(
        f"{SHIPMENTS}/tracking",
        content=padded(shipment, PUSH_LIMIT * 2),
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 201, answer.text
    answer = tenant.http.put(
        f"{SHIPMENTS}/tracking",
        content=padded(shipment, JSON_LIMIT + 1),
        headers={"content-type": "application/json"},
    )
    assert f"larger than the limit of {JSON_LIMIT} bytes" in refused(answer, "body", 413)


def test_a_declared_length_beyond_the_limit_is_refused_before_the_body(
    sqlite_tenant: TenantHandle, bounded: LiveService
) -> None:
    with socket.create_connection(("127.0.0.1", bounded.port), timeout=10) as sock:
        # Only the headers: the answer must come without the service waiting for the body.
        sock.sendall(head_of(sqlite_tenant, TRUCKLOAD, 50 * 1024 * 1024))
        head, body = read_response(sock)
        error = error_of(head, body, 413)
        assert [(e.source, e.message) for e in error.errors] == [
            ("body", f"is larger than the limit of {PUSH_LIMIT} bytes")
        ]
        assert error.support_reference_id
        assert closed(sock)


def test_a_chunked_body_is_cut_off_once_past_the_limit(
    sqlite_tenant: TenantHandle, bounded: LiveService
) -> None:
    before = stored_pushes(sqlite_tenant)
    chunk = b" " * 4096
    with socket.create_connection(("127.0.0.1", bounded.port), timeout=10) as sock:
        sock.sendall(head_of(sqlite_tenant, TRUCKLOAD, None, chunked=True))
        sock.sendall(b"1\r\n{\r\n")
        # Just past the limit, and never the chunked body's end: the answer comes anyway.
        for _ in range(PUSH_LIMIT // len(chunk) + 1):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        head, body = read_response(sock)
        error = error_of(head, body, 413)
        assert [e.source for e in error.errors] == ["body"]
        assert closed(sock)
    assert stored_pushes(sqlite_tenant) == before


# --- NUL characters --------------------------------------------------------------------------


def test_nul_characters_are_refused_naming_the_field(tenant: TenantHandle) -> None:
    before = stored_pushes(tenant)
    answer = tenant.http.post(TRUCKLOAD, json=truckload_body("a\u0000b"))
    message = refused(answer, "truckload.identifiers.billOfLadingNumber")
    assert "NUL" in message
    assert stored_pushes(tenant) == before
    shipment = {
        "identifiers": [
            {"type": "BILL_OF_LADING", "value": "x"},
            {"type": "PURCHASE_ORDER", "value": "p\u0000"},
        ]
    }
    answer = tenant.http.put(f"{SHIPMENTS}/tracking", json=shipment)
    assert "NUL" in refused(answer, "identifiers[1].value")
    # A key is a string of the body too.
    answer = tenant.http.put(f"{SHIPMENTS}/tracking", json={"identi\u0000fiers": []})
    assert "NUL" in refused(answer, "identi\\u0000fiers")


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("/api/v4/webhooks/name/a%00b", "webhookName"),
        ("/api/v4/rail/shipments/a%00b/statuses", "id"),
        ("/services/booking/v1/bookings?attribute.name=a%00b", "attribute.name"),
        (
            "/services/booking/v1/packaging?identifier.type=SKU&identifier.value=%00",
            "identifier.value",
        ),
        ("/services/carrier-push/v1/ingestions/a%00b", "ingestionId"),
    ],
)
def test_nul_characters_in_parameters_are_refused_naming_them(
    tenant: TenantHandle, path: str, source: str
) -> None:
    # PostgreSQL cannot compare text with a NUL either: without this, 400 or 404 by database.
    assert "NUL" in refused(tenant.http.get(path), source)


def test_nul_characters_in_credentials_are_refused_naming_them(tenant: TenantHandle) -> None:
    token = f"{tenant.service.url}/api/v4/oauth2/token"
    form = {"grant_type": "client_credentials", "client_secret": tenant.client_secret}
    answer = httpx.post(token, data={**form, "client_id": tenant.client_id + "\x00"})
    assert "NUL" in refused(answer, "client_id")
    clients = f"{tenant.service.url}/api/v4/oauth2/client-applications"
    user, password = tenant.admin
    assert "NUL" in refused(httpx.get(clients, auth=(user + "\x00", password)), "Authorization")
    # The same form without it is taken (read whole here, then given to the operation).
    assert httpx.post(token, data={**form, "client_id": tenant.client_id}).status_code == 200


def test_an_escaped_backslash_before_u0000_is_no_nul(tenant: TenantHandle) -> None:
    # "\\u0000" in JSON is a backslash and five characters: a value like any other, stored.
    bill = unique("BOL") + "\\u0000"
    before = stored_pushes(tenant)
    accepted(tenant.http.post(TRUCKLOAD, json=truckload_body(bill)))
    assert stored_pushes(tenant) == before + 1


# --- stalled clients -------------------------------------------------------------------------


def _stalled_answer(sock: socket.socket) -> tuple[float, ErrorBody]:
    started = time.monotonic()
    head, body = read_response(sock, STALL_SECONDS + SLACK_SECONDS)
    waited = time.monotonic() - started
    error = error_of(head, body, 408)
    assert closed(sock)
    return waited, error


def test_incomplete_headers_are_answered_408_and_dropped(bounded: LiveService) -> None:
    for partial in (b"", b"POST /services/carrier-push/v1/tracking-updates HTTP/1.1\r\nHost: x"):
        with socket.create_connection(("127.0.0.1", bounded.port), timeout=10) as sock:
            sock.sendall(partial)
            waited, error = _stalled_answer(sock)
        assert waited >= STALL_SECONDS * 0.8, "dropped before its headers were due"
        assert "headers" in error.error_message


def test_a_request_head_too_long_or_malformed_gets_the_error_body(bounded: LiveService) -> None:
    """uvicorn would answer these in plain text; a client of the interface reads the Error body."""
    too_long = b"GET /health?sort=" + b"a" * 200_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    malformed = b"GET /health HTTP/1.1\r\nHost x\r\n\r\n"
    for request, said in ((too_long, "too long"), (malformed, "header")):
        with socket.create_connection(("127.0.0.1", bounded.port), timeout=10) as sock:
            sock.sendall(request)
            head, body = read_response(sock, 10)
            error = error_of(head, body, 400)
            assert closed(sock)
        assert error.error_message.startswith("The request could not be read as HTTP/1.1: ")
        assert said in error.error_message.lower(), error.error_message


def test_a_kept_alive_connection_has_the_same_bound_for_its_next_headers(
    sqlite_tenant: TenantHandle, bounded: LiveService
) -> None:
    token = sqlite_tenant.http.headers["authorization"]
    request = f"GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: {token}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", bounded.port), timeout=10) as sock:
        sock.sendall(request)
        head, _ = read_response(sock)
        assert head.startswith(b"HTTP/1.1 200")
        sock.sendall(request[:20])
        _stalled_answer(sock)


def test_a_stalled_body_is_answered_408_and_dropped(
    sqlite_tenant: TenantHandle, bounded: LiveService
) -> None:
    before = stored_pushes(sqlite_tenant)
    with socket.create_connection(("127.0.0.1", bounded.port), timeout=10) as sock:
        sock.sendall(head_of(sqlite_tenant, TRUCKLOAD, 5000) + b'{"truckload": ')
        waited, error = _stalled_answer(sock)
    assert waited >= STALL_SECONDS * 0.8, "dropped before its body was due"
    assert "did not arrive in time" in error.error_message
    assert error.support_reference_id
    assert stored_pushes(sqlite_tenant) == before


def test_a_slow_body_above_the_minimum_rate_is_read(
    sqlite_tenant: TenantHandle, bounded: LiveService
) -> None:
    # Longer in all than the grace period, but each part well within the rate's allowance.
    body = padded(truckload_body(unique("BOL")), 6 * MIN_RATE)
    parts = [body[i : i + MIN_RATE] for i in range(0, len(body), MIN_RATE)]
    with socket.create_connection(("127.0.0.1", bounded.port), timeout=10) as sock:
        sock.sendall(head_of(sqlite_tenant, TRUCKLOAD, len(body)))
        for part in parts:
            sock.sendall(part)
            time.sleep(STALL_SECONDS / 4)
        head, answer = read_response(sock)
    assert head.startswith(b"HTTP/1.1 202"), head + answer


# --- connections per address -----------------------------------------------------------------

PER_ADDRESS = 64  # ServerSettings.connections_per_address


def test_connections_from_one_address_are_capped(namespace: str, tmp_path: Path) -> None:
    # Loopback is not counted (the desktop app, a reverse proxy): the service listens on an
    # address of a network namespace of the test's own, and is asked from there.
    serve = ["ip", "netns", "exec", namespace, *SERVE, "--host", SERVICE_ADDRESS]
    with processes() as started:
        service = started.start([*serve, "--data-dir", str(tmp_path / "service")])
        url = read_until(service, r"listening on (http://\S+)", 120).group(1)
        port = int(url.rsplit(":", 1)[1])

        def connect() -> socket.socket:
            return socket.create_connection((SERVICE_ADDRESS, port), timeout=10)

        def health(sock: socket.socket) -> bytes:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            return read_response(sock, SLACK_SECONDS * 2)[0].split(b"\r\n")[0]

        def crowd() -> tuple[list[bytes], str, bytes]:
            # (`serve` listens before it prints its URL: no probe first, whose connection
            # might still be counted when the crowd comes.)
            # Open and silent, as a slow client's: a connection that finished a request would
            # be closed when idle (uvicorn's keep-alive timeout) and leave room for another.
            held = [connect() for _ in range(PER_ADDRESS)]
            try:
                with connect() as extra:
                    head, body = read_response(extra, SLACK_SECONDS * 2)
                    error = error_of(head, body, 503)
                    assert closed(extra)
                # The held ones were let in (the first is answered), and one less lets one more.
                answers = [health(held[0])]
                held.pop().close()
                # The service notices the close on its next loop turn.
                deadline = time.monotonic() + SLACK_SECONDS
                while True:
                    with connect() as again:
                        try:
                            after = health(again)
                        except (AssertionError, OSError):
                            after = b""
                    if after == b"HTTP/1.1 200 OK" or time.monotonic() > deadline:
                        return answers, error.error_message, after
                    time.sleep(0.1)
            finally:
                for sock in held:
                    sock.close()

        answers, message, after = inside(namespace, crowd)
    assert answers == [b"HTTP/1.1 200 OK"]
    assert f"More than {PER_ADDRESS} connections" in message
    assert after == b"HTTP/1.1 200 OK"
