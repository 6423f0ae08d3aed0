"""Carrier profiles for the app (an extension of the local service): the checks before
sending, the list, a carrier looked up by SCAC, saved and forgotten, against the real local
service (plain asyncio)."""

from __future__ import annotations

from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest
from freightdesk.service.cache import Cache
from freightdesk.service.carrier_profiles import (
    CarrierProfilesService,
    check_profile,
    check_scac,
)
from tests.support import TenantHandle


def _wire(**changes: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "name": "Zephyr Freight",
        "behaviour": "REVIEW",
        "responseDelaySeconds": 5,
        "quoteDelaySeconds": 0.05,
        "accountGroupCodes": [],
        "modes": ["TL", "LTL"],
        "distanceUnit": "KM",
        "currency": "CAD",
        "systemOfMeasurement": "METRIC",
        "maxLineItems": 12,
        "supportsEnhancedHandlingUnits": False,
        "acceptsTermsOverrides": True,
        "alternateScacs": ["ZPHX"],
    }
    wire.update(changes)
    return wire


def test_rules_before_sending() -> None:
    assert check_scac(" glkt ") == ("GLKT", None)
    for wrong in ("", "G1KT", "ABCDE"):
        scac, problem = check_scac(wrong)
        assert scac is None and problem
    body, problems = check_profile(_wire())
    assert problems == {} and body is not None
    _, problems = check_profile(
        _wire(name="  ", modes=[], maxLineItems=0, alternateScacs=["TOOLONG"])
    )
    assert set(problems) == {"name", "modes", "maxLineItems", "alternateScacs"}
    assert problems["alternateScacs"].startswith("'TOOLONG' is not a SCAC")
    assert problems["modes"] == "Tick at least one mode the carrier hauls"


async def test_look_up_save_and_forget(
    client: ApiClient, cache: Cache, tenant_: TenantHandle
) -> None:
    service = CarrierProfilesService(lambda: client, cache)
    try:
        assert await service.available()
        await service.coordinator.fetch_now()
        built_in = service.coordinator.data
        assert built_in is not None and "GLKT" in built_in.keys
        assert not any(p.configured for p in built_in.items)

        # Any SCAC has a profile: one the tenant never set is the derived defaults.
        fresh = await service.get("ZPHR")
        assert fresh.scac == "ZPHR" and not fresh.configured

        body, _ = check_profile(_wire())
        assert body is not None
        saved = await service.save("ZPHR", body)
        assert saved.configured and saved.behaviour.value == "REVIEW"
        data = service.coordinator.data
        assert data is not None and data.items[data.index_of("ZPHR") or 0] == saved
        # What the service keeps is what was sent.
        stored = tenant_.http.get("/services/carriers/v1/profiles/ZPHR").json()
        assert {k: stored[k] for k in _wire()} == _wire()

        # A group the tenant does not have is refused, naming the field.
        unknown, _ = check_profile(_wire(accountGroupCodes=["NOPE"]))
        assert unknown is not None
        with pytest.raises(BadRequest) as refused:
            await service.save("ZPHR", unknown)
        assert "accountGroupCodes[0]" in refused.value.field_errors()

        # Forgotten: a carrier that is not built in leaves the list, a built-in one stays.
        after = await service.forget("ZPHR")
        assert not after.configured and after.name == "Carrier ZPHR"
        assert "ZPHR" not in service.coordinator.data.keys
        await service.save("GLKT", body)
        back = await service.forget("GLKT")
        assert back.name == "Great Lakes Trucking" and not back.configured
        listed = service.coordinator.data
        assert listed.items[listed.index_of("GLKT") or 0] == back
        await service.forget("GLKT")  # nothing set any more: the wish is met
    finally:
        await service.aclose()
