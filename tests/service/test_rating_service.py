"""Rate requests for the app against the real local service (plain asyncio): the rules
checked before sending, quotes polled until every carrier answered, the cache, cancellation
outcomes in words, and booking drafts from quotes."""

from __future__ import annotations

import asyncio
import copy
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest
from freightdesk.api.rating import CancellationNotEnabled, RateRequestBooked
from freightdesk.models.booking import (
    BookingInput,
    BookingStatus,
    CarrierBehaviour,
    CarrierProfileInput,
)
from freightdesk.models.rating import (
    REQUESTABLE_ACCESSORIALS,
    TRUCKLOAD_ONLY_ACCESSORIALS,
    RateRequestCreate,
    RateRequestStatus,
)
from freightdesk.service.cache import Cache
from freightdesk.service.rating import (
    RateRequestsChange,
    RatingService,
    booking_draft,
    cancel_refusal_text,
    check_rate_request,
    effective_status,
)
from tests.server.test_rating_support import ltl_request, set_tenant_feature, tl_request
from tests.service.conftest import OpenService
from tests.support import TenantHandle, wait_until


@pytest.fixture
def rating(open_service: OpenService) -> RatingService:
    return open_service(RatingService, interval=0.1, fast_interval=0.05, idle_interval=0.5)


def test_rules_are_checked_before_sending() -> None:
    request, problems = check_rate_request(tl_request(["PRLF"]))
    assert request is not None and problems == {}
    body = copy.deepcopy(tl_request(["PRLF"]))
    stops = body["rateDetail"]["routeInfo"]["stops"]
    stops[0]["type"] = "DELIVERY"
    stops[1]["location"]["address"] = {"state": "Atlantis", "country": "US"}
    body["rateDetail"]["pickupDate"] = (date.today() - timedelta(days=5)).isoformat()
    body["expirationDateTime"] = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    _, problems = check_rate_request(body)
    assert problems == {
        "rateDetail.routeInfo.stops[0].type": "The first stop must be a PICKUP",
        "rateDetail.routeInfo.stops[1].location.address.state": "'Atlantis' is not known in US",
        "rateDetail.pickupDate": "Must not be in the past",
        "expirationDateTime": "Must be in the future",
    }
    # The model's own checks name their paths too (a misspelt field, a bad class).
    units = [{"quantity": 2, "freightClass": "71", "weight": {"value": 500, "unit": "LB"}}]
    bad = ltl_request(["NBFL"], units)
    bad["capacityProviderIdentifiers"][0]["valeu"] = "X"
    _, problems = check_rate_request(bad)
    assert "rateDetail.shipmentDetails[0].handlingUnits[0].freightClass" in problems
    assert "capacityProviderIdentifiers[0].valeu" in problems
    # LTL needs weight and a class or dimensions; a stop needs somewhere to be.
    _, problems = check_rate_request(ltl_request(["NBFL"], [{"quantity": 1}]))
    assert set(problems) == {
        "rateDetail.shipmentDetails[0].handlingUnits[0].weight",
        "rateDetail.shipmentDetails[0].handlingUnits[0].freightClass",
    }
    _, problems = check_rate_request(ltl_request(["NBFL"], []))
    assert problems == {
        "rateDetail.shipmentDetails": "LTL is rated by weight and class: add handling units"
    }
    nowhere = copy.deepcopy(tl_request())
    nowhere["rateDetail"]["routeInfo"]["stops"][0]["location"]["address"] = {"country": "US"}
    _, problems = check_rate_request(nowhere)
    assert list(problems) == ["rateDetail.routeInfo.stops[0].location.address.city"]


async def test_quotes_arrive_in_the_background_and_are_cached(
    rating: RatingService, client: ApiClient, cache: Cache
) -> None:
    changes: list[RateRequestsChange] = []
    await rating.load_cached()
    unlisten = rating.coordinator.listen(changes.append)
    request, _ = check_rate_request(tl_request(["PRLF", "CSCX", "MPLF"], name="Chicago run"))
    assert request is not None
    created = await rating.create(request)
    assert rating.coordinator.interval == 0.05  # polled fast while the request is young
    listing = rating.coordinator.data
    assert listing is not None and listing.order[0] == str(created.id)
    await wait_until(
        lambda: (
            (found := rating.coordinator.data) is not None
            and found.by_id[str(created.id)].status is RateRequestStatus.QUOTES_RECEIVED
        )
    )
    done = rating.coordinator.data.by_id[str(created.id)]  # type: ignore[union-attr]
    assert len(done.quotes) == 6 and len(done.market_quotes) == 2
    assert any(str(created.id) in c.new_quotes or str(created.id) in c.changed for c in changes)
    # Once no young request waits for carriers, the pace returns to the normal interval.
    await wait_until(lambda: rating.coordinator.interval == 0.1)
    unlisten()
    # The next start shows it from the cache, before any network.
    again = RatingService(lambda: client, cache)
    cached = await again.load_cached()
    assert cached.items()[0] == done
    await again.aclose()
    # A request made elsewhere is opened by its id; forgetting it only drops it here.
    other = await client.rating.create(RateRequestCreate.model_validate(tl_request(["IRHX"])))
    opened = await rating.open(other.id)
    assert rating.coordinator.data is not None and rating.coordinator.data.order[0] == str(
        opened.id
    )
    await rating.forget(opened.id)
    assert str(opened.id) not in rating.coordinator.data.by_id
    assert cache.get("rate_requests", str(opened.id)) is None


