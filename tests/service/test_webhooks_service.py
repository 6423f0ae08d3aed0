"""Push configurations and account groups for the app, against the real local service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import Conflict, NotFound
from freightdesk.models.webhooks import MASK
from freightdesk.service.account_groups import AccountGroupsService, check_group
from freightdesk.service.cache import Cache
from freightdesk.service.listing import ListChange
from freightdesk.service.webhooks import WebhooksService, check_configuration


def _wire(name: str, **changes: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "configName": name,
        "url": "https://hooks.example.com/in",
        "methodHeaders": {"X-Team": "dispatch"},
        "authenticationMethods": [
            {"type": "BASIC", "parameters": {"username": "u", "password": "p"}}
        ],
    }
    wire.update(changes)
    return wire


def test_configuration_rules_before_sending() -> None:
    configuration, problems = check_configuration(_wire("Orders"))
    assert configuration is not None and problems == {}
    _, problems = check_configuration(
        _wire(
            " ",
            url="ftp://x",
            methodHeaders={"Content-Type": "text/plain"},
            authenticationMethods=[
                {"type": "BASIC", "parameters": {"username": "a:b"}},
                {"type": "NOPE", "parameters": {}},
            ],
        )
    )
    assert set(problems) >= {
        "configName",
        "url",
        "methodHeaders",
        "authenticationMethods[0].parameters.username",
        "authenticationMethods[0].parameters.password",
        "authenticationMethods[1].type",
    }


async def test_webhooks_list_save_and_delete(client: ApiClient, cache: Cache) -> None:
    service = WebhooksService(lambda: client, cache)
    changes: list[ListChange] = []
    stop = service.coordinator.listen(changes.append)
    try:
        await service.coordinator.fetch_now()
        assert service.coordinator.data is not None and service.coordinator.data.items == ()
        configuration, _ = check_configuration(_wire("Orders"))
        assert configuration is not None
        created = await service.save(configuration)
        assert created.signing_secret  # shown once, but not kept in the list or the cache
        data = service.coordinator.data
        assert [c.config_name for c in data.items] == ["Orders"]
        assert data.items[0].signing_secret is None
        assert data.items[0].authentication_methods[0].parameters["password"] == MASK
        edited, _ = check_configuration({**data.items[0].wire(), "url": "https://h.example.com/2"})
        assert edited is not None
        saved = await service.save(edited)
        assert service.coordinator.data.items[0].url == saved.url
        duplicate, _ = check_configuration(_wire("Orders"))
        assert duplicate is not None
        with pytest.raises(Conflict) as refused:
            await service.save(duplicate)
        assert "configName" in refused.value.field_errors()
        assert len(service.coordinator.data.items) == 1
        assert not service.at_limit
        await service.delete(created.id)
        assert service.coordinator.data.items == ()
        assert any(str(created.id) in c.removed for c in changes)
    finally:
        stop()
        await service.aclose()


async def test_name_taken_and_signing_secret_rotation(client: ApiClient, cache: Cache) -> None:
    service = WebhooksService(lambda: client, cache)
    try:
        assert not await service.name_taken("Orders")
        configuration, _ = check_configuration(_wire("Orders & EU"))
        assert configuration is not None
        created = await service.save(configuration)
        # Asked by name: taken for a new one, free for the configuration itself.
        assert await service.name_taken(" Orders & EU ")
        assert not await service.name_taken("Orders & EU", created.id)
        assert not await service.name_taken("Orders & US")

        assert (await service.extensions()).rotate_secret
        before = datetime.now(UTC)
        rotated = await service.rotate_signing_secret(created.id)
        assert rotated.signing_secret.startswith("whsec_")
        assert rotated.signing_secret != created.signing_secret
        # The previous secret keeps signing alongside for 24 hours.
        expires = rotated.previous_secret_expires_date_time
        assert expires is not None
        assert timedelta(hours=23, minutes=59) < expires - before < timedelta(hours=24, minutes=1)
        await service.delete(created.id)
        with pytest.raises(NotFound):
            await service.rotate_signing_secret(created.id)
    finally:
        await service.aclose()


async def test_account_groups(client: ApiClient, cache: Cache) -> None:
    service = AccountGroupsService(lambda: client, cache)
    assert check_group(" ", "")[1] == {
        "code": "Enter the group's code",
        "name": "Enter the group's name",
    }
    try:
        for code in ("WEST", "EAST"):
            group, _ = check_group(code, f"{code.title()} customers")
            assert group is not None
            await service.create(group)
        data = service.coordinator.data
        assert data is not None and [g.code for g in data.items] == ["EAST", "WEST"]
        again, _ = check_group("EAST", "Again")
        assert again is not None
        with pytest.raises(Conflict):
            await service.create(again)
        await service.delete(data.items[0].id)
        assert [g.code for g in service.coordinator.data.items] == ["WEST"]
        reopened = AccountGroupsService(lambda: client, cache)
        cached = await reopened.load_cached()
        assert cached is not None and [g.code for g in cached.items] == ["WEST"]
    finally:
        await service.aclose()
