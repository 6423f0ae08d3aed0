"""The tenant the caller acts for (an extension of the local service)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk.api.parsing import parse
from freightdesk.models.auth import CallerTenant

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/oauth2/tenant"


class TenantApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def caller(self) -> CallerTenant:
        """Extension: the tenant the client application's token acts for (404 or 405 from
        a service without the extension)."""
        return parse(CallerTenant, await self._client.request("GET", PATH))
