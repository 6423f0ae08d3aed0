"""Webhook deliveries through the HTTP proxy the environment names (HTTP_PROXY, HTTPS_PROXY,
ALL_PROXY, NO_PROXY).

A real small proxy (`RecordingProxy`, asyncio on loopback) forwards absolute-form requests,
tunnels CONNECT and records what it saw. The end-to-end tests run a service of their own that
was started with the proxy in its environment (the delivery worker reads it once, when it
starts); the environment is put back as soon as the worker runs, so the test's own clients
talk to the service directly.
"""

from __future__ import annotations

import asyncio
import base64
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import pytest

from freightdesk.server.webhooks.delivery import RUNNING_KEY
from freightdesk.server.webhooks.http11 import Answer, Origin, Pool, Proxy, ProxyError
from freightdesk.server.webhooks.proxies import Proxies
from tests.server.test_tracking_support import air_body, create
from tests.server.test_webhooks_delivery import assert_signed, configure, deliveries
from tests.server.test_webhooks_http11 import OK, REQUEST, Scripted, _KeepAlive, keep_alive
from tests.server.test_webhooks_support import (
    FAST,
    Pem,
    authority,
    eventually,
    issue,
    receiver,
    server_tls,
    tuned,
)
from tests.support import LiveService, TenantHandle, make_tenant, running_service

__all__ = ["keep_alive"]  # a fixture of the http11 tests, used here too

USER, PASSWORD = "fd user", "s3cr:t/%"
CREDENTIALS = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
AUTHORIZATION = f"Proxy-Authorization: {CREDENTIALS}\r\n".encode()
# The same, percent-encoded as a URL's userinfo must be.
USERINFO = "fd%20user:s3cr%3At%2F%25"
KIND = "shipments.v1.shipment.created"
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


# --- the proxy ---------------------------------------------------------------------------------


@dataclass
class Seen:
    """One request the proxy got: CONNECT host:port, or a request to forward."""

    connection: int
    method: str
    target: str
    headers: dict[str, str]


