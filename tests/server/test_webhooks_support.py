"""Helpers of the webhook delivery tests: receivers on loopback, certificates, waiting.

A `Receiver` is a small real HTTP (or HTTPS, optionally requiring a client certificate)
server in a thread that records every request and answers as the test scripts it. It also
serves an OAuth 2.0 token endpoint at /token. Each request gets its own connection
(HTTP/1.0), so closing a receiver leaves no thread behind.

`settled` is how a test knows that nothing more will arrive: it waits for the delivery worker
to have fanned out every change made so far and to hold nothing pending or in flight for the
configurations named, instead of sleeping a moment and hoping the worker was done.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import ipaddress
import json
import secrets
import ssl
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID

from freightdesk.server.db import WEBHOOKS_CHANNEL, wakeups
from freightdesk.server.webhooks.delivery import PROGRESS_KEY, RUNNING_KEY, Progress
from freightdesk.server.webhooks.tuning import SERVICE_KEY, Tuning
from tests.support import LiveService

T = TypeVar("T")

# Fast retries so that tests see a whole schedule in about a second.
FAST = Tuning(
    retry_schedule=(0.1, 0.2, 0.3, 0.4, 0.5),
    jitter=0.0,
    timeout_seconds=2.0,
    connect_timeout_seconds=1.0,
    per_endpoint_concurrency=4,
    total_concurrency=64,
    poll_interval_seconds=0.02,
    gap_timeout_seconds=5.0,
)


@contextmanager
def tuned(service: LiveService, tuning: Tuning = FAST) -> Iterator[None]:
    """Run the service's delivery with `tuning` for the duration of the block (once its
    delivery worker runs: it starts a moment after the service)."""
    services = service.context.services
    eventually(lambda: services.get(RUNNING_KEY) or not service.settings.process_pushes)
    before = services.get(SERVICE_KEY)
    services[SERVICE_KEY] = tuning
    # An idle worker sleeps for as long as the old tuning said, unless woken.
    wakeups(service.context.engine).fire([WEBHOOKS_CHANNEL])
    try:
        yield
    finally:
        if before is None:
            services.pop(SERVICE_KEY, None)
        else:
            services[SERVICE_KEY] = before


def eventually(check: Callable[[], T], seconds: float = 10.0) -> T:
    """Poll `check` until it returns something truthy (and return it) or fail."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {seconds} s (last: {value!r})")
        time.sleep(0.02)


def progress(service: LiveService) -> Progress:
    found = service.context.services.get(PROGRESS_KEY)
    return found if isinstance(found, Progress) else Progress()


def settled(service: LiveService, *config_ids: int, seconds: float = 10.0) -> None:
    """Wait until every change committed before the call is fanned out (two more delivery
    cycles have ended: the second began after the call) and none of these configurations has
    a message pending, retrying or in flight: whatever they get of those changes has been
    sent and answered, so nothing more of them arrives."""
    start = progress(service).cycles
    wanted = set(config_ids)

    def done() -> bool:
        now = progress(service)
        return now.cycles >= start + 2 and not now.busy & wanted

    eventually(done, seconds)


# --- certificates ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pem:
    certificate: str
    key: str


def _pem_key(key: Any) -> str:
    return str(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
    )


def authority(name: str) -> tuple[Pem, Any, Any]:
    """A certificate authority: its PEM, certificate object and key."""
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
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = Pem(cert.public_bytes(serialization.Encoding.PEM).decode(), _pem_key(key))
    return pem, cert, key


def issue(
    ca: tuple[Pem, Any, Any], name: str, *, server: bool = False, rsa_key: bool = False
) -> Pem:
    """A leaf certificate signed by `ca` (for 127.0.0.1 when `server`)."""
    _pem, ca_cert, ca_key = ca
    key: Any = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if rsa_key
        else ec.generate_private_key(ec.SECP256R1())
    )
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
    cert = builder.sign(ca_key, hashes.SHA256())
    return Pem(cert.public_bytes(serialization.Encoding.PEM).decode(), _pem_key(key))


