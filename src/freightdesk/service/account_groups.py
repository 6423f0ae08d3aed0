"""Capacity provider account groups for the app: the tenant's list, create, rename and delete."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.models.account_groups import AccountGroup, AccountGroupCreate, AccountGroupUpdate
from freightdesk.service.cache import Cache
from freightdesk.service.listing import ListService, Params
from freightdesk.service.validation import problems_of


def check_group(code: str, name: str) -> tuple[AccountGroupCreate | None, dict[str, str]]:
    """The request for a new group, or the problems by field (`code`, `name`)."""
    problems: dict[str, str] = {}
    if not code.strip():
        problems["code"] = "Enter the group's code"
    if not name.strip():
        problems["name"] = "Enter the group's name"
    if problems:
        return None, problems
    try:
        return AccountGroupCreate.model_validate({"code": code.strip(), "name": name.strip()}), {}
    except ValidationError as exc:
        return None, problems_of(exc)


def check_rename(
    group_id: int, code: str, name: str
) -> tuple[AccountGroupUpdate | None, dict[str, str]]:
    """The request renaming group `group_id`, or the problems by field, as for a new group."""
    group, problems = check_group(code, name)
    if group is None:
        return None, problems
    return AccountGroupUpdate.model_validate({"id": group_id, **group.model_dump()}), {}


class AccountGroupsService(ListService[AccountGroup]):
    kind = "account_groups"

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 60.0
    ) -> None:
        super().__init__(cache, AccountGroup, lambda g: str(g.id), interval=interval)
        self._client = client

    async def fetch_items(self, params: Params) -> tuple[Sequence[AccountGroup], int]:
        groups = await self._client().account_groups.list()
        return groups, len(groups)

    def sort_key(self, item: AccountGroup) -> Any:
        return item.code  # the service's order

    async def create(self, group: AccountGroupCreate) -> AccountGroup:
        """Create a group; the list shows it before this returns. Errors are raised as the
        client's typed errors (409 `code` for a duplicate) for the form to show."""
        created = await self._client().account_groups.create(group)
        await self.upsert(created)
        return created

    async def update(self, group: AccountGroupUpdate) -> AccountGroup:
        """Rename a group; the list shows the change before this returns. A code another
        group has, in any case, is the client's Conflict (409 `code`)."""
        updated = await self._client().account_groups.update(group)
        current = self.coordinator.data
        key = self.key(updated)
        if current is None or current.index_of(key) is None:
            await self.upsert(updated)
            return updated
        # A new code moves the group: the list is re-sorted now, as the service's next answer
        # would be, not left where the old code stood until the next reload.
        items = sorted(
            (updated if self.key(item) == key else item for item in current.items),
            key=self.sort_key,
        )
        await self._apply(self._relisted(current, items, current.total))
        return updated

    async def delete(self, group_id: int) -> None:
        # Already gone (deleted elsewhere, or a retried delete): the wish is met.
        with contextlib.suppress(NotFound):
            await self._client().account_groups.delete(group_id)
        await self.remove(str(group_id))
