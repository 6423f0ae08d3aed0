"""Who is calling one request: what the domain may know of its caller (the routers learn it
from `auth`, which checks tokens and passwords; the domain never imports `auth`)."""

from __future__ import annotations

from dataclasses import dataclass

from freightdesk.models.auth import TenantRole


@dataclass(frozen=True)
class Principal:
    """The caller of one request."""

    tenant_id: int
    tenant_uuid: str
    tenant_name: str
    user: str
    role: TenantRole
    client_id: str | None = None
