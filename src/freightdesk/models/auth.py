"""OAuth 2.0 client applications and tokens (paths and payloads are spec gaps we filled)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from freightdesk.models.base import StrictWireModel, WireModel

ROLE_HEADER = "x-tenant-role"


class TenantRole(StrEnum):
    """The caller's role (header `x-tenant-role`): a shipper by default; a carrier names the
    shipper tenant it acts for."""

    SHIPPER = "SHIPPER"
    CARRIER = "CARRIER"


class ClientApplicationCreate(StrictWireModel):
    name: str = Field(min_length=1, max_length=200)


class ClientApplication(WireModel):
    id: str
    name: str
    machine_user: str | None = None
    created_date_time: datetime | None = None


class ClientApplicationWithSecret(ClientApplication):
    """Answer of create and new-secret: the only time the secret is shown."""

    secret: str


class ClientApplicationList(WireModel):
    client_applications: list[ClientApplication]


class CallerTenant(WireModel):
    """The tenant the caller acts for (extension): its uuid is what a partner needs to share
    a shipment with it (`POST /api/v4/shipments/{id}/shares`)."""

    tenant_uuid: UUID
    tenant_name: str = Field(max_length=200)


class TokenResponse(BaseModel):
    """OAuth 2.0 token answer; RFC 6749 names its fields in snake_case."""

    model_config = ConfigDict(extra="ignore")

    access_token: str
    token_type: str = "Bearer"
    expires_in: int
