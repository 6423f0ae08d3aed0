"""How the local service is configured: options, environment variables, defaults."""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

DEFAULT_PORT = 8044
# The address users and webhook receivers reach the service at (see `public_url`).
PUBLIC_URL_VARIABLE = "FREIGHTDESK_PUBLIC_URL"
# In the context's services: the address this instance listens at, as `serve` bound it.
LISTEN_URL_KEY = "service.listen_url"


def default_data_dir() -> Path:
    import platformdirs  # only when no data directory is given (the app always gives one)

    return Path(platformdirs.user_data_dir("freightdesk", appauthor=False)) / "service"


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


@dataclass(frozen=True)
class ServerSettings:
    """Everything the service needs to run; built once by the CLI or by a test."""

    data_dir: Path
    database_url: str
    token_lifetime_seconds: int = 12 * 3600
    tokens_per_minute: int = 5
    token_burst: int = 3
    upload_limit_bytes: int = 100 * 1024 * 1024
    # Bounded requests (server/body_limits.py, server/connections.py): a carrier push's body,
    # every other body but a document upload's; a body must arrive at this rate after the
    # grace period; a request's headers within their timeout; connections open at once from
    # one address other than loopback.
    push_body_limit_bytes: int = 1024 * 1024
    json_body_limit_bytes: int = 4 * 1024 * 1024
    body_timeout_seconds: float = 30.0
    body_min_bytes_per_second: int = 8 * 1024
    header_timeout_seconds: float = 30.0
    connections_per_address: int = 64
    max_positions_returned: int = 2000
    process_pushes: bool = True
    client_applications_domain: str = "clients.freightdesk.local"
    extra: dict[str, str] = field(default_factory=dict)
    # Webhook targets (server/webhooks/targets.py). A service that listens on loopback only
    # (the desktop's, and one built in-process) sends webhooks anywhere; `serve` sets this from
    # its --host. Otherwise receivers on loopback, private, link-local, multicast or
    # unspecified addresses are refused unless allowed here.
    loopback_only: bool = True
    allow_private_webhook_targets: bool = False
    allowed_webhook_networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    # Where users and webhook receivers reach the service (a load balancer's address when
    # several instances share a database), without a trailing slash: the base of every
    # shipmentShareLink, whichever instance builds it. None: the instance's own address.
    public_url: str | None = None

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def log_dir(self) -> Path:
        return self.data_dir / "logs"

    @classmethod
    def from_options(
        cls,
        *,
        database_url: str | None = None,
        data_dir: str | Path | None = None,
        host: str | None = None,
        allow_private_webhook_targets: bool = False,
        allowed_webhook_networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = (),
        public_url: str | None = None,
    ) -> ServerSettings:
        """Options win over environment variables, which win over the defaults. `host` is the
        address `serve` listens on (None: a command that does not serve). A public URL that
        is not an absolute http(s) URL raises ValueError naming where it came from."""
        from freightdesk.server.webhooks.targets import is_loopback_host

        chosen_dir = data_dir or os.environ.get("FREIGHTDESK_DATA_DIR") or default_data_dir()
        directory = Path(chosen_dir).expanduser()
        url = (
            database_url
            or os.environ.get("FREIGHTDESK_DATABASE_URL")
            or sqlite_url(directory / "freightdesk.sqlite3")
        )
        public = public_url
        if public is None and host is not None:
            public = os.environ.get(PUBLIC_URL_VARIABLE) or None
            origin = PUBLIC_URL_VARIABLE
        else:
            origin = "--public-url"
        return cls(
            data_dir=directory,
            database_url=normalize_database_url(url),
            public_url=None if public is None else parse_public_url(public, origin),
            loopback_only=host is None or is_loopback_host(host),
            allow_private_webhook_targets=allow_private_webhook_targets,
            allowed_webhook_networks=allowed_webhook_networks,
        )


def normalize_database_url(url: str) -> str:
    """Accept the usual `postgresql://` spelling and use the psycopg 3 driver for it."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def parse_public_url(text: str, origin: str = "--public-url") -> str:
    """An absolute http(s) URL with a host, without a trailing slash (links append paths)."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{origin} must be an absolute http:// or https:// URL with a host, "
            f"for example https://freightdesk.example.com (got {text!r})"
        )
    if parts.query or parts.fragment:
        raise ValueError(f"{origin} cannot have a query or a fragment (got {text!r})")
    return parts.geturl().rstrip("/")


def listening_url(host: str, port: int) -> str:
    """This instance's own address for links: a wildcard host is replaced by the machine's
    name (a link to 0.0.0.0 leads nowhere)."""
    try:
        wildcard = ipaddress.ip_address(host).is_unspecified
    except ValueError:
        wildcard = host == ""
    name = socket.gethostname() if wildcard else host
    return f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}"


def note_listening(
    services: dict[str, Any], settings: ServerSettings, host: str, port: int, *, warn: bool
) -> None:
    """Remember where this instance listens (the base of links without a public URL), and
    say so once at start when links will depend on the instance (`warn`: not the desktop
    app's own service)."""
    own = listening_url(host, port)
    services[LISTEN_URL_KEY] = own
    if settings.public_url is None and warn:
        logging.getLogger("freightdesk.server").warning(
            "no public URL (--public-url or %s): shipmentShareLink in webhook messages is "
            "built from this instance's own address, %s. Behind a load balancer or a proxy, "
            "or with several instances on one database, give every instance the address "
            "users reach the service at (docs/deployment.md)",
            PUBLIC_URL_VARIABLE,
            own,
        )