class RecordingProxy:
    """An HTTP/1.1 proxy on 127.0.0.1 that records every request. With `credentials` it answers
    407 unless Proxy-Authorization carries them; `refuse` maps a CONNECT target (host:port) to
    the status to answer instead of tunnelling. Keeps its clients' connections alive; forwards
    each request on a connection of its own to the receiver."""

    def __init__(self, credentials: str | None = None) -> None:
        self.credentials = credentials
        self.refuse: dict[str, int] = {}
        self.seen: list[Seen] = []
        self.connections = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task[Any]] = set()

    async def __aenter__(self) -> RecordingProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *_exc: Any) -> None:
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await self._server.wait_closed()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    def url(self, userinfo: str = "") -> str:
        return f"http://{userinfo + '@' if userinfo else ''}127.0.0.1:{self.port}"

    def saw(self, netloc: str) -> list[Seen]:
        """What it got for a receiver (host:port): CONNECTs to it, or requests forwarded to it."""
        return [s for s in list(self.seen) if netloc in (s.target, urlsplit(s.target).netloc)]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        connection = self.connections
        self._writers.add(writer)
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _version = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if line:
                        name, _sep, value = line.partition(":")
                        headers[name.strip().lower()] = value.strip()
                self.seen.append(Seen(connection, method, target, headers))
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                status = self._refusal(method, target, headers)
                if status:
                    writer.write(
                        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
                        'Proxy-Authenticate: Basic realm="tests"\r\nContent-Length: 6\r\n\r\n'
                        "nope\r\n".encode()
                    )
                    await writer.drain()
                    continue
                if method == "CONNECT":
                    await self._tunnel(target, reader, writer)
                    return
                writer.write(await self._forward(method, target, headers, body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._handlers.discard(task)
            self._writers.discard(writer)
            writer.close()

    def _refusal(self, method: str, target: str, headers: dict[str, str]) -> int:
        if self.credentials is not None and headers.get("proxy-authorization") != self.credentials:
            return 407
        return self.refuse.get(target, 0) if method == "CONNECT" else 0

    async def _forward(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> bytes:
        parts = urlsplit(target)
        assert parts.scheme == "http" and parts.hostname and parts.port, target
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        request = f"{method} {path} HTTP/1.1\r\n"
        for name, value in headers.items():
            if name not in ("proxy-authorization", "connection"):
                request += f"{name}: {value}\r\n"
        request += "Connection: close\r\n\r\n"
        try:
            upstream, out = await asyncio.open_connection(parts.hostname, parts.port)
        except OSError:
            return b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"
        out.write(request.encode("latin-1") + body)
        try:
            head = (await upstream.readuntil(b"\r\n\r\n"))[:-4]
            status_line, *lines = head.split(b"\r\n")
            length = [
                int(line.split(b":")[1])
                for line in lines
                if line.lower().startswith(b"content-length:")
            ]
            rest = await (upstream.readexactly(length[0]) if length else upstream.read())
        finally:
            out.close()
        kept = [
            line
            for line in lines
            if line.split(b":")[0].strip().lower()
            not in (b"connection", b"content-length", b"transfer-encoding", b"keep-alive")
        ]
        # Answered on the client's connection, which stays open (HTTP/1.1).
        status = b"HTTP/1.1 " + status_line.split(b" ", 1)[1]
        return b"\r\n".join([status, *kept, b"Content-Length: %d" % len(rest), b"", rest])

    async def _tunnel(
        self, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        host, _sep, port = target.rpartition(":")
        try:
            upstream, out = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self._writers.add(out)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except ConnectionError:
                pass
            finally:
                sink.close()

        try:
            await asyncio.gather(pipe(reader, out), pipe(upstream, writer))
        finally:
            self._writers.discard(out)


class ThreadedProxy:
    """A RecordingProxy on an event loop of its own thread, for the live service to use."""

    def __init__(self, credentials: str | None = None) -> None:
        self.proxy = RecordingProxy(credentials)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.proxy.__aenter__(), self._loop).result(5)
        return self.proxy

    def __exit__(self, *_exc: Any) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.__aexit__(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


# --- which proxy, from the environment ---------------------------------------------------------


@pytest.mark.parametrize(
    ("no_proxy", "netloc", "bypassed"),
    [
        ("*", "hooks.example.com", True),
        ("example.com", "example.com", True),
        ("example.com", "hooks.example.com:8443", True),
        (".example.com", "hooks.example.com", True),
        ("example.com", "notexample.com", False),
        ("EXAMPLE.com", "Hooks.Example.COM", True),
        ("10.1.2.3", "10.1.2.3:8080", True),
        ("10.1.2.3", "10.1.2.30", False),
        ("localhost, 127.0.0.1", "127.0.0.1:9000", True),
        ("hooks.example.com:8080", "hooks.example.com:8080", True),
        ("hooks.example.com:8080", "hooks.example.com:9090", False),
        ("", "hooks.example.com", False),
    ],
)
def test_no_proxy_is_matched_as_urllib_matches_it(
    no_proxy: str, netloc: str, bypassed: bool
) -> None:
    environment = {"http": "http://proxy.corp:3128", "https": "http://proxy.corp:3128"}
    if no_proxy:
        environment["no"] = no_proxy
    proxies = Proxies(environment)
    for scheme in ("http", "https"):
        found = proxies.for_receiver(scheme, netloc)
        assert (found is None) is bypassed
        assert found is None or (found.host, found.port) == ("proxy.corp", 3128)


def test_each_scheme_has_its_proxy_and_all_proxy_is_the_fallback() -> None:
    proxies = Proxies({"https": "http://tls-proxy:8080", "all": "other:3128"})
    https = proxies.for_receiver("https", "hooks.example.com")
    plain = proxies.for_receiver("http", "hooks.example.com")
    assert https == Proxy("tls-proxy", 8080)
    assert plain == Proxy("other", 3128)  # a bare host:port is an http:// proxy
    assert Proxies({"http": "http://proxy"}).for_receiver("http", "x") == Proxy("proxy", 80)
    assert Proxies({"http": "http://proxy"}).for_receiver("https", "x") is None
    assert not Proxies({}) and Proxies({}).for_receiver("https", "x") is None


def test_lower_case_variables_win_and_credentials_are_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://upper:1")
    monkeypatch.setenv("https_proxy", f"http://{USERINFO}@lower:2")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    proxies = Proxies.from_environment()
    found = proxies.for_receiver("https", "hooks.example.com")
    assert found is not None and (found.host, found.port) == ("lower", 2)
    assert found.authorization == AUTHORIZATION
    assert proxies.for_receiver("https", "a.internal.example") is None
    assert PASSWORD not in " ".join(proxies.describe())


@pytest.mark.parametrize("value", ["socks5://user:hunter2@proxy:1080", "https://proxy:443"])
def test_a_proxy_of_another_kind_fails_deliveries_instead_of_going_around_it(value: str) -> None:
    proxies = Proxies({"https": value, "no": "direct.example"})
    with pytest.raises(ProxyError, match=r"only http:// proxies are supported") as raised:
        proxies.for_receiver("https", "hooks.example.com")
    assert "hunter2" not in str(raised.value)
    assert proxies.for_receiver("https", "direct.example") is None


# --- the client through a proxy ----------------------------------------------------------------


@dataclass
class _Certificates:
    client: ssl.SSLContext  # trusts the receivers' authority
    server: ssl.SSLContext


@pytest.fixture(scope="module")
def certificates() -> _Certificates:
    ca = authority("receiver-ca")
    client = ssl.create_default_context(cadata=ca[0].certificate)
    return _Certificates(client, server_tls(issue(ca, "receiver", server=True), None))


class _TlsScripted(Scripted):
    """A scripted keep-alive receiver behind TLS."""

    def __init__(self, answers: list[bytes], tls: ssl.SSLContext) -> None:
        super().__init__(answers)
        self.tls = tls

    async def __aenter__(self) -> _TlsScripted:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        return self


async def _send(pool: Pool, times: int) -> list[Answer]:
    answers = []
    try:
        for _ in range(times):
            async with asyncio.timeout(5):
                answers.append(await pool.request(REQUEST, connect_timeout=2))
    finally:
        pool.close()
    return answers


def test_tunnels_are_kept_alive_per_proxy_and_receiver(certificates: _Certificates) -> None:
    async def scenario() -> None:
        async with (
            RecordingProxy(CREDENTIALS) as proxy,
            _TlsScripted([OK] * 3, certificates.server) as first,
            _TlsScripted([OK] * 3, certificates.server) as second,
        ):
            via = Proxy("127.0.0.1", proxy.port, AUTHORIZATION)
            for receiver_ in (first, second):
                origin = Origin(
                    "127.0.0.1", receiver_.port, certificates.client, "127.0.0.1", proxy=via
                )
                answers = await _send(Pool(origin), 3)
                assert [(a.status, a.body) for a in answers] == [(200, b"ok")] * 3
            # One tunnel per receiver, each carrying its three requests, TLS end to end.
            assert [(s.method, s.target) for s in proxy.seen] == [
                ("CONNECT", f"127.0.0.1:{first.port}"),
                ("CONNECT", f"127.0.0.1:{second.port}"),
            ]
            assert proxy.seen[0].headers["host"] == f"127.0.0.1:{first.port}"
            assert (first.connections, first.requests) == (1, 3)
            assert (second.connections, second.requests) == (1, 3)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("status", "credentials", "expected"),
    [
        (407, False, "HTTP 407 Proxy Authentication Required (its credentials are missing"),
        (407, True, "HTTP 407 Proxy Authentication Required (its credentials were refused)"),
        (403, False, "HTTP 403 Forbidden"),
        (502, False, "HTTP 502 Bad Gateway"),
    ],
)
def test_a_refused_tunnel_names_the_proxy_and_its_status(
    certificates: _Certificates, status: int, credentials: bool, expected: str
) -> None:
    async def scenario() -> None:
        async with RecordingProxy() as proxy, _TlsScripted([OK], certificates.server) as hook:
            target = f"127.0.0.1:{hook.port}"
            proxy.refuse[target] = status
            given = AUTHORIZATION if credentials else b""
            via = Proxy("127.0.0.1", proxy.port, given)
            origin = Origin("127.0.0.1", hook.port, certificates.client, "127.0.0.1", proxy=via)
            with pytest.raises(ProxyError) as raised:
                await _send(Pool(origin), 1)
            message = str(raised.value)
            assert message.startswith(f"the proxy 127.0.0.1:{proxy.port} refused the tunnel")
            assert target in message and expected in message
            assert hook.connections == 0

    asyncio.run(scenario())


def test_forwarded_requests_use_the_absolute_form_and_a_407_is_the_proxys() -> None:
    async def scenario() -> None:
        async with RecordingProxy(CREDENTIALS) as proxy, Scripted([OK, OK]) as hook:
            absolute = REQUEST.replace(b"/hook", f"http://127.0.0.1:{hook.port}/hook".encode(), 1)
            authorized = absolute.replace(
                b"\r\n", f"\r\nProxy-Authorization: {CREDENTIALS}".encode() + b"\r\n", 1
            )
            pool = Pool(Origin("127.0.0.1", hook.port, proxy=Proxy("127.0.0.1", proxy.port)))
            try:
                async with asyncio.timeout(5):
                    answers = [await pool.request(authorized, connect_timeout=2) for _ in "ab"]
                    with pytest.raises(ProxyError, match="refused the request: HTTP 407"):
                        await pool.request(absolute, connect_timeout=2)
            finally:
                pool.close()
            assert [a.status for a in answers] == [200, 200]
            assert [s.target for s in proxy.seen] == [f"http://127.0.0.1:{hook.port}/hook"] * 3
            assert proxy.connections == 1  # kept alive, the refused request's included

    asyncio.run(scenario())


def test_an_unreachable_proxy_is_named(certificates: _Certificates) -> None:
    async def scenario() -> None:
        async with RecordingProxy() as gone:
            port = gone.port
        origin = Origin(
            "127.0.0.1", 443, certificates.client, "127.0.0.1", Proxy("127.0.0.1", port)
        )
        with pytest.raises(ProxyError, match=f"cannot connect to the proxy 127.0.0.1:{port}"):
            await _send(Pool(origin), 1)

    asyncio.run(scenario())


def test_the_receiver_is_checked_inside_the_tunnel(certificates: _Certificates) -> None:
    async def scenario() -> None:
        async with RecordingProxy() as proxy, _TlsScripted([OK], certificates.server) as hook:
            via = Proxy("127.0.0.1", proxy.port)
            untrusted = ssl.create_default_context()  # the system's authorities only
            wrong_name = Origin("127.0.0.1", hook.port, certificates.client, "other", proxy=via)
            for origin in (
                Origin("127.0.0.1", hook.port, untrusted, "127.0.0.1", proxy=via),
                wrong_name,
            ):
                with pytest.raises(ssl.SSLCertVerificationError):
                    await _send(Pool(origin), 1)
            assert [s.method for s in proxy.seen] == ["CONNECT", "CONNECT"]

    asyncio.run(scenario())


# --- deliveries of a service started with a proxy in its environment ---------------------------


@pytest.fixture(scope="module")
def proxy() -> Iterator[RecordingProxy]:
    with ThreadedProxy(CREDENTIALS) as made:
        yield made


@pytest.fixture(scope="module")
def proxied(proxy: RecordingProxy) -> Iterator[LiveService]:
    """A service whose delivery worker started with the proxy in its environment."""
    with pytest.MonkeyPatch.context() as patch:
        for name in _PROXY_VARIABLES:
            patch.delenv(name, raising=False)
            patch.delenv(name.upper(), raising=False)
        patch.setenv("HTTP_PROXY", proxy.url(USERINFO))
        patch.setenv("HTTPS_PROXY", proxy.url(USERINFO))
        patch.setenv("NO_PROXY", "localhost,.internal.example")
        with running_service() as service:
            eventually(lambda: service.context.services.get(RUNNING_KEY))
            patch.undo()  # read by now: the test's own clients go directly
            with tuned(service):
                yield service


@pytest.fixture
def hooks_tenant(proxied: LiveService) -> Iterator[TenantHandle]:
    handle = make_tenant(proxied)
    yield handle
    handle.http.close()


def _delivered(tenant: TenantHandle, config_id: int, count: int = 1) -> list[dict[str, Any]]:
    def check() -> list[dict[str, Any]]:
        log: list[dict[str, Any]] = deliveries(tenant, config_id)["deliveries"]
        done = [d for d in log if d["status"] == "DELIVERED"]
        return log if len(done) >= count else []

    return eventually(check)


def test_http_receivers_are_reached_through_the_proxy_with_its_credentials(
    hooks_tenant: TenantHandle, proxy: RecordingProxy
) -> None:
    with receiver() as hooks:
        config = configure(hooks_tenant, hooks.url(), KIND)
        create(hooks_tenant, air_body())
        request = hooks.wait_for(1)[0]
        log = _delivered(hooks_tenant, config["id"])
    assert_signed(request, config["signingSecret"])  # what the receiver got is unchanged
    seen = proxy.saw(f"127.0.0.1:{hooks.port}")
    assert [(s.method, s.target) for s in seen] == [("POST", hooks.url())]
    assert seen[0].headers["proxy-authorization"] == CREDENTIALS
    assert seen[0].headers["host"] == f"127.0.0.1:{hooks.port}"
    assert log[0]["attemptCount"] == 1 and log[0]["attempts"][0]["statusCode"] == 200


def test_https_receivers_are_tunnelled_with_the_configurations_tls_settings(
    hooks_tenant: TenantHandle, proxy: RecordingProxy
) -> None:
    server_ca, client_ca, other_ca = authority("hooks-ca"), authority("client-ca"), authority("x")
    tls = server_tls(issue(server_ca, "receiver", server=True), client_ca[0])
    client = issue(client_ca, "freightdesk")

    def mtls(trusted: Pem) -> list[dict[str, Any]]:
        parameters = {
            "certificatePem": client.certificate,
            "privateKeyPem": client.key,
            "caCertificatePem": trusted.certificate,
        }
        return [{"type": "MTLS", "parameters": parameters}]

    with receiver(tls) as secure:
        good = configure(
            hooks_tenant, secure.url("/good"), KIND, authenticationMethods=mtls(server_ca[0])
        )
        distrusted = configure(
            hooks_tenant, secure.url("/bad"), KIND, authenticationMethods=mtls(other_ca[0])
        )
        create(hooks_tenant, air_body())
        request = secure.wait_for(1)[0]
        refused = eventually(
            lambda: deliveries(hooks_tenant, distrusted["id"])["deliveries"][0]["attempts"]
        )
        _delivered(hooks_tenant, good["id"])
    assert request.path == "/good" and request.json()["eventType"] == KIND
    assert_signed(request, good["signingSecret"])
    assert refused[0]["error"].startswith("The receiver's TLS certificate was not accepted")
    assert "CERTIFICATE_VERIFY_FAILED" in refused[0]["errorDetail"]
    assert [r.path for r in secure.received()] == ["/good"]
    # Only tunnels: nothing of the requests in clear at the proxy.
    seen = proxy.saw(f"127.0.0.1:{secure.port}")
    assert seen and {(s.method, s.target) for s in seen} == {
        ("CONNECT", f"127.0.0.1:{secure.port}")
    }
    assert all(s.headers["proxy-authorization"] == CREDENTIALS for s in seen)


def test_receivers_named_in_no_proxy_are_reached_directly(
    hooks_tenant: TenantHandle, proxy: RecordingProxy
) -> None:
    with receiver() as hooks:
        direct = f"http://localhost:{hooks.port}/hook"
        config = configure(hooks_tenant, direct, KIND)
        create(hooks_tenant, air_body())
        hooks.wait_for(1)
        _delivered(hooks_tenant, config["id"])
    assert proxy.saw(f"localhost:{hooks.port}") == proxy.saw(f"127.0.0.1:{hooks.port}") == []


def test_a_proxy_refusing_the_tunnel_is_in_the_delivery_log_and_the_attempt_retried(
    hooks_tenant: TenantHandle, proxy: RecordingProxy, proxied: LiveService
) -> None:
    ca = authority("refused-ca")
    tls = server_tls(issue(ca, "receiver", server=True), ca[0])
    client = issue(ca, "freightdesk")
    parameters = {
        "certificatePem": client.certificate,
        "privateKeyPem": client.key,
        "caCertificatePem": ca[0].certificate,
    }
    # Retries close together, but more of them than usual: the test lets the proxy through
    # again after the second attempt.
    schedule = replace(FAST, retry_schedule=(0.1, 0.2) + (0.5,) * 20)
    with receiver(tls) as secure, tuned(proxied, schedule):
        target = f"127.0.0.1:{secure.port}"
        proxy.refuse[target] = 407
        config = configure(
            hooks_tenant,
            secure.url(),
            KIND,
            authenticationMethods=[{"type": "MTLS", "parameters": parameters}],
        )
        create(hooks_tenant, air_body())

        def two_attempts() -> list[dict[str, Any]]:
            log = deliveries(hooks_tenant, config["id"])["deliveries"]
            found: list[dict[str, Any]] = log[0]["attempts"] if log else []
            return found if len(found) >= 2 else []

        attempts = eventually(two_attempts)
        assert secure.received() == []
        del proxy.refuse[target]  # the proxy lets it through again: the next retry gets there
        log = _delivered(hooks_tenant, config["id"])
        assert len(secure.wait_for(1)) == 1
    error = attempts[0]["error"]
    assert f"the proxy 127.0.0.1:{proxy.port} refused the tunnel to {target}" in error
    assert "HTTP 407 Proxy Authentication Required" in error
    assert "statusCode" not in attempts[0]  # the receiver did not answer: the proxy did
    assert log[0]["attemptCount"] >= 3 and log[0]["attempts"][0]["statusCode"] == 200


def test_connections_through_the_proxy_are_kept_alive(
    hooks_tenant: TenantHandle, proxy: RecordingProxy, keep_alive: _KeepAlive
) -> None:
    port = keep_alive.server_address[1]
    config = configure(hooks_tenant, f"http://127.0.0.1:{port}/hook", KIND)
    for n in range(6):
        create(hooks_tenant, air_body(f"020-5000000{n}"))
    eventually(lambda: len(keep_alive.bodies) == 6)
    _delivered(hooks_tenant, config["id"], 6)
    seen = proxy.saw(f"127.0.0.1:{port}")
    assert len(seen) == 6
    assert len({s.connection for s in seen}) < 6  # the service's connections to the proxy


def test_the_environment_is_read_when_the_worker_starts(
    hooks_tenant: TenantHandle, proxy: RecordingProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A proxy named later does not apply (and the one named at start still does) until the
    # service restarts.
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "*")
    with receiver() as hooks:
        config = configure(hooks_tenant, hooks.url(), KIND)
        create(hooks_tenant, air_body())
        hooks.wait_for(1)
        _delivered(hooks_tenant, config["id"])
    assert len(proxy.saw(f"127.0.0.1:{hooks.port}")) == 1
