"""How the local service is configured: options, environment variables, defaults."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PORT = 8044


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
    ) -> ServerSettings:
        """Options win over environment variables, which win over the defaults. `host` is the
        address `serve` listens on (None: a command that does not serve)."""
        from freightdesk.server.webhooks.targets import is_loopback_host

        chosen_dir = data_dir or os.environ.get("FREIGHTDESK_DATA_DIR") or default_data_dir()
        directory = Path(chosen_dir).expanduser()
        url = (
            database_url
            or os.environ.get("FREIGHTDESK_DATABASE_URL")
            or sqlite_url(directory / "freightdesk.sqlite3")
        )
        return cls(
            data_dir=directory,
            database_url=normalize_database_url(url),
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
