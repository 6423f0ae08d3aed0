"""Volume LTL for the app against the real local service (plain asyncio): the models' rules
checked before sending (the same the service applies), quotes and a dispatch of one of them,
both kept in the cache."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest
from freightdesk.models.booking import DefaultContacts
from freightdesk.models.common import LtlContact
from freightdesk.service.cache import Cache
from freightdesk.service.vltl import VltlService, check_dispatch, check_quote, dispatch_draft
from tests.server.test_vltl import HAZMAT, dispatch_body, quote_body
from tests.support import TenantHandle


@pytest.fixture
def vltl(client: ApiClient, cache: Cache) -> VltlService:
    return VltlService(lambda: client, lambda: cache)


def test_quote_rules_before_sending() -> None:
    request, problems = check_quote(quote_body())
    assert problems == {} and request is not None
    _, problems = check_quote(quote_body(lineItems=[]))
    assert set(problems) == {"lineItems"}
    bad = quote_body()
    bad["lineItems"][0] = {**bad["lineItems"][0], "freightClass": 71, "totalWeight": -5}
    bad["originAddress"] = {**bad["originAddress"], "state": "ZZ"}
    _, problems = check_quote(bad)
    # The addresses' rules are said too when another field is refused.
    assert set(problems) == {
        "lineItems[0].freightClass",
        "lineItems[0].totalWeight",
        "originAddress.state",
    }
    no_zip = quote_body(destinationAddress={"city": "Dallas", "state": "TX"})
    assert set(check_quote(no_zip)[1]) == {"destinationAddress.postalCode"}


def test_dispatch_rules_before_sending() -> None:
    request, problems = check_dispatch(dispatch_body(), None)
    assert problems == {} and request is not None
    # Hazardous freight needs an emergency contact.
    hazardous = dispatch_body()
    hazardous["lineItems"][0]["hazmatDetail"] = HAZMAT
    _, problems = check_dispatch(hazardous, None)
    assert set(problems) == {"emergencyContact"}
    hazardous["emergencyContact"] = {"contactName": "Chemtrec"}
    _, problems = check_dispatch(hazardous, None)
    assert set(problems) == {"emergencyContact.phoneNumber"}
    # Contacts are required unless the account has defaults for that role.
    bare = dispatch_body()
    del bare["originLocation"]["contact"]
    _, problems = check_dispatch(bare, None)
    assert set(problems) == {
        "originLocation.contact.companyName",
        "originLocation.contact.contactName",
        "originLocation.contact.phoneNumber",
    }
    defaults = DefaultContacts(
        origin=LtlContact(company_name="Acme", contact_name="Dock", phone_number="3125550100")
    )
    assert check_dispatch(bare, defaults)[1] == {}
    # The quote number, and the pickup window's times.
    no_number = dispatch_body(capacityProviderQuoteNumber="")
    assert set(check_dispatch(no_number, None)[1]) == {"capacityProviderQuoteNumber"}
    window: dict[str, Any] = copy.deepcopy(dispatch_body()["pickupWindow"])
    window["endTime"] = "07:00"
    assert set(check_dispatch(dispatch_body(pickupWindow=window), None)[1]) == {
        "pickupWindow.endTime"
    }
    # Guaranteed service needs a delivery window.
    guaranteed = dispatch_body(accessorialServices=[{"code": "GUR"}])
    assert set(check_dispatch(guaranteed, None)[1]) == {"deliveryWindow"}
    del window["startTime"]
    assert "pickupWindow.startTime" in check_dispatch(dispatch_body(pickupWindow=window), None)[1]


async def test_quotes_then_a_dispatch_kept_in_the_cache(
    vltl: VltlService, tenant_: TenantHandle, cache: Cache
) -> None:
    assert await vltl.last_quotes() is None and await vltl.last_dispatch() is None
    request, _ = check_quote(quote_body())
    assert request is not None
    last = await vltl.quote(request)
    priced = [q for q in last.quotes if q.rate_quote_detail is not None]
    assert {q.carrier_code for q in priced} == {"NBFL", "RDRN"}
    kept = await vltl.last_quotes()
    assert kept is not None and kept.quotes == last.quotes and kept.request == request

    chosen = next(q for q in priced if q.carrier_code == "RDRN")
    draft = dispatch_draft(chosen, request)
    assert draft["capacityProviderQuoteNumber"] == chosen.capacity_provider_quote_number
    assert draft["lengthUnit"] == "IN"  # the quote's units, not the dispatch's default
    body = dispatch_body(**draft)
    body["originLocation"]["contact"] = dispatch_body()["originLocation"]["contact"]
    body["destinationLocation"]["contact"] = dispatch_body()["destinationLocation"]["contact"]
    assert body["requesterLocation"]["address"] == body["originLocation"]["address"]
    body["requesterLocation"]["contact"] = dispatch_body()["requesterLocation"]["contact"]
    _, problems = check_dispatch(body, None)  # the quote needed no street at the delivery
    assert set(problems) == {"destinationLocation.address.addressLines"}
    body["destinationLocation"]["address"]["addressLines"] = ["9 Elm St"]
    dispatch, problems = check_dispatch(body, None)
    assert problems == {} and dispatch is not None
    result = await vltl.dispatch(dispatch)
    assert result.answer.carrier_code == "RDRN" and result.answer.pro_number
    assert result.answer.rate_quote_id == chosen.id and result.answer.shipment_id is not None
    stored = await vltl.last_dispatch()
    assert stored is not None and stored.answer == result.answer

    # A refusal of the service names its field.
    other = dispatch_body(
        **{**draft, "capacityProviderAccountGroup": {"accounts": [{"code": "NBFL"}]}}
    )
    wrong, _ = check_dispatch(other, None)
    assert wrong is not None
    with pytest.raises(BadRequest) as refused:
        await vltl.dispatch(wrong)
    assert "carrierCode" in refused.value.field_errors()  # NBFL picks up under two SCACs
