"""Account group codes name their group whatever their case, wherever a code is looked up
(docs/spec-gaps.md), over real HTTP on SQLite and PostgreSQL; answers show the group's own
spelling."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from freightdesk.server.domain.account_groups import by_lowered_code
from freightdesk.server.tables.account_groups import AccountGroupRow
from tests.server.test_rating import tl_request
from tests.server.test_rating_support import (
    ACCOUNT_GROUPS,
    PROFILES,
    RATE_REQUESTS,
    account_group,
    error_sources,
    quoted,
    set_profile,
)
from tests.server.test_vltl import DISPATCH, dispatch_body, quote_body, rates
from tests.support import TenantHandle


def test_a_carrier_profile_joins_a_group_named_in_another_case(tenant: TenantHandle) -> None:
    account_group(tenant, "WEST")
    profile = set_profile(tenant, "WSTA", accountGroupCodes=["west", " West ", "WEST"])
    assert profile["accountGroupCodes"] == ["WEST"]  # the group's spelling, once
    assert tenant.http.get(f"{PROFILES}/WSTA").json()["accountGroupCodes"] == ["WEST"]
    unknown = tenant.http.put(f"{PROFILES}/WSTA", json={"accountGroupCodes": ["WESTERN"]})
    assert unknown.status_code == 400 and error_sources(unknown) == ["accountGroupCodes[0]"]
    assert unknown.json()["errors"][0]["message"] == (
        "there is no capacity provider account group with code 'WESTERN'"
    )
    assert tenant.http.get(f"{PROFILES}/WSTA").json()["accountGroupCodes"] == ["WEST"]


def test_a_rate_request_names_groups_in_any_case(tenant: TenantHandle) -> None:
    account_group(tenant, "Midwest")
    set_profile(tenant, "MWAA", accountGroupCodes=["Midwest"])
    set_profile(tenant, "MWBB", accountGroupCodes=["MIDWEST"])  # kept as "Midwest"
    body = tl_request(capacityProviderAccountGroups=[{"code": "MIDWEST"}])
    done = quoted(tenant, body)
    assert {q["capacityProviderIdentifier"]["value"] for q in done["quotes"]} == {"MWAA", "MWBB"}
    assert done["capacityProviderAccountGroups"] == [{"code": "Midwest"}]
    unknown = tenant.http.post(
        RATE_REQUESTS, json=tl_request(capacityProviderAccountGroups=[{"code": "MIDWESTERN"}])
    )
    assert unknown.status_code == 400
    assert error_sources(unknown) == ["capacityProviderAccountGroups[0].code"]


def test_volume_ltl_quotes_and_dispatches_name_groups_in_any_case(tenant: TenantHandle) -> None:
    account_group(tenant, "VOLUME-East")
    set_profile(tenant, "VEAA", accountGroupCodes=["VOLUME-East"])
    quotes = rates(tenant, quote_body(capacityProviderAccountGroup={"code": "volume-east"}))
    assert {q["carrierCode"] for q in quotes} == {"VEAA"}
    assert {q["capacityProviderAccountGroup"]["code"] for q in quotes} == {"VOLUME-East"}
    assert not any(a["code"] == "DEFAULT_ACCOUNT_GROUP" for q in quotes for a in q["alerts"])
    body = dispatch_body()
    body["capacityProviderAccountGroup"]["code"] = "Volume-EAST"
    dispatched = tenant.http.post(DISPATCH, json=body)
    assert dispatched.status_code == 200, dispatched.text
    assert not any(a["code"] == "DEFAULT_ACCOUNT_GROUP" for a in dispatched.json()["alerts"])
    body["capacityProviderAccountGroup"]["code"] = "VOLUME-West"
    unknown = tenant.http.post(DISPATCH, json=body)
    assert unknown.status_code == 400
    assert error_sources(unknown) == ["capacityProviderAccountGroup.code"]


def test_codes_beyond_ascii_match_by_case_folding(tenant: TenantHandle) -> None:
    """The databases' lower() leaves these alone (SQLite folds ASCII only; neither maps ß to
    ss): the lookup still finds them, as creating them beside each other is refused."""
    account_group(tenant, "ÉTÉ")
    account_group(tenant, "Straße")
    profile = set_profile(tenant, "EURA", accountGroupCodes=["été", "STRASSE"])
    assert profile["accountGroupCodes"] == ["ÉTÉ", "Straße"]
    clash = tenant.http.post(ACCOUNT_GROUPS, json={"code": "strasse", "name": "Again"})
    assert clash.status_code == 409 and error_sources(clash) == ["code"]


@pytest.mark.parametrize("code", ["west", "WEST", "Straße"])
def test_the_lookup_probes_the_lower_code_index(tenant: TenantHandle, code: str) -> None:
    """On both databases the lookup's statement is answered by the unique index on
    (tenant, lower(code)), not by reading the tenant's groups."""
    engine = tenant.service.context.engine
    statement = by_lowered_code(1, code).compile(
        dialect=engine.dialect, compile_kwargs={"literal_binds": True}
    )
    index = "ux_account_groups_tenant_code_lower"
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            plan = " ".join(
                str(r[-1]) for r in conn.execute(text(f"EXPLAIN QUERY PLAN {statement}"))
            )
        else:
            # A few rows are cheaper to read than to look up: the planner is told not to
            # read them, so that it says whether it can use the index at all.
            conn.execute(text("SET LOCAL enable_seqscan = off"))
            plan = " ".join(str(r[0]) for r in conn.execute(text(f"EXPLAIN {statement}")))
    assert index in plan, plan
    assert AccountGroupRow.__tablename__ in str(statement)


def test_a_renamed_group_keeps_its_carriers(tenant: TenantHandle) -> None:
    """Carrier profiles name a group by code: a rename carries them along, so a rate request
    naming the new code asks them (and the old code is unknown)."""
    account_group(tenant, "WEST")
    account_group(tenant, "EAST")
    set_profile(tenant, "RNAA", accountGroupCodes=["WEST", "EAST"])
    set_profile(tenant, "RNBB", accountGroupCodes=["EAST"])
    (west,) = [g for g in tenant.http.get(ACCOUNT_GROUPS).json()["groups"] if g["code"] == "WEST"]
    renamed = tenant.http.put(
        f"{ACCOUNT_GROUPS}/{west['id']}",
        json={"id": west["id"], "code": "Pacific", "name": "Pacific"},
    )
    assert renamed.status_code == 200, renamed.text
    assert tenant.http.get(f"{PROFILES}/RNAA").json()["accountGroupCodes"] == ["Pacific", "EAST"]
    assert tenant.http.get(f"{PROFILES}/RNBB").json()["accountGroupCodes"] == ["EAST"]
    done = quoted(tenant, tl_request(capacityProviderAccountGroups=[{"code": "PACIFIC"}]))
    assert {q["capacityProviderIdentifier"]["value"] for q in done["quotes"]} == {"RNAA"}
    old = tenant.http.post(
        RATE_REQUESTS, json=tl_request(capacityProviderAccountGroups=[{"code": "WEST"}])
    )
    assert old.status_code == 400
    assert error_sources(old) == ["capacityProviderAccountGroups[0].code"]
