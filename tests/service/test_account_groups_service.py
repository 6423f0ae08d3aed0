"""The app's account groups service against the real local service: a rename, and the one
rule by which codes compare (models/account_groups.py)."""

from __future__ import annotations

import pytest

from freightdesk.api.errors import Conflict
from freightdesk.models.account_groups import (
    AccountGroupCreate,
    AccountGroupUpdate,
    code_key,
    find_code,
)
from freightdesk.service.account_groups import AccountGroupsService
from tests.service.conftest import OpenService


def test_codes_compare_trimmed_and_case_folded() -> None:
    assert code_key(" West ") == code_key("WEST") == code_key("west")
    assert code_key("Straße") == code_key("STRASSE")
    assert code_key("WEST") != code_key("WESTERN")
    assert find_code(["EAST", "West"], " wEST") == "West"
    assert find_code(["EAST", "West"], "NORTH") is None


async def test_a_rename_is_shown_and_a_taken_code_refused(open_service: OpenService) -> None:
    groups = open_service(AccountGroupsService)
    west = await groups.create(AccountGroupCreate(code="WEST", name="West"))
    east = await groups.create(AccountGroupCreate(code="EAST", name="East"))
    renamed = await groups.update(AccountGroupUpdate(id=west.id, code="Pacific", name="Pacific"))
    assert (renamed.id, renamed.code) == (west.id, "Pacific")
    listed = groups.coordinator.data
    assert listed is not None and renamed in listed.items
    with pytest.raises(Conflict) as refused:
        await groups.update(AccountGroupUpdate(id=east.id, code="PACIFIC", name="East"))
    assert refused.value.field_errors() == {
        "code": "The account group 'Pacific' has this code: codes are unique whatever their case"
    }


async def test_a_renamed_group_moves_to_its_place_at_once(open_service: OpenService) -> None:
    groups = open_service(AccountGroupsService)
    for code in ("BRAVO", "DELTA", "FOXTROT"):
        await groups.create(AccountGroupCreate(code=code, name=code.title()))
    listed = groups.coordinator.data
    assert listed is not None
    foxtrot = listed.items[2]
    await groups.update(AccountGroupUpdate(id=foxtrot.id, code="ALPHA", name="Alpha"))
    # The service's order, in memory and in the cache, before any reload.
    served, _total = await groups.fetch_items({})
    assert [g.code for g in served] == ["ALPHA", "BRAVO", "DELTA"]
    listed = groups.coordinator.data
    assert listed is not None and list(listed.items) == list(served)
    assert listed.keys == tuple(str(g.id) for g in served)
    cached = await groups.load_cached()
    assert cached is not None and list(cached.items) == list(served)