def server_tls(certificate: Pem, client_authority: Pem | None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "server.pem"
        path.write_text(certificate.certificate + certificate.key)
        context.load_cert_chain(path)
    if client_authority is not None:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(cadata=client_authority.certificate)
    return context


# --- JWT client assertions (what an Entra ID token endpoint checks) --------------------------


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_assertion(assertion: str, certificate_pem: str, audience: str, client_id: str) -> str:
    """Why the assertion is not valid for this certificate, or '' when it is."""
    head, body, signature = assertion.split(".")
    header = json.loads(_unb64(head))
    claims = json.loads(_unb64(body))
    cert = x509.load_pem_x509_certificate(certificate_pem.encode())
    der = cert.public_bytes(serialization.Encoding.DER)
    if (
        header.get("x5t")
        != base64.urlsafe_b64encode(hashlib.sha1(der).digest()).rstrip(b"=").decode()
    ):
        return "x5t does not name the certificate"
    if (
        claims.get("aud") != audience
        or claims.get("iss") != client_id
        or claims.get("sub") != client_id
    ):
        return f"wrong claims {claims}"
    if not claims["nbf"] - 60 <= time.time() <= claims["exp"]:
        return "expired"
    signed = f"{head}.{body}".encode()
    public = cert.public_key()
    raw = _unb64(signature)
    try:
        if header["alg"] == "RS256":
            assert isinstance(public, rsa.RSAPublicKey)
            public.verify(raw, signed, padding.PKCS1v15(), hashes.SHA256())
        elif header["alg"] == "ES256":
            assert isinstance(public, ec.EllipticCurvePublicKey)
            der_signature = encode_dss_signature(
                int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
            )
            public.verify(der_signature, signed, ec.ECDSA(hashes.SHA256()))
        else:
            return f"unexpected alg {header['alg']}"
    except Exception as exc:  # cryptography's InvalidSignature
        return f"bad signature: {exc!r}"
    return ""


# --- receivers ---------------------------------------------------------------------------------


@dataclass
class Received:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    at: float
    # What the receiver answered (None while it is still answering).
    status: int | None = None

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class TokenEndpoint:
    """Client credentials at /token: a client secret or a certificate-signed assertion."""

    client_id: str = "freightdesk"
    client_secret: str | None = "token-secret"
    certificate_pem: str | None = None
    expires_in: int = 3600
    issued: list[str] = field(default_factory=list)
    forms: list[dict[str, str]] = field(default_factory=list)


class Receiver:
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[Received] = []
        self.tokens = TokenEndpoint()
        # Called for every request to the hook; answers (status, headers). Default 200.
        self.answer: Callable[[Received], tuple[int, dict[str, str]]] = lambda _r: (200, {})
        # The body of every answer to the hook.
        self.reply_body = b""
        self.delay = 0.0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"
            timeout = 10

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                request = Received(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    at=time.monotonic(),
                )
                if parts.path == "/token":
                    status, payload = receiver._token(request)
                    self._reply(status, {"content-type": "application/json"}, payload)
                    return
                with receiver._lock:
                    receiver.requests.append(request)
                if receiver.delay:
                    receiver._closing.wait(receiver.delay)
                status, headers = receiver.answer(request)
                request.status = status
                self._reply(status, headers, receiver.reply_body)

            def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the service gave up waiting (a timeout test): nobody to answer

            do_GET = do_POST = do_PUT = do_PATCH = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = False  # server_close() joins the handler threads

        self._server = Server(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, path: str = "/hook") -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def received(self) -> list[Received]:
        with self._lock:
            return list(self.requests)

    def bodies(self) -> list[Any]:
        return [r.json() for r in self.received()]

    def wait_for(self, count: int, seconds: float = 10.0) -> list[Received]:
        return eventually(lambda: len(self.received()) >= count and self.received(), seconds)

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _token(self, request: Received) -> tuple[int, bytes]:
        endpoint = self.tokens
        form = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        endpoint.forms.append(form)
        ok = (
            form.get("grant_type") == "client_credentials"
            and form.get("client_id") == endpoint.client_id
        )
        if endpoint.certificate_pem is not None:
            problem = check_assertion(
                form.get("client_assertion", "..."),
                endpoint.certificate_pem,
                self.url("/token"),
                endpoint.client_id,
            )
            ok = ok and not problem and form.get("client_assertion_type", "").endswith("jwt-bearer")
        else:
            ok = ok and form.get("client_secret") == endpoint.client_secret
        if not ok:
            return 401, b'{"error": "invalid_client"}'
        token = secrets.token_urlsafe(16)
        endpoint.issued.append(token)
        answer = {"access_token": token, "token_type": "Bearer", "expires_in": endpoint.expires_in}
        return 200, json.dumps(answer).encode()


@contextmanager
def receiver(tls: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    made = Receiver(tls)
    try:
        yield made
    finally:
        made.close()


# Fixtures of the delivery tests: a module uses them by importing them.


@pytest.fixture(autouse=True)
def fast_delivery(service: LiveService) -> Iterator[None]:
    """Fast retries on the shared service, for every test of the module importing it."""
    with tuned(service):
        yield


@pytest.fixture
def hooks() -> Iterator[Receiver]:
    """A receiver on loopback (plain HTTP), closed after the test."""
    with receiver() as made:
        yield made


def redelivering_once(
    http: httpx.Client, config_id: int
) -> tuple[Callable[[Received], tuple[int, dict[str, str]]], list[int]]:
    """A receiver's answer that, while answering the first request, asks (through `http`,
    the real API) for that message to be redelivered, and only then answers 200: the
    redelivery is accepted while the attempt is in flight. Also the statuses the asks got."""
    asked: list[int] = []

    def answer(request: Received) -> tuple[int, dict[str, str]]:
        if not asked:
            log = http.get(f"/api/v4/webhooks/{config_id}/deliveries").json()["deliveries"]
            event_id = request.headers["webhook-id"]
            message = next(d["messageId"] for d in log if d["eventId"] == event_id)
            path = f"/api/v4/webhooks/{config_id}/deliveries/{message}/redeliver"
            asked.append(http.post(path).status_code)
        return 200, {}

    return answer, asked
