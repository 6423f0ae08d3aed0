"""Capacity provider account groups."""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk.api.parsing import parse
from freightdesk.models.account_groups import (
    AccountGroup,
    AccountGroupCreate,
    AccountGroupList,
    AccountGroupUpdate,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/capacityprovideraccountgroups"


class AccountGroupsApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def list(self) -> list[AccountGroup]:
        response = await self._client.request("GET", PATH)
        return parse(AccountGroupList, response).groups

    async def create(self, group: AccountGroupCreate) -> AccountGroup:
        response = await self._client.request("POST", PATH, json=group.wire())
        return parse(AccountGroup, response)

    async def update(self, group: AccountGroupUpdate) -> AccountGroup:
        """Replace a group's code and name (an extension of the local service)."""
        response = await self._client.request("PUT", f"{PATH}/{group.id}", json=group.wire())
        return parse(AccountGroup, response)

    async def delete(self, group_id: int) -> None:
        await self._client.request("DELETE", f"{PATH}/{group_id}")
