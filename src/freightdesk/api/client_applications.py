"""OAuth 2.0 client applications (needs the Customer Admin's user name and password)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk.api.parsing import parse
from freightdesk.models.auth import (
    ClientApplication,
    ClientApplicationCreate,
    ClientApplicationList,
    ClientApplicationWithSecret,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/oauth2/client-applications"


class ClientApplicationsApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def list(self) -> list[ClientApplication]:
        response = await self._client.request("GET", PATH, admin=True)
        return parse(ClientApplicationList, response).client_applications

    async def create(self, name: str) -> ClientApplicationWithSecret:
        body = ClientApplicationCreate(name=name).wire()
        response = await self._client.request("POST", PATH, json=body, admin=True)
        return parse(ClientApplicationWithSecret, response)

    async def get(self, client_id: str) -> ClientApplication:
        response = await self._client.request("GET", f"{PATH}/{client_id}", admin=True)
        return parse(ClientApplication, response)

    async def delete(self, client_id: str) -> None:
        await self._client.request("DELETE", f"{PATH}/{client_id}", admin=True)

    async def new_secret(self, client_id: str) -> ClientApplicationWithSecret:
        response = await self._client.request(
            "POST", f"{PATH}/{client_id}/new-secret", admin=True, idempotent=False
        )
        return parse(ClientApplicationWithSecret, response)