async def test_cancellation_outcomes_in_words(
    rating: RatingService, client: ApiClient, tenant_: TenantHandle
) -> None:
    rating.coordinator.listen(lambda _change: None)  # polls while someone listens
    first = await rating.create(RateRequestCreate.model_validate(tl_request(["CSCX"])))
    done = await rating.cancel(first.id)
    assert not done.already and done.booking_id is None
    assert "is cancelled" in done.text()
    listed = rating.coordinator.data
    assert listed is not None and listed.by_id[str(first.id)].status is RateRequestStatus.CANCELLED
    again = await rating.cancel(first.id)
    assert again.already and "already cancelled" in again.text()

    # With a booking in progress: both are cancelled, the booking named.
    await client.carriers.put(
        "ZZSL", CarrierProfileInput(behaviour=CarrierBehaviour.SLOW, quote_delay_seconds=0)
    )
    slow = await rating.create(
        RateRequestCreate.model_validate(tl_request(["ZZSL"], quoteTypeFilter="SPOT"))
    )
    await wait_until(lambda: bool(rating.coordinator.data.by_id[str(slow.id)].quotes))  # type: ignore[union-attr]
    quoted = rating.coordinator.data.by_id[str(slow.id)]  # type: ignore[union-attr]
    booking = await client.bookings.create(
        BookingInput.model_validate(booking_draft(quoted, quoted.quotes[0]))
    )
    cancelled = await rating.cancel(slow.id)
    assert cancelled.booking_id == str(booking.id) and str(booking.id) in cancelled.text()
    assert (await client.bookings.get(booking.id)).status is BookingStatus.CANCELLED

    # Booked by the carrier: refused, and said so.
    await client.carriers.put(
        "ZZAC", CarrierProfileInput(behaviour=CarrierBehaviour.ACCEPT, response_delay_seconds=0)
    )
    accepted = await rating.create(
        RateRequestCreate.model_validate(tl_request(["ZZAC"], quoteTypeFilter="SPOT"))
    )
    await wait_until(lambda: bool(rating.coordinator.data.by_id[str(accepted.id)].quotes))  # type: ignore[union-attr]
    request = rating.coordinator.data.by_id[str(accepted.id)]  # type: ignore[union-attr]
    booked = await client.bookings.create(
        BookingInput.model_validate(booking_draft(request, request.quotes[0]))
    )
    for _ in range(200):
        if (await client.bookings.get(booked.id)).status is BookingStatus.BOOKED:
            break
        await asyncio.sleep(0.02)
    with pytest.raises(RateRequestBooked) as refused:
        await rating.cancel(accepted.id)
    assert "carrier already accepted a booking" in str(cancel_refusal_text(refused.value))

    # The feature switched off: refused, and said so.
    set_tenant_feature(tenant_, "rateRequestCancellation", False)
    try:
        plain = await rating.create(RateRequestCreate.model_validate(tl_request(["CSCX"])))
        with pytest.raises(CancellationNotEnabled) as off:
            await rating.cancel(plain.id)
        assert "not enabled for this account" in str(cancel_refusal_text(off.value))
    finally:
        set_tenant_feature(tenant_, "rateRequestCancellation", True)
    assert cancel_refusal_text(ValueError("x")) is None


async def test_booking_draft_is_what_the_service_would_book(
    rating: RatingService, client: ApiClient
) -> None:
    rating.coordinator.listen(lambda _change: None)
    body: dict[str, Any] = copy.deepcopy(tl_request(["PRLF"], quoteTypeFilter="CONTRACT"))
    body["rateDetail"]["shipperContactInfo"] = {"companyName": "ACME", "email": "d@acme.test"}
    body["rateDetail"]["shipmentDetails"] = [
        {"handlingUnits": [{"quantity": 10, "handlingUnitType": "PALLET",
                            "weight": {"value": 900, "unit": "LB"}}]}
    ]  # fmt: skip
    created = await rating.create(RateRequestCreate.model_validate(body))
    await wait_until(lambda: bool(rating.coordinator.data.by_id[str(created.id)].quotes))  # type: ignore[union-attr]
    request = rating.coordinator.data.by_id[str(created.id)]  # type: ignore[union-attr]
    quote = request.quotes[0]
    draft = booking_draft(request, quote)
    assert draft["shipmentId"] == str(request.id)
    assert draft["shipperContactInfo"]["companyName"] == "ACME"
    assert draft["shippingDetails"]["trailerType"] == "DRY_VAN"
    assert [c["code"] for c in draft["charges"]][:2] == ["LINE_HAUL", "FUEL_SURCHARGE"]
    booking = await client.bookings.create(BookingInput.model_validate(draft))
    assert booking.total_rate == quote.total_rate
    assert booking.shipment_details[0].handling_units[0].quantity == 10
    assert effective_status(request) is RateRequestStatus.QUOTES_RECEIVED
    expired = request.model_copy(
        update={"expiration_date_time": datetime.now(UTC) - timedelta(seconds=1)}
    )
    assert effective_status(expired) is RateRequestStatus.EXPIRED


