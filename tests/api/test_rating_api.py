"""The rating and carrier profile clients against the real local service: quotes arrive, the
three outcomes of cancelling are told apart, a create is never repeated blindly."""

from __future__ import annotations

import asyncio
import copy
import uuid

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, Conflict, NotFound, PermissionDenied, ServerError
from freightdesk.api.rating import PATH, CancellationNotEnabled, RateRequestBooked
from freightdesk.models.booking import (
    BookingInput,
    BookingStatus,
    CarrierBehaviour,
    CarrierProfileInput,
)
from freightdesk.models.rating import RateRequest, RateRequestCreate, RateRequestStatus
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.server.test_rating_support import set_tenant_feature, tl_request
from tests.support import TenantHandle


async def quotes_of(client: ApiClient, request: RateRequest) -> RateRequest:
    for _ in range(500):
        current = await client.rating.get(request.id)
        if current.status is not RateRequestStatus.QUOTES_REQUESTED:
            return current
        await asyncio.sleep(0.02)
    raise AssertionError("the carriers did not answer")


async def test_quotes_arrive_and_are_typed(client: ApiClient) -> None:
    body = RateRequestCreate.model_validate(tl_request(["PRLF", "MPLF"], quoteTypeFilter="SPOT"))
    created = await client.rating.create(body)
    assert created.status is RateRequestStatus.QUOTES_REQUESTED
    assert created.name == "Chicago to Dallas" and created.quotes == []
    assert created.market_quotes and created.market_quotes[0].quote_type.value == "SPOT"
    done = await quotes_of(client, created)
    assert done.status is RateRequestStatus.QUOTES_RECEIVED
    assert {q.capacity_provider_identifier.value for q in done.quotes} == {"PRLF", "MPLF"}
    canadian = next(q for q in done.quotes if q.capacity_provider_identifier.value == "MPLF")
    assert canadian.total_rate.currency.value == "CAD" and canadian.distance.unit == "KM"
    assert all(q.rate_identifiers[0].type == "SPOT" for q in done.quotes)


async def test_bad_requests_name_the_field(client: ApiClient) -> None:
    body = copy.deepcopy(tl_request(["PRLF"]))
    body["rateDetail"]["routeInfo"]["stops"][0]["type"] = "DELIVERY"
    with pytest.raises(BadRequest) as bad:
        await client.rating.create(RateRequestCreate.model_validate(body))
    assert "rateDetail.routeInfo.stops[0].type" in bad.value.field_errors()
    with pytest.raises(NotFound):
        await client.rating.get(uuid.uuid4())


async def test_cancel_outcomes(client: ApiClient, api_tenant: TenantHandle) -> None:
    await client.carriers.put(
        "PRLF",
        CarrierProfileInput(behaviour=CarrierBehaviour.ACCEPT, response_delay_seconds=0),
    )
    # Cancelled twice: 200 both times, with the same answer.
    plain = await client.rating.create(RateRequestCreate.model_validate(tl_request(["CSCX"])))
    first = await client.rating.cancel(plain.id)
    again = await client.rating.cancel(plain.id)
    assert first == again and first.rate_request_id == plain.id and first.booking_id is None
    assert (await client.rating.get(plain.id)).status is RateRequestStatus.CANCELLED

    # A carrier accepted a booking: 409, raised as its own conflict.
    done = await quotes_of(
        client,
        await client.rating.create(
            RateRequestCreate.model_validate(tl_request(["PRLF"], quoteTypeFilter="CONTRACT"))
        ),
    )
    quote = done.quotes[0]
    booking = await client.bookings.create(
        BookingInput(
            capacity_provider_identifier=quote.capacity_provider_identifier,
            rate_identifiers=quote.rate_identifiers,
        )
    )
    for _ in range(300):
        if (await client.bookings.get(booking.id)).status is BookingStatus.BOOKED:
            break
        await asyncio.sleep(0.02)
    with pytest.raises(RateRequestBooked) as booked:
        await client.rating.cancel(done.id)
    assert isinstance(booked.value, Conflict) and booked.value.status == 409

    # The tenant without the feature: 403, raised as its own refusal.
    set_tenant_feature(api_tenant, "rateRequestCancellation", False)
    try:
        with pytest.raises(CancellationNotEnabled) as refused:
            await client.rating.cancel(plain.id)
        assert isinstance(refused.value, PermissionDenied)
        assert "rateRequestCancellation" in refused.value.error_message
    finally:
        set_tenant_feature(api_tenant, "rateRequestCancellation", True)


async def test_a_create_is_not_retried_blindly_a_cancel_is(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        body = RateRequestCreate.model_validate(tl_request(["PRLF"]))
        proxy.inject(Fault(status=503, path_prefix=PATH))
        with pytest.raises(ServerError):
            await api.rating.create(body)
        assert proxy.count("POST", PATH) == 1
        created = await api.rating.create(body)
        cancel_path = f"{PATH}/{created.id}/cancellations"
        proxy.inject(Fault(status=503, path_prefix=cancel_path), times=2)
        answer = await api.rating.cancel(created.id)
        assert answer.rate_request_id == created.id
        assert proxy.count("POST", cancel_path) == 3
        proxy.inject(Fault(status=503, path_prefix=f"{PATH}/{created.id}"))
        assert (await api.rating.get(created.id)).status is RateRequestStatus.CANCELLED


async def test_carrier_profiles(client: ApiClient) -> None:
    assert await client.carriers.available()
    carriers = {c.scac: c for c in await client.carriers.list()}
    assert carriers["PRLF"].name == "Prairie Line Freight" and not carriers["PRLF"].configured
    saved = await client.carriers.put(
        "ZZTP", CarrierProfileInput(name="Zed Test", behaviour=CarrierBehaviour.DECLINE)
    )
    assert saved.configured and saved.behaviour is CarrierBehaviour.DECLINE
    assert (await client.carriers.get("zztp")).name == "Zed Test"
    assert "ZZTP" in {c.scac for c in await client.carriers.list()}
    await client.carriers.delete("ZZTP")
    assert not (await client.carriers.get("ZZTP")).configured
    with pytest.raises(NotFound):
        await client.carriers.delete("ZZTP")
