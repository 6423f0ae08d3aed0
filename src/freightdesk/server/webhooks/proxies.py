"""Which HTTP proxy a delivery goes through: what the environment says, read as urllib reads it.

`HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` (lower-case wins over upper-case; upper-case
`HTTP_PROXY` is ignored when `REQUEST_METHOD` is set, as in a CGI script) name the proxy of
http and https receivers; `NO_PROXY` names receivers reached directly, matched exactly as
`urllib.request.proxy_bypass_environment` does (host names, domain suffixes with or without a
leading dot, IP addresses as written, `host:port`, `*` for all). This is what httpx honoured
before deliveries moved to `http11`, so a server that reaches receivers only through a proxy
keeps working.

Only http:// proxies are supported (the connection to the proxy is plain; TLS receivers are
tunnelled with CONNECT). Another kind (https://, socks5://) fails the deliveries it would carry
with a message that says so, rather than sending them around the proxy.
"""

from __future__ import annotations

import base64
import logging
import urllib.request
from collections.abc import Callable, Mapping
from urllib.parse import unquote, urlsplit

from freightdesk.server.webhooks.http11 import Proxy, ProxyError

log = logging.getLogger(__name__)

_SCHEMES = ("http", "https")
# urllib's NO_PROXY rule itself rather than a copy of it; public in urllib.request, though not
# in typeshed.
_bypass: Callable[[str, dict[str, str]], bool]
_bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]


class Proxies:
    """The proxies of http and https receivers, and the receivers that bypass them."""

    def __init__(self, environment: Mapping[str, str]) -> None:
        """`environment` as `urllib.request.getproxies_environment()` gives it: scheme (or
        "all", "no") to value."""
        self._environment = dict(environment)
        # A scheme's proxy, or why it cannot be used.
        self._by_scheme: dict[str, Proxy | str] = {}
        for scheme in _SCHEMES:
            value = environment.get(scheme) or environment.get("all")
            if value:
                self._by_scheme[scheme] = _parse(scheme, value)

    @classmethod
    def from_environment(cls) -> Proxies:
        proxies = cls(urllib.request.getproxies_environment())
        for line in proxies.describe():
            log.info("webhook deliveries: %s", line)
        return proxies

    def __bool__(self) -> bool:
        return bool(self._by_scheme)

    def describe(self) -> list[str]:
        """What is used, for the log (no credentials)."""
        lines = []
        for scheme, found in self._by_scheme.items():
            what = f"through the proxy {found.name}" if isinstance(found, Proxy) else found
            lines.append(f"{scheme} receivers: {what}")
        if lines and self._environment.get("no"):
            lines.append(f"not through a proxy: NO_PROXY={self._environment['no']}")
        return lines

    def for_receiver(self, scheme: str, netloc: str) -> Proxy | None:
        """The proxy to a receiver (`netloc`: host[:port] as in its URL), None to go directly.
        Raises ProxyError when the environment names a proxy that cannot be used."""
        found = self._by_scheme.get(scheme)
        if found is None or _bypass(netloc, self._environment):
            return None
        if isinstance(found, str):
            raise ProxyError(found)
        return found


def _parse(scheme: str, value: str) -> Proxy | str:
    """The proxy a variable names, or why it cannot be used (never quoting credentials)."""
    if "://" not in value:
        value = "http://" + value  # "host:port", as httpx and curl read it
    try:
        parts = urlsplit(value)
        port = parts.port or 80
    except ValueError:
        parts, port = None, 0
    variable = f"{scheme.upper()}_PROXY or ALL_PROXY"
    if parts is None or not parts.hostname:
        return f"the proxy of {scheme} receivers ({variable}) is not a valid URL"
    if parts.scheme.lower() != "http":
        return (
            f"the proxy of {scheme} receivers ({variable}) is a {parts.scheme}:// proxy; "
            "only http:// proxies are supported"
        )
    authorization = b""
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = b"Proxy-Authorization: Basic " + base64.b64encode(pair) + b"\r\n"
    return Proxy(parts.hostname, port, authorization)
