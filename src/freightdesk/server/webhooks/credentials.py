"""Presenting a configuration's authentication methods to its receiver.

API_KEY and BASIC become headers. OAUTH2 and AD_OAUTH2_CERT become a bearer token obtained with
the client credentials grant from the receiver's token URL and cached until shortly before it
expires (AD_OAUTH2_CERT proves the client with an RFC 7523 assertion signed by its
certificate's key, as Microsoft Entra ID expects). MTLS becomes the client certificate of the
TLS connection. Secrets never reach the log.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import ssl
import tempfile
import time
import uuid
from typing import TYPE_CHECKING, Any

from freightdesk.models.webhooks import AuthenticationType

if TYPE_CHECKING:
    # httpx and cryptography are imported where they are used: the service's start imports
    # this module (the routes) and answers before any token is fetched (about 90 ms of CPU).
    import httpx

JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
# Refresh a cached token this long before it expires (or at 90% of a shorter lifetime).
_REFRESH_MARGIN_SECONDS = 60.0
_DEFAULT_LIFETIME_SECONDS = 3600.0


class CredentialError(Exception):
    """The credentials could not be obtained (for example the token endpoint refused): the
    message says so plainly, `detail` is what the token endpoint or the network said."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _fingerprint(method: dict[str, Any]) -> str:
    text = json.dumps(method, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def client_assertion(parameters: dict[str, str], now: float | None = None) -> str:
    """A signed JWT proving the client (RS256 for RSA keys, ES256 for P-256 keys)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    certificate = x509.load_pem_x509_certificate(parameters["certificatePem"].encode())
    key = serialization.load_pem_private_key(parameters["privateKeyPem"].encode(), None)
    der = certificate.public_bytes(serialization.Encoding.DER)
    issued = int(now if now is not None else time.time())
    if isinstance(key, rsa.RSAPrivateKey):
        algorithm = "RS256"
    elif isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1":
        algorithm = "ES256"
    else:
        raise CredentialError("AD_OAUTH2_CERT needs an RSA or P-256 key")
    header = {
        "alg": algorithm,
        "typ": "JWT",
        "x5t": _b64url(hashlib.sha1(der).digest()),  # SHA-1: the x5t thumbprint format
        "x5t#S256": _b64url(hashlib.sha256(der).digest()),
    }
    claims = {
        "aud": parameters["tokenUrl"],
        "iss": parameters["clientId"],
        "sub": parameters["clientId"],
        "jti": str(uuid.uuid4()),
        "iat": issued,
        "nbf": issued,
        "exp": issued + 600,
    }
    signing_input = (
        _b64url(json.dumps(header, separators=(",", ":")).encode())
        + "."
        + _b64url(json.dumps(claims, separators=(",", ":")).encode())
    ).encode()
    if isinstance(key, rsa.RSAPrivateKey):
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return signing_input.decode() + "." + _b64url(signature)


def ssl_context(parameters: dict[str, str]) -> ssl.SSLContext:
    """A TLS context presenting the MTLS client certificate (blocking: call it in a thread)."""
    authority = parameters.get("caCertificatePem")
    context = ssl.create_default_context(cadata=authority or None)
    # The ssl module loads a certificate chain only from a file: a private temporary one
    # (mode 0600) that lives for the call.
    handle, path = tempfile.mkstemp(prefix="fd-mtls-", suffix=".pem")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(parameters["certificatePem"].strip() + "\n")
            file.write(parameters["privateKeyPem"].strip() + "\n")
        context.load_cert_chain(path)
    finally:
        os.unlink(path)
    return context


class Credentials:
    """Bearer tokens per credential, fetched once at a time and reused until they expire."""

    def __init__(self) -> None:
        self._tokens: dict[str, tuple[str, float]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    @staticmethod
    def fixed_headers(methods: list[dict[str, Any]]) -> dict[str, str]:
        """The headers of API_KEY and BASIC methods (the same on every request)."""
        headers: dict[str, str] = {}
        for method in methods:
            kind = AuthenticationType(method["type"])
            parameters: dict[str, str] = method["parameters"]
            if kind is AuthenticationType.API_KEY:
                headers[parameters["headerName"]] = parameters["apiKey"]
            elif kind is AuthenticationType.BASIC:
                pair = f"{parameters['username']}:{parameters['password']}".encode()
                headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        return headers

    async def bearer(
        self, methods: list[dict[str, Any]], client: httpx.AsyncClient, limits: httpx.Timeout
    ) -> str:
        """The bearer token of the OAUTH2 or AD_OAUTH2_CERT method (a configuration has at
        most one), from the cache while it is fresh."""
        return await self._token(methods[0], client, limits)

    def forget(self, methods: list[dict[str, Any]]) -> None:
        """Drop cached tokens, for example after the receiver answered 401."""
        for method in methods:
            self._tokens.pop(_fingerprint(method), None)

    async def _token(
        self, method: dict[str, Any], client: httpx.AsyncClient, limits: httpx.Timeout
    ) -> str:
        key = _fingerprint(method)
        cached = self._tokens.get(key)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            cached = self._tokens.get(key)
            if cached is not None and cached[1] > time.monotonic():
                return cached[0]
            token, lifetime = await _fetch(method, client, limits)
            margin = min(_REFRESH_MARGIN_SECONDS, lifetime * 0.1)
            self._tokens[key] = (token, time.monotonic() + lifetime - margin)
            return token


async def _fetch(
    method: dict[str, Any], client: httpx.AsyncClient, limits: httpx.Timeout
) -> tuple[str, float]:
    import httpx

    parameters: dict[str, str] = method["parameters"]
    form = {"grant_type": "client_credentials", "client_id": parameters["clientId"]}
    if method["type"] == AuthenticationType.OAUTH2.value:
        form["client_secret"] = parameters["clientSecret"]
        if parameters.get("audience"):
            form["audience"] = parameters["audience"]
    else:
        form["client_assertion_type"] = JWT_BEARER
        form["client_assertion"] = client_assertion(parameters)
        if parameters.get("resource"):
            form["resource"] = parameters["resource"]
    if parameters.get("scope"):
        form["scope"] = parameters["scope"]
    url = parameters["tokenUrl"]
    try:
        response = await client.post(
            url, data=form, headers={"Accept": "application/json"}, timeout=limits
        )
    except httpx.HTTPError as exc:
        what = (
            "did not answer in time"
            if isinstance(exc, httpx.TimeoutException)
            else ("could not be reached")
        )
        detail = f"{type(exc).__name__}: {exc}"
        raise CredentialError(f"the token endpoint {url} {what}", detail) from None
    snippet = " ".join(response.text.split())[:200]
    detail = f"HTTP {response.status_code}" + (f": {snippet}" if snippet else "")
    if response.status_code != 200:
        status = response.status_code
        phrase = f" {response.reason_phrase}" if response.reason_phrase else ""
        raise CredentialError(f"the token endpoint {url} answered {status}{phrase}", detail)
    try:
        body = response.json()
        token = str(body["access_token"])
        lifetime = float(body.get("expires_in") or _DEFAULT_LIFETIME_SECONDS)
    except (ValueError, KeyError, TypeError):
        raise CredentialError(
            f"the token endpoint {url} answered without an access token", detail
        ) from None
    return token, max(lifetime, 1.0)
