"""The bookings client against the real local service: book a quote, follow it to BOOKED,
edit with PUT, cancel, answer as the carrier, list with every filter and page by page."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from freightdesk.api.bookings import PATH
from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, Conflict, ServerError
from freightdesk.models.booking import (
    Booking,
    BookingAttribute,
    BookingInput,
    BookingStatus,
    CarrierBehaviour,
    CarrierDecision,
    CarrierProfileInput,
    CarrierResponse,
    RejectionReason,
)
from freightdesk.models.rating import (
    CapacityProviderIdentifier,
    CarrierIdentifierType,
    RateIdentifier,
    RateRequestCreate,
)
from tests.api.conftest import client_via
from tests.api.test_rating_api import quotes_of
from tests.proxy import Fault, FaultyProxy
from tests.server.test_rating_support import tl_request
from tests.support import TenantHandle


def _standalone(scac: str, **fields: object) -> BookingInput:
    return BookingInput.model_validate(
        {
            "shipment_id": uuid.uuid4(),
            "capacity_provider_identifier": CapacityProviderIdentifier(
                type=CarrierIdentifierType.CARRIER_SCAC, value=scac
            ),
            "rate_identifiers": [RateIdentifier(source="EXTERNAL", type="CONTRACT", value="C-1")],
            **fields,
        }
    )


async def _status(client: ApiClient, booking: Booking, wanted: BookingStatus) -> Booking:
    for _ in range(300):
        current = await client.bookings.get(booking.id)
        if current.status is wanted:
            return current
        await asyncio.sleep(0.02)
    raise AssertionError(f"booking did not become {wanted}")


async def test_book_a_quote_and_follow_it_to_booked(client: ApiClient) -> None:
    await client.carriers.put(
        "PRLF", CarrierProfileInput(behaviour=CarrierBehaviour.ACCEPT, response_delay_seconds=0.1)
    )
    done = await quotes_of(
        client,
        await client.rating.create(
            RateRequestCreate.model_validate(tl_request(["PRLF"], quoteTypeFilter="SPOT"))
        ),
    )
    quote = done.quotes[0]
    booking = await client.bookings.create(
        BookingInput(
            capacity_provider_identifier=quote.capacity_provider_identifier,
            rate_identifiers=quote.rate_identifiers,
            attributes=[BookingAttribute(name="Customer", values=["ACME"])],
            notes="Dock 4",
        )
    )
    assert booking.status is BookingStatus.PROCESSING
    assert booking.shipment_id == done.id and booking.total_rate == quote.total_rate
    assert booking.route_segments and booking.route_segments[0].from_location is not None
    booked = await _status(client, booking, BookingStatus.BOOKED)
    assert booked.master_shipment_id is not None
    tracked = await client.tracking.get(booked.master_shipment_id)
    assert any(i.value == "PRLF" for i in tracked.identifiers)
    # Once booked, an edit is refused.
    with pytest.raises(Conflict) as refused:
        await client.bookings.update(booked.id, BookingInput.model_validate(booking.wire()))
    assert "status" in refused.value.field_errors()


async def test_put_cancel_and_the_carriers_answer(client: ApiClient) -> None:
    await client.carriers.put(
        "ZZRV",
        CarrierProfileInput(behaviour=CarrierBehaviour.REVIEW, response_delay_seconds=0.05),
    )
    booking = await client.bookings.create(_standalone("ZZRV", notes="first"))
    review = await _status(client, booking, BookingStatus.UNDER_REVIEW)
    edited = await client.bookings.update(
        review.id, _standalone("ZZRV", shipment_id=booking.shipment_id, notes="second")
    )
    assert edited.status is BookingStatus.PROCESSING and edited.notes == "second"
    await _status(client, booking, BookingStatus.UNDER_REVIEW)
    rejected = await client.bookings.carrier_response(
        booking.id,
        CarrierResponse(
            decision=CarrierDecision.REJECT,
            rejection_reason=RejectionReason.NO_CAPACITY,
            carrier_rejection_notes="No trucks on Friday",
        ),
    )
    # A second answer is refused.
    with pytest.raises(Conflict):
        await client.bookings.carrier_response(
            booking.id, CarrierResponse(decision=CarrierDecision.ACCEPT)
        )
    assert rejected.status is BookingStatus.REJECTED
    assert rejected.rejection_reason == "NO_CAPACITY"
    assert rejected.carrier_rejection_notes == "No trucks on Friday"
    cancelled = await client.bookings.cancel(booking.id)
    assert cancelled.status is BookingStatus.CANCELLED
    assert (await client.bookings.cancel(booking.id)).status is BookingStatus.CANCELLED
    assert await client.bookings.has_cancel() and await client.bookings.has_carrier_response()


async def test_list_filters_and_pages(client: ApiClient) -> None:
    await client.carriers.put("ZZHD", CarrierProfileInput(behaviour=CarrierBehaviour.SLOW))
    for n in range(5):
        await client.bookings.create(
            _standalone(
                "ZZHD",
                attributes=[BookingAttribute(name="Lane", values=[f"L{n % 2}"])],
                notes=f"n{n}",
            )
        )
    first = await client.bookings.page(page_size=2)
    assert first.pagination_info.total == 5 and [b.notes for b in first.results] == ["n4", "n3"]
    every = [b.notes async for b in client.bookings.list(page_size=2)]
    assert every == ["n4", "n3", "n2", "n1", "n0"]
    lane = [
        b.notes
        async for b in client.bookings.list(attribute_name="lane", attribute_values=["l1", "L9"])
    ]
    assert lane == ["n3", "n1"]
    processing = await client.bookings.page(statuses=[BookingStatus.PROCESSING, "UNDER_REVIEW"])
    assert processing.pagination_info.total == 5
    none = await client.bookings.page(statuses=[BookingStatus.BOOKED])
    assert none.pagination_info.total == 0 and none.results == []
    with pytest.raises(BadRequest) as bad:
        await client.bookings.page(statuses=["LOST"])
    assert "statuses" in bad.value.field_errors()
    with pytest.raises(BadRequest) as unnamed:
        await client.bookings.page(attribute_values=["x"])
    assert "attribute.values" in unnamed.value.field_errors()


async def test_create_and_put_are_not_retried_blindly(
    api_tenant: TenantHandle, proxy: FaultyProxy
) -> None:
    async with client_via(proxy, api_tenant) as api:
        await api.carriers.put("ZZHD", CarrierProfileInput(behaviour=CarrierBehaviour.SLOW))
        body = _standalone("ZZHD")
        proxy.inject(Fault(status=503, path_prefix=PATH))
        with pytest.raises(ServerError):
            await api.bookings.create(body)
        assert proxy.count("POST", PATH) == 1
        created = await api.bookings.create(body)
        item = f"{PATH}/{created.id}"
        proxy.inject(Fault(status=503, path_prefix=item))
        with pytest.raises(ServerError):
            await api.bookings.update(created.id, body)
        assert proxy.count("PUT", item) == 1
        proxy.inject(Fault(status=502, path_prefix=item))
        assert (await api.bookings.get(created.id)).id == created.id
        assert proxy.count("GET", item) == 2
        cancel = f"{item}/cancellations"
        proxy.inject(Fault(status=503, path_prefix=cancel))
        assert (await api.bookings.cancel(created.id)).status is BookingStatus.CANCELLED
        assert proxy.count("POST", cancel) == 2
