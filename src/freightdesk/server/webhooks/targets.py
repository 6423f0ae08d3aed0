"""Where webhooks may be sent: no receiver on the service's own network (issue 19.3).

A tenant names the URL its messages go to, and a ping says how the attempt went; without a
rule, any tenant could use the service to reach (and scan) what only the server can reach:
its loopback, the private network it sits on, a cloud's link-local metadata address.

The rule (`TargetPolicy`, built once from `ServerSettings`):

- A service that listens only on loopback (the desktop's local sandbox, `serve` without
  `--host` or with a loopback host) sends anywhere: whoever can configure it is on this
  machine and can reach what it reaches; developers test receivers on their own machine.
- Otherwise an address that is loopback, private (RFC 1918, unique local, carrier-grade NAT
  and every other range that is not globally routable), link-local, multicast or unspecified
  is refused, IPv4 and IPv6 alike (an IPv4 address mapped into IPv6 or behind the NAT64
  prefix is judged as the IPv4 address it carries), unless it lies in one of the operator's
  `--allowed-webhook-networks`, or the operator allows them all with
  `--allow-private-webhook-targets`.

It is applied twice. When a configuration is saved (`refusal_of_url`), the URL's host is
resolved and the configuration refused (400 naming `url`, or the OAuth 2.0 `tokenUrl`) when
any of its addresses is refused; a name that does not resolve is accepted (its receiver may
not exist yet) and judged at each connection. When a connection is made (`addresses`, given
to `http11` as the origin's resolver), the name is resolved again and the connection goes to
the address that was checked, never to a fresh answer of the DNS, so a name that changes its
address between the check and the connection (DNS rebinding) cannot slip through; TLS still
checks the certificate against the host name of the URL. A host name with any refused address
is refused as a whole. Redirects are never followed (`http11` does not, the token client is
made with `follow_redirects=False`).

A refused attempt never touches the network beyond the DNS, so its result (a ping's answer,
the delivery log) is the same whether the port is open, closed or filtered.

Through an HTTP proxy (`proxies`) the connection goes to the proxy, which the operator chose
and which may well be on a private network: it is not checked. The receiver's host is still
resolved by this service and refused by the same rule before the request is handed to the
proxy, which then resolves the name itself (it has to: the request names the host, so virtual
hosts and the proxy's own access rules keep working). A name whose address changes in between,
or that the proxy's DNS answers differently, is the proxy's business: an operator who routes
webhooks through a proxy that can reach the internal network restricts it there.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from freightdesk.server.webhooks.http11 import TransportError

if TYPE_CHECKING:
    from freightdesk.server.settings import ServerSettings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# The NAT64 well-known prefix: the last 32 bits are an IPv4 address (RFC 6052).
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# What the operator is told to use; also in the error bodies, so a tenant knows whom to ask.
HOW_TO_ALLOW = (
    "the operator can allow it with --allow-private-webhook-targets or --allowed-webhook-networks"
)
_KINDS = "loopback, private, link-local, multicast or unspecified"


class TargetRefused(TransportError):
    """The receiver's address is on a network the service does not send webhooks to."""


def _carried(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 address carries (mapped, or NAT64), else the address."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def kind_of(address: IPAddress) -> str | None:
    """Which refused kind `address` is ("loopback", "private", ...), None when public."""
    address = _carried(address)
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_private or not address.is_global:
        return "private"
    return None


def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """`--allowed-webhook-networks`: CIDRs (or single addresses) separated by commas. Raises
    ValueError naming the one that is not a network."""
    networks: list[IPNetwork] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"{part!r} is not a network (CIDR such as 10.20.0.0/16)") from None
    return tuple(networks)


def is_loopback_host(host: str) -> bool:
    """Whether a service listening on `host` (as given to `serve --host`) is reachable from
    this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: whatever it resolves to may be reachable from elsewhere


@dataclass(frozen=True)
class TargetPolicy:
    # Everything is allowed (loopback-only service, or the operator said so).
    unrestricted: bool
    # Allowed although private or local.
    allowed_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def of(cls, settings: ServerSettings) -> TargetPolicy:
        return cls(
            unrestricted=settings.loopback_only or settings.allow_private_webhook_targets,
            allowed_networks=tuple(settings.allowed_webhook_networks),
        )

    def refused_kind(self, address: IPAddress) -> str | None:
        """Why `address` is refused (its kind), None when it may be used."""
        if self.unrestricted:
            return None
        kind = kind_of(address)
        if kind is None:
            return None
        carried = _carried(address)
        for network in self.allowed_networks:
            if address in network or carried in network:
                return None
        return kind

    def _refusal(self, host: str, addresses: Iterable[IPAddress]) -> str | None:
        """Why `host` (with the addresses it resolved to) is refused, None when it is not."""
        try:
            literal = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            kind = self.refused_kind(literal)
            if kind is None:
                return None
            return f"{literal} is a {kind} address, on the service's own network"
        if any(self.refused_kind(address) is not None for address in addresses):
            # Which address, or which kind, is not said: that would map the internal DNS.
            return f"the host {host} resolves to an address on the service's own network ({_KINDS})"
        return None

    def refusal_of_url(self, url: str) -> str | None:
        """At save time (blocking; routes run in the thread pool): why the URL's host is
        refused, None when it may be used or does not resolve (judged at each connection)."""
        if self.unrestricted:
            return None
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            infos = socket.getaddrinfo(host, parts.port or 0, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            infos = []
        why = self._refusal(host, [_address(info[4][0]) for info in infos])
        if why is None:
            return None
        return f"must not point at the service's own network: {why}; {HOW_TO_ALLOW}"

    async def addresses(self, host: str, port: int) -> list[str]:
        """At connection time: the checked addresses to connect to, in the resolver's order.
        Raises TargetRefused, or socket.gaierror when the name does not resolve."""
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        found = [str(info[4][0]) for info in infos]
        why = self._refusal(host, [_address(a) for a in found])
        if why is not None:
            raise TargetRefused(why)
        return list(dict.fromkeys(found))


def _address(text: str | int) -> IPAddress:
    # An IPv6 address with a zone (fe80::1%eth0) is link-local whatever its zone.
    return ipaddress.ip_address(str(text).split("%", 1)[0])
