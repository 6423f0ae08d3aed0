"""The upload size limit: 413 with the Error body, and no partial file left behind."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from freightdesk.models.errors import ErrorBody
from tests.server.test_documents import (
    MULTIPART,
    PATH,
    document_part,
    metadata,
    multipart,
    partial_uploads,
    sources,
    stored_copies,
    upload,
)
from tests.support import (
    DATABASES,
    LiveService,
    TenantHandle,
    new_database,
    running_service,
    tenant_of,
)

# Above the service's write batch (1 MiB), so a cut-off upload has reached the disk.
LIMIT = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def small_service() -> Iterator[LiveService]:
    """On SQLite, for the tests of the upload's stream (the database plays no part in them)."""
    with running_service(upload_limit_bytes=LIMIT) as live:
        yield live


@pytest.fixture(scope="module", params=DATABASES)
def small_on_each(request: pytest.FixtureRequest) -> Iterator[LiveService]:
    """On each database, for the tests of what is stored (PostgreSQL keeps files in it)."""
    if request.param == "sqlite":
        yield request.getfixturevalue("small_service")
        return
    with running_service(new_database(request, request.param), upload_limit_bytes=LIMIT) as live:
        yield live


@pytest.fixture
def owner(small_service: LiveService) -> Iterator[TenantHandle]:
    with tenant_of(small_service) as handle:
        yield handle


@pytest.fixture
def owner_on_each(small_on_each: LiveService) -> Iterator[TenantHandle]:
    with tenant_of(small_on_each) as handle:
        yield handle


def blobs(files_dir: Path) -> set[str]:
    return {p.name for p in (files_dir / "blobs").rglob("*") if p.is_file()}


def assert_too_large(response_status: int, body: dict[str, object], source: str) -> None:
    assert response_status == 413
    assert body["httpStatusCode"] == 413
    assert [e["source"] for e in body["errors"]] == [source]  # type: ignore[attr-defined]