async def test_what_the_form_offers(rating: RatingService, client: ApiClient) -> None:
    carriers = await rating.carriers()
    assert "Prairie Line Freight" in [c.name for c in carriers]
    assert await rating.account_groups() == []
    assert await rating.saved_locations() == []


def _accessorials(
    codes: list[str], *, trailer: str = "DRY_VAN", ltl: bool = False
) -> dict[str, Any]:
    body: dict[str, Any] = copy.deepcopy(tl_request(["PRLF"]))
    shipping: dict[str, Any] = (
        {"ltl": {}} if ltl else {"truck": {"loadPreference": "FULL", "trailerType": trailer}}
    )
    shipping["accessorials"] = [{"code": code} for code in codes]
    body["rateDetail"]["shippingDetails"] = shipping
    if ltl:
        body["rateDetail"]["shipmentDetails"] = [
            {"handlingUnits": [{"quantity": 1, "freightClass": "70",
                                "weight": {"value": 500, "unit": "LB"}}]}
        ]  # fmt: skip
    return body


async def test_accessorials_are_checked_as_the_service_checks_them(client: ApiClient) -> None:
    """Every accessorial the form offers is one the service rates, and each refusal the form
    foresees is the service's own, at the same path."""
    path = "rateDetail.shippingDetails.accessorials[0].code"
    open_trailer = [c for c in REQUESTABLE_ACCESSORIALS if c != "REFRIGERATED"]
    for body in (
        _accessorials(open_trailer, trailer="FLATBED"),
        _accessorials(["REFRIGERATED", "LIFTGATE"], trailer="REEFER"),
        _accessorials(
            [c for c in REQUESTABLE_ACCESSORIALS if c not in TRUCKLOAD_ONLY_ACCESSORIALS], ltl=True
        ),
    ):
        request, problems = check_rate_request(body)
        assert request is not None and problems == {}, problems
        created = await client.rating.create(request)
        wanted = [a["code"] for a in body["rateDetail"]["shippingDetails"]["accessorials"]]
        assert created.rate_detail.shipping_details is not None
        assert [a.code for a in created.rate_detail.shipping_details.accessorials] == wanted
    for body, message in (
        (_accessorials(["REFRIGERATED"]), "Temperature control needs a reefer: choose"),
        (_accessorials(["TARP"], trailer="REEFER"), "Tarping needs an open trailer: choose"),
        (_accessorials(["LUMPER"], ltl=True), "Lumper service is a truckload service"),
        (_accessorials(["STOP_OFF"]), "'STOP_OFF' is not an accessorial we rate"),
    ):
        request, problems = check_rate_request(body)
        assert request is None and problems[path].startswith(message), problems
        with pytest.raises(BadRequest) as refused:
            await client.rating.create(RateRequestCreate.model_validate(body))
        assert path in refused.value.field_errors()
    # A reefer's temperature range upside down is the app's own check (a typo, surely).
    body = _accessorials(["REFRIGERATED"], trailer="REEFER")
    details = {"min": 40, "max": 34, "unit": "FAHRENHEIT"}
    body["rateDetail"]["shippingDetails"]["accessorials"][0]["details"] = details
    assert check_rate_request(body)[1] == {
        "rateDetail.shippingDetails.accessorials[0].details.max": "Must not be below the lowest"
    }


async def test_stop_contacts_and_expiry_reach_the_service(client: ApiClient) -> None:
    body: dict[str, Any] = copy.deepcopy(tl_request(["PRLF"]))
    person = {"companyName": "ACME", "givenName": "Ana", "phoneNumber": "+1 312 555 0100"}
    body["rateDetail"]["routeInfo"]["stops"][0]["contacts"] = [person]
    expires = (datetime.now(UTC) + timedelta(hours=5)).replace(microsecond=0)
    body["expirationDateTime"] = expires.isoformat()
    request, problems = check_rate_request(body)
    assert request is not None, problems
    created = await client.rating.create(request)
    assert created.expiration_date_time == expires
    assert [c.wire() for c in created.rate_detail.route_info.stops[0].contacts] == [person]
    # An expiry too far out, and more people at a stop than the service keeps: named before
    # sending, both at once (the shape's problem first).
    body["expirationDateTime"] = (datetime.now(UTC) + timedelta(days=400)).isoformat()
    assert check_rate_request(body)[1] == {"expirationDateTime": "Must be within a year from now"}
    body["rateDetail"]["routeInfo"]["stops"][1]["contacts"] = [person] * 21
    assert list(check_rate_request(body)[1]) == [
        "rateDetail.routeInfo.stops[1].contacts",
        "expirationDateTime",
    ]
