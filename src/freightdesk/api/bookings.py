"""Bookings: the list with its filters, create, read, replace (PUT), and the local service's
extensions: cancel (either party) and the carrier's answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING
from uuid import UUID

from freightdesk.api.parsing import parse
from freightdesk.models.auth import ROLE_HEADER
from freightdesk.models.booking import (
    MAX_PAGE_SIZE,
    Booking,
    BookingInput,
    BookingList,
    BookingStatus,
    CarrierResponse,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/services/booking/v1/bookings"
CANCEL_PATH = f"{PATH}/{{bookingId}}/cancellations"
RESPONSE_PATH = f"{PATH}/{{bookingId}}/carrier-response"
DEFAULT_PAGE_SIZE = 10


class BookingsApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def page(
        self,
        *,
        statuses: Iterable[BookingStatus | str] = (),
        attribute_name: str | None = None,
        attribute_values: Iterable[str] = (),
        page_number: int = 1,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> BookingList:
        """One page, newest first. `attribute_values` needs `attribute_name`; a booking matches
        when its attribute of that name has any of the values."""
        response = await self._client.request(
            "GET",
            PATH,
            params={
                "statuses": [str(s) for s in statuses] or None,
                "attribute.name": attribute_name,
                "attribute.values": list(attribute_values) or None,
                "pageNumber": page_number,
                "pageSize": page_size,
            },
        )
        return parse(BookingList, response)

    async def list(
        self,
        *,
        statuses: Iterable[BookingStatus | str] = (),
        attribute_name: str | None = None,
        attribute_values: Iterable[str] = (),
        page_size: int = MAX_PAGE_SIZE,
    ) -> AsyncIterator[Booking]:
        """Every matching booking, page by page."""
        wanted = list(statuses)
        values = list(attribute_values)
        number = 1
        while True:
            result = await self.page(
                statuses=wanted,
                attribute_name=attribute_name,
                attribute_values=values,
                page_number=number,
                page_size=page_size,
            )
            for booking in result.results:
                yield booking
            if number * page_size >= result.pagination_info.total or not result.results:
                return
            number += 1

    async def create(self, booking: BookingInput) -> Booking:
        """Book; the answer is PROCESSING and the carrier answers later. Never repeated
        blindly: a second POST could book twice."""
        response = await self._client.request("POST", PATH, json=booking.wire())
        return parse(Booking, response)

    async def get(self, booking_id: UUID | str) -> Booking:
        response = await self._client.request("GET", f"{PATH}/{booking_id}")
        return parse(Booking, response)

    async def update(self, booking_id: UUID | str, booking: BookingInput) -> Booking:
        """Replace every shipper field of a PROCESSING or UNDER_REVIEW booking; it goes back to
        PROCESSING for the carrier to answer the new version (409 once the carrier answered).

        Not repeated blindly: a PUT that reached the service restarted the carrier's review,
        and a repeat could meet the carrier's answer and be refused for a change already made.
        """
        response = await self._client.request(
            "PUT", f"{PATH}/{booking_id}", json=booking.wire(), idempotent=False
        )
        return parse(Booking, response)

    # --- extensions of the local service ---------------------------------------------------

    async def cancel(self, booking_id: UUID | str) -> Booking:
        """Cancel from any state; cancelling again answers 200 unchanged (safe to repeat)."""
        response = await self._client.request(
            "POST", f"{PATH}/{booking_id}/cancellations", idempotent=True
        )
        return parse(Booking, response)

    async def carrier_response(self, booking_id: UUID | str, answer: CarrierResponse) -> Booking:
        """The carrier accepts or rejects (sent with `x-tenant-role: CARRIER`). Not repeated
        blindly: the second answer to a booking is refused."""
        response = await self._client.request(
            "POST",
            f"{PATH}/{booking_id}/carrier-response",
            json=answer.wire(),
            headers={ROLE_HEADER: "CARRIER"},
        )
        return parse(Booking, response)

    async def has_cancel(self) -> bool:
        return await self._client.has_extension("POST", CANCEL_PATH)

    async def has_carrier_response(self) -> bool:
        return await self._client.has_extension("POST", RESPONSE_PATH)