def test_a_file_of_exactly_the_limit_is_accepted(owner_on_each: TenantHandle) -> None:
    content = bytes(range(256)) * (LIMIT // 256)
    response = upload(owner_on_each.http, content=content)
    assert response.status_code == 200, response.text
    sha = hashlib.sha256(content).hexdigest()
    assert response.json()["files"][0]["sha256"] == sha
    assert stored_copies(owner_on_each.service, sha) == [content]


def test_one_byte_more_is_refused_while_streaming(owner_on_each: TenantHandle) -> None:
    files_dir = owner_on_each.service.settings.files_dir
    before = blobs(files_dir)
    content = b"x" * (LIMIT + 1)
    response = upload(owner_on_each.http, content=content)
    assert_too_large(response.status_code, response.json(), "upload_file")
    assert partial_uploads(files_dir) == []
    assert blobs(files_dir) == before
    assert stored_copies(owner_on_each.service, hashlib.sha256(content).hexdigest()) == []


def raw_request(token: str, length: int) -> bytes:
    return (
        f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {token}\r\n"
        f"Content-Type: {MULTIPART['content-type']}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def read_response(sock: socket.socket, seconds: float = 10.0) -> tuple[bytes, bytes]:
    """One HTTP response read whole: its head, then the Content-Length body (or up to the close).

    A response may arrive in several segments (the head and the body are often sent apart).
    """
    deadline = time.monotonic() + seconds
    received = b""
    while True:
        head, blank, body = received.partition(b"\r\n\r\n")
        declared = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head) if blank else None
        if declared is not None and len(body) >= int(declared[1]):
            return head, body[: int(declared[1])]
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no complete response within {seconds} s: {received!r}")
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        if not chunk:  # closed: what came is all there is
            assert blank and declared is None, f"connection closed mid-response: {received!r}"
            return head, body
        received += chunk


def test_a_declared_length_beyond_the_limit_is_refused_up_front(
    owner: TenantHandle, small_service: LiveService
) -> None:
    files_dir = small_service.settings.files_dir
    before = blobs(files_dir)
    token = owner.http.headers["authorization"]
    with socket.create_connection(("127.0.0.1", small_service.port), timeout=10) as sock:
        # Only the headers: the answer must come without the service waiting for the body.
        sock.sendall(raw_request(token, LIMIT * 4))
        head, body = read_response(sock)
    error = ErrorBody.model_validate_json(body)
    assert head.split(b"\r\n")[0] == f"HTTP/1.1 413 {error.http_message}".encode()
    assert error.http_status_code == 413
    assert [(e.severity, e.source, e.message) for e in error.errors] == [
        ("ERROR", "upload_file", f"is larger than the upload limit of {LIMIT} bytes")
    ]
    assert error.error_message and error.support_reference_id
    reference = re.search(rb"(?im)^x-support-reference-id:\s*(\S+)\s*$", head)
    assert reference is not None and reference[1].decode() == error.support_reference_id
    # The same through a client that sends it all.
    response = upload(owner.http, content=b"y" * (LIMIT + 400 * 1024))
    assert_too_large(response.status_code, response.json(), "upload_file")
    assert partial_uploads(files_dir) == []
    assert blobs(files_dir) == before


def test_a_chunked_upload_is_counted_as_it_streams(owner: TenantHandle) -> None:
    files_dir = owner.service.settings.files_dir
    before = blobs(files_dir)
    head = multipart([document_part()], close=False)
    head += b'--fd-test-boundary-7c1e\r\nContent-Disposition: form-data; name="upload_file"; '
    head += b'filename="big.bin"\r\n\r\n'

    def body() -> Iterator[bytes]:
        yield head
        for _ in range(300):  # beyond the limit, with no Content-Length to warn us
            yield b"z" * 8192
        yield b"\r\n--fd-test-boundary-7c1e--\r\n"

    response = owner.http.post(PATH, content=body(), headers=MULTIPART)
    assert "content-length" not in response.request.headers
    assert_too_large(response.status_code, response.json(), "upload_file")
    assert partial_uploads(files_dir) == []
    assert blobs(files_dir) == before


def test_oversized_metadata_is_refused(owner: TenantHandle) -> None:
    huge = metadata(parsedData={"text": "w" * (300 * 1024)})
    response = owner.http.post(
        PATH,
        content=multipart([document_part(huge), ("upload_file", "a", None, b"1")]),
        headers=MULTIPART,
    )
    assert_too_large(response.status_code, response.json(), "document")
    assert partial_uploads(owner.service.settings.files_dir) == []


def test_invalid_metadata_first_is_refused_before_the_file(owner: TenantHandle) -> None:
    bad = json.dumps(metadata(identifiers=[])).encode()
    response = owner.http.post(
        PATH,
        content=multipart([("document", None, None, bad), ("upload_file", "a", None, b"q" * 5000)]),
        headers=MULTIPART,
    )
    assert (response.status_code, sources(response)) == (400, ["document.identifiers"])
    assert partial_uploads(owner.service.settings.files_dir) == []


def test_an_upload_cut_off_midway_leaves_no_partial_file(
    owner: TenantHandle, small_service: LiveService
) -> None:
    files_dir = small_service.settings.files_dir
    token = owner.http.headers["authorization"]
    head = multipart([document_part()], close=False)
    head += b'--fd-test-boundary-7c1e\r\nContent-Disposition: form-data; name="upload_file"; '
    head += b'filename="cut.bin"\r\n\r\n' + b"c" * (1536 * 1024)
    request = raw_request(token, len(head) + 200_000)
    with socket.create_connection(("127.0.0.1", small_service.port), timeout=10) as sock:
        sock.sendall(request + head)
        # Wait until the service is writing the file, then hang up.
        deadline = time.monotonic() + 10
        while not partial_uploads(files_dir) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert partial_uploads(files_dir), "the upload never reached the disk"
    deadline = time.monotonic() + 10
    while partial_uploads(files_dir) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert partial_uploads(files_dir) == []
