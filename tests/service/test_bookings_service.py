"""Bookings for the app against the real local service (plain asyncio): the rules checked
before sending, the list with its filters, writes shown at once, and the watch announcing the
carriers' answers."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, Conflict
from freightdesk.models.booking import (
    Booking,
    BookingStatus,
    CarrierBehaviour,
    CarrierProfileInput,
)
from freightdesk.service.bookings import (
    BookingsService,
    StatusChange,
    as_input,
    check_booking,
    check_carrier_response,
    editable,
    tracking_key_types,
)
from tests.service.conftest import OpenService
from tests.support import wait_until


@pytest.fixture
def bookings(open_service: OpenService) -> BookingsService:
    return open_service(BookingsService, watch_interval=0.05, idle_watch_interval=0.2)


def _wire(scac: str = "ZZHD", **changes: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "shipmentId": str(uuid.uuid4()),
        "capacityProviderIdentifier": {"type": "CARRIER_SCAC", "value": scac},
        "rateIdentifiers": [{"source": "EXTERNAL", "type": "CONTRACT", "value": "C-1"}],
    }
    wire.update(changes)
    return wire


def test_rules_are_checked_before_sending() -> None:
    booking, problems = check_booking(_wire(notes="Dock 4"))
    assert booking is not None and problems == {}
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    _, problems = check_booking(
        _wire(
            shipmentId="",
            capacityProviderIdentifier={"type": "CARRIER_SCAC", "value": "TOOLONG"},
            rateIdentifiers=[],
            expirationDateTime="2030-01-01T10:00:00",
            attributes=[{"name": " ", "values": ["x"]}],
            totalRate={"amount": 10, "currency": "GBP"},
        )
    )
    assert set(problems) == {
        "shipmentId",
        "capacityProviderIdentifier.value",
        "rateIdentifiers",
        "expirationDateTime",
        "attributes[0].name",
        "totalRate.currency",
    }
    _, problems = check_booking(_wire(expirationDateTime=past, attributes=[{"name": "Lane"}]))
    assert problems == {
        "expirationDateTime": "Must be in the future",
        "attributes[0].values": "Enter at least one value",
    }
    # From a quote, the rate request names the shipment.
    booking, problems = check_booking(_wire(shipmentId=None), from_quote=True)
    assert booking is not None and problems == {}


async def test_list_filters_and_writes_shown_at_once(
    bookings: BookingsService, client: ApiClient
) -> None:
    await client.carriers.put("ZZHD", CarrierProfileInput(behaviour=CarrierBehaviour.SLOW))
    for n in range(3):
        body, _ = check_booking(
            _wire(attributes=[{"name": "Lane", "values": [f"L{n}"]}], notes=f"n{n}")
        )
        assert body is not None
        await client.bookings.create(body)
    listing = await bookings.show(
        {"statuses": [], "attributeName": "lane", "attributeValues": ["l1", "L2"],
         "pageNumber": 1, "pageSize": 25}
    )  # fmt: skip
    assert [b.notes for b in listing.items] == ["n2", "n1"] and listing.total == 2
    # A new booking that fits the filters goes to the top at once.
    body, _ = check_booking(_wire(attributes=[{"name": "LANE", "values": ["l2"]}], notes="new"))
    assert body is not None
    created = await bookings.create(body)
    current = bookings.coordinator.data
    assert current is not None and [b.notes for b in current.items] == ["new", "n2", "n1"]
    assert current.total == 3
    # One that does not fit stays off the page.
    other, _ = check_booking(_wire(notes="other"))
    assert other is not None
    await bookings.create(other)
    assert [b.notes for b in bookings.coordinator.data.items] == ["new", "n2", "n1"]  # type: ignore[union-attr]
    # An edit shows at once, and the PUT kept every field the form did not change.
    edit = as_input(created)
    edit["notes"] = "edited"
    replacement, problems = check_booking(edit)
    assert replacement is not None, problems
    saved = await bookings.update(created.id, replacement)
    assert saved.attributes == created.attributes and saved.notes == "edited"
    assert bookings.coordinator.data.items[0].notes == "edited"  # type: ignore[union-attr]
    cancelled = await bookings.cancel(created.id)
    assert not editable(cancelled)
    assert bookings.coordinator.data.items[0].status is BookingStatus.CANCELLED  # type: ignore[union-attr]
    only_cancelled = await bookings.show(
        {"statuses": ["CANCELLED"], "pageNumber": 1, "pageSize": 25}
    )
    assert [b.notes for b in only_cancelled.items] == ["edited"]
    assert await bookings.can_cancel()


async def test_the_watch_announces_the_carriers_answers(
    bookings: BookingsService, client: ApiClient
) -> None:
    await client.carriers.put(
        "ZZAC", CarrierProfileInput(behaviour=CarrierBehaviour.ACCEPT, response_delay_seconds=0.3)
    )
    await client.carriers.put(
        "ZZDC", CarrierProfileInput(behaviour=CarrierBehaviour.DECLINE, response_delay_seconds=0.3)
    )
    await client.carriers.put(
        "ZZRV", CarrierProfileInput(behaviour=CarrierBehaviour.REVIEW, response_delay_seconds=0.3)
    )
    seen: list[StatusChange] = []
    bookings.watch.listen(lambda changes: seen.extend(changes))
    await wait_until(lambda: bookings.watch.data is not None)
    made: dict[str, Booking] = {}
    for scac in ("ZZAC", "ZZDC", "ZZRV"):
        body, _ = check_booking(_wire(scac))
        assert body is not None
        made[scac] = await bookings.create(body)
    await bookings.show({"statuses": [], "pageNumber": 1, "pageSize": 25})

    def status_seen(scac: str, status: BookingStatus) -> bool:
        return any(c.booking.id == made[scac].id and c.booking.status is status for c in seen)

    await wait_until(
        lambda: (
            status_seen("ZZAC", BookingStatus.BOOKED)
            and status_seen("ZZDC", BookingStatus.REJECTED)
            and status_seen("ZZRV", BookingStatus.UNDER_REVIEW)
        )
    )
    booked = next(c for c in seen if c.booking.id == made["ZZAC"].id)
    assert booked.before is BookingStatus.PROCESSING
    assert booked.text == "Booking with ZZAC is booked (was processing)."
    assert booked.booking.master_shipment_id is not None
    rejected = next(c for c in seen if c.booking.id == made["ZZDC"].id)
    assert rejected.text.startswith("Booking with ZZDC is rejected (was processing): ")
    # The list shows the answers without a fetch of its own.
    shown = {b.id: b.status for b in bookings.coordinator.data.items}  # type: ignore[union-attr]
    assert shown[made["ZZAC"].id] is BookingStatus.BOOKED
    assert shown[made["ZZDC"].id] is BookingStatus.REJECTED
    # The user's own cancellation is not announced back; the one under review stays watched.
    count = len(seen)
    await bookings.cancel(made["ZZRV"].id)
    await wait_until(lambda: bookings.watch.interval == 0.2)
    assert len(seen) == count


def test_a_carriers_answer_is_checked_before_sending() -> None:
    answer, problems = check_carrier_response({"decision": "REJECT", "rejectionReason": "OTHER"})
    assert answer is not None and problems == {}
    _, problems = check_carrier_response(
        {
            "decision": "ACCEPT",
            "carrierRejectionNotes": "no trucks",
            "carrierProvidedIdentifiers": [{"type": "PRO", "value": " "}],
        }
    )
    assert problems == {
        "carrierRejectionNotes": "Goes with Reject only",
        "carrierProvidedIdentifiers[0].value": "Enter a value",
    }
    _, problems = check_carrier_response({"decision": "MAYBE"})
    assert set(problems) == {"decision"}


async def test_answered_as_the_carrier(bookings: BookingsService, client: ApiClient) -> None:
    await client.carriers.put(
        "ZZRV", CarrierProfileInput(behaviour=CarrierBehaviour.REVIEW, response_delay_seconds=0)
    )
    made = []
    for _ in range(2):
        body, _ = check_booking(_wire("ZZRV"))
        assert body is not None
        made.append(await bookings.create(body))
    assert await bookings.can_answer_as_carrier()
    waiting = await bookings.awaiting_answer()
    assert {b.id for b in waiting} == {b.id for b in made}
    assert tracking_key_types(made[0]) == ["BILL_OF_LADING", "PURCHASE_ORDER"]  # truckload

    # Accepting needs an identifier tracking can follow: the service says which.
    accept, _ = check_carrier_response({"decision": "ACCEPT"})
    assert accept is not None
    with pytest.raises(BadRequest) as refused:
        await bookings.answer_as_carrier(made[0].id, accept)
    assert "BILL_OF_LADING" in refused.value.field_errors()["carrierProvidedIdentifiers"]
    accept, _ = check_carrier_response(
        {
            "decision": "ACCEPT",
            "carrierProvidedIdentifiers": [{"type": "BILL_OF_LADING", "value": "BOL-77"}],
            "responseMethod": "PORTAL",
        }
    )
    assert accept is not None
    booked = await bookings.answer_as_carrier(made[0].id, accept)
    assert booked.status is BookingStatus.BOOKED and booked.master_shipment_id is not None
    reject, _ = check_carrier_response(
        {"decision": "REJECT", "rejectionReason": "NO_CAPACITY", "carrierRejectionNotes": "Full"}
    )
    assert reject is not None
    rejected = await bookings.answer_as_carrier(made[1].id, reject)
    assert rejected.status is BookingStatus.REJECTED
    assert rejected.carrier_rejection_notes == "Full"
    assert await bookings.awaiting_answer() == []
    # Answered once: a second answer is refused.
    with pytest.raises(Conflict):
        await bookings.answer_as_carrier(made[1].id, reject)
