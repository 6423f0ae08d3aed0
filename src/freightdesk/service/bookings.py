"""Bookings for the app: a page of the list with its filters, create, edit (PUT), cancel, and
a watch that follows every booking the carrier has not answered for good.

The watch asks for the open bookings (PROCESSING, UNDER_REVIEW) in one listing call, and reads
once more each booking that left that set since the last look, to learn how the carrier
answered. It polls every two seconds while a booking is open, every fifteen otherwise (to
notice bookings made elsewhere), and tells its listeners of each status change; the list shows
the new status at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.models.booking import (
    LIVE_STATUSES,
    MAX_PAGE_SIZE,
    OPEN_STATUSES,
    Booking,
    BookingInput,
    BookingStatus,
    CarrierDecision,
    CarrierResponse,
)
from freightdesk.models.common import TransportationMode
from freightdesk.models.identifier_rules import ACCEPTED_BY_MODE, QUALIFIERS
from freightdesk.models.rating_rules import future_problem
from freightdesk.service.cache import Cache
from freightdesk.service.carrier_codes import carrier_code
from freightdesk.service.carrier_names import carrier_text
from freightdesk.service.coordinator import Coordinator
from freightdesk.service.listing import ListService, Params
from freightdesk.service.validation import checked

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 25

STATUS_TEXT = {
    BookingStatus.PROCESSING: "Processing",
    BookingStatus.UNDER_REVIEW: "Under review",
    BookingStatus.BOOKED: "Booked",
    BookingStatus.REJECTED: "Rejected",
    BookingStatus.CANCELLED: "Cancelled",
    BookingStatus.EXPIRED: "Expired",
}


# --- the service's rules, checked in the form --------------------------------------------


def check_booking(
    wire: dict[str, Any], *, from_quote: bool = False
) -> tuple[BookingInput | None, dict[str, str]]:
    """The booking for a form given as wire fields, or every problem by field path.

    `from_quote`: the booking is made from a quote, which names its rate request (the parent
    shipment), so `shipmentId` may be left out.
    """
    problems: dict[str, str] = {}
    if not from_quote and not str(wire.get("shipmentId") or "").strip():
        problems["shipmentId"] = "is required unless the booking is made from a quote"
    if not wire.get("rateIdentifiers"):
        problems["rateIdentifiers"] = "Enter at least one, e.g. the quote or contract number"
    scac = str((wire.get("capacityProviderIdentifier") or {}).get("value") or "")
    code, carrier_problem = carrier_code(scac)
    if code is None:
        problems["capacityProviderIdentifier.value"] = (
            carrier_problem or "Enter the carrier: its name or its SCAC (2 to 4 letters)"
        )
    expiry = _expiry_problem(wire.get("expirationDateTime"))
    if expiry:
        problems["expirationDateTime"] = expiry
    for index, attribute in enumerate(wire.get("attributes") or []):
        if isinstance(attribute, dict) and not attribute.get("values"):
            problems[f"attributes[{index}].values"] = "Enter at least one value"
    return checked(BookingInput, wire, problems, extra="forbid")


def _expiry_problem(value: object) -> str | None:
    """The service's rule for `expirationDateTime` (models/rating_rules.py; its shape is the
    model's to check)."""
    if not isinstance(value, str):
        return None
    try:
        expires = datetime.fromisoformat(value)
    except ValueError:
        return None
    if expires.tzinfo is None:
        return None  # the model names it: an offset is required
    return future_problem(expires, datetime.now(UTC))


def as_input(booking: Booking) -> dict[str, Any]:
    """The wire fields of a PUT that keeps the booking as it is (the form edits these)."""
    wire = booking.wire()
    keep = {alias for alias in _INPUT_ALIASES if alias in wire}
    return {k: v for k, v in wire.items() if k in keep}


_INPUT_ALIASES = {info.alias or name for name, info in BookingInput.model_fields.items()}


def editable(booking: Booking) -> bool:
    """The service takes a PUT only before the carrier answered for good."""
    return booking.status in OPEN_STATUSES


def status_text(status: BookingStatus) -> str:
    return STATUS_TEXT.get(status, status.value)


def change_text(booking: Booking, before: BookingStatus | None) -> str:
    """A notification of a status change, e.g. "Booking with Prairie Line Freight (PRLF) is
    booked"."""
    carrier = carrier_text(booking.capacity_provider_identifier.value)
    text = f"Booking with {carrier} is {status_text(booking.status).lower()}"
    if before is not None:
        text += f" (was {status_text(before).lower()})"
    if booking.status is BookingStatus.REJECTED and booking.rejection_reason:
        text += f": {booking.rejection_reason.replace('_', ' ').lower()}"
    return text + "."


# --- the watch ----------------------------------------------------------------------------


@dataclass(frozen=True)
class WatchState:
    """The open bookings, and those seen to leave the open states at the last look."""

    open: dict[str, Booking] = field(default_factory=dict)
    settled: dict[str, Booking] = field(default_factory=dict)

    def status_of(self, booking_id: str) -> BookingStatus | None:
        found = self.open.get(booking_id) or self.settled.get(booking_id)
        return found.status if found else None


@dataclass(frozen=True)
class StatusChange:
    booking: Booking
    before: BookingStatus | None

    @property
    def text(self) -> str:
        return change_text(self.booking, self.before)


def diff_watch(old: WatchState | None, new: WatchState) -> list[StatusChange] | None:
    if old is None:
        return None  # the first look: nothing changed, it is only what is
    changes = []
    for key, booking in {**new.open, **new.settled}.items():
        before = old.status_of(key)
        if before is not None and before is not booking.status:
            changes.append(StatusChange(booking, before))
    return changes or None


def tracking_key_types(booking: Booking) -> list[str]:
    """The identifier types an accepting carrier can give so that tracking can follow the
    booked shipment (its mode's types, not the qualifiers such as a SCAC)."""
    try:
        mode = TransportationMode(booking.transportation_mode or TransportationMode.TL.value)
    except ValueError:
        mode = TransportationMode.TL
    return sorted(ACCEPTED_BY_MODE.get(mode, frozenset()) - QUALIFIERS)


def check_carrier_response(
    wire: dict[str, Any],
) -> tuple[CarrierResponse | None, dict[str, str]]:
    """A carrier's answer given as wire fields, or the problems by field path: the model's
    rules, a reason only with a rejection, and an identifier typed whole."""
    problems: dict[str, str] = {}
    rejecting = wire.get("decision") == CarrierDecision.REJECT.value
    for name in ("rejectionReason", "carrierRejectionNotes"):
        if wire.get(name) and not rejecting:
            problems[name] = "goes with Reject only"
    for index, identifier in enumerate(wire.get("carrierProvidedIdentifiers") or []):
        for part, word in (("type", "a type"), ("value", "a value")):
            if not str(identifier.get(part) or "").strip():
                problems[f"carrierProvidedIdentifiers[{index}].{part}"] = f"Enter {word}"
    return checked(CarrierResponse, wire, problems)


class BookingsService(ListService[Booking]):
    kind = "bookings"

    def __init__(
        self,
        client: Callable[[], ApiClient],
        cache: Cache,
        *,
        interval: float = 30.0,
        watch_interval: float = 2.0,
        idle_watch_interval: float = 15.0,
    ) -> None:
        super().__init__(
            cache,
            Booking,
            lambda b: str(b.id),
            params={"statuses": [], "pageNumber": 1, "pageSize": DEFAULT_PAGE_SIZE},
            interval=interval,
        )
        self._client = client
        self.watch_interval = watch_interval
        self.idle_watch_interval = idle_watch_interval
        self._tasks: set[asyncio.Task[None]] = set()
        self.watch: Coordinator[WatchState, list[StatusChange]] = Coordinator(
            "booking-watch", self._watch, diff_watch, interval=watch_interval
        )

    # --- the list --------------------------------------------------------------------------

    async def fetch_items(self, params: Params) -> tuple[Sequence[Booking], int]:
        page = await self._client().bookings.page(
            statuses=[str(s) for s in params.get("statuses") or []],
            attribute_name=str(params.get("attributeName") or "") or None,
            attribute_values=[str(v) for v in params.get("attributeValues") or []],
            page_number=int(params.get("pageNumber", 1)),
            page_size=int(params.get("pageSize", DEFAULT_PAGE_SIZE)),
        )
        return page.results, page.pagination_info.total

    def sort_key(self, item: Booking) -> Any:
        return (-item.created_date_time.timestamp(), str(item.id))

    def fits(self, item: Booking, params: Params) -> bool:
        """Whether a new booking belongs on the page shown for `params` (the first page of
        the matching bookings, newest first)."""
        if int(params.get("pageNumber", 1)) != 1:
            return False
        statuses = {str(s) for s in params.get("statuses") or []}
        if statuses and item.status.value not in statuses:
            return False
        name = str(params.get("attributeName") or "").strip().casefold()
        if not name:
            return True
        values = {str(v).strip().casefold() for v in params.get("attributeValues") or []}
        return any(
            attribute.name.strip().casefold() == name
            and (not values or values & {v.strip().casefold() for v in attribute.values})
            for attribute in item.attributes
        )

    def page_limit(self, params: Params) -> int | None:
        return int(params.get("pageSize", DEFAULT_PAGE_SIZE))

    async def _show_if_listed(self, bookings: Sequence[Booking]) -> None:
        """Replace bookings shown in the list with their newer versions (no others added)."""
        current = self.coordinator.data
        if current is None:
            return
        items = list(current.items)
        replaced = False
        for booking in bookings:
            index = current.index_of(str(booking.id))
            if index is not None and items[index] != booking:
                items[index] = booking
                replaced = True
        if replaced:
            await self._apply(self._relisted(current, items, current.total))

    # --- the watch -------------------------------------------------------------------------

    async def _watch(self, previous: WatchState | None) -> WatchState:
        api = self._client().bookings
        found: dict[str, Booking] = {}
        async for booking in api.list(statuses=list(OPEN_STATUSES), page_size=MAX_PAGE_SIZE):
            found[str(booking.id)] = booking
        # Listed by their stored status, so a booking past its expiry may answer EXPIRED.
        still_open = {k: b for k, b in found.items() if b.status in OPEN_STATUSES}
        settled = {k: b for k, b in found.items() if b.status not in OPEN_STATUSES}
        for key in (previous.open if previous else {}).keys() - found.keys():
            try:
                settled[key] = await api.get(key)
            except NotFound:
                continue
        self.watch.interval = self.watch_interval if still_open else self.idle_watch_interval
        # The list shows the answers right after the watch's listeners heard of them.
        self._later(self._show_if_listed([*still_open.values(), *settled.values()]))
        return WatchState(still_open, settled)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work, name="bookings-list-update")
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("updating the bookings list failed", exc_info=task.exception())

    def _watched(self, booking: Booking) -> None:
        """Follow a booking the app just wrote (its next answers are announced)."""
        current = self.watch.data
        if current is None:
            return  # the first look will find it
        key = str(booking.id)
        opened = dict(current.open)
        if booking.status in OPEN_STATUSES:
            opened[key] = booking
        else:
            opened.pop(key, None)
        # Set, not applied: the user made this change, so it is not announced back to them.
        self.watch.data = WatchState(opened, {})
        self.watch.interval = self.watch_interval if opened else self.idle_watch_interval
        self.watch.poke()

    # --- writes ----------------------------------------------------------------------------

    async def get(self, booking_id: UUID | str) -> Booking:
        booking = await self._client().bookings.get(booking_id)
        await self._show_if_listed([booking])
        return booking

    async def create(self, booking: BookingInput) -> Booking:
        """Book; the booking is listed at once (when it fits the page) and followed."""
        created = await self._client().bookings.create(booking)
        await self.upsert(created, first=True)
        self._watched(created)
        return created

    async def update(self, booking_id: UUID | str, booking: BookingInput) -> Booking:
        """Replace the shipper's fields; the booking goes back to the carrier (PROCESSING)."""
        saved = await self._client().bookings.update(booking_id, booking)
        await self._show_if_listed([saved])
        self._watched(saved)
        return saved

    async def cancel(self, booking_id: UUID | str) -> Booking:
        cancelled = await self._client().bookings.cancel(booking_id)
        await self._show_if_listed([cancelled])
        self._watched(cancelled)
        return cancelled

    async def live_by_rate_request(self) -> dict[str, Booking]:
        """Rate request id -> its live booking (processing, under review or booked), the one
        that stops another of its quotes being booked. A booking made from a quote names the
        quote's rate request as its parent shipment (docs/spec-gaps.md, Booking)."""
        found: dict[str, Booking] = {}
        async for booking in self._client().bookings.list(statuses=LIVE_STATUSES):
            if booking.shipment_id is not None:
                found.setdefault(str(booking.shipment_id), booking)  # newest first
        return found

    # --- the carrier's side (an extension of the local service) -----------------------------

    async def awaiting_answer(self) -> list[Booking]:
        """The bookings a carrier has yet to answer (PROCESSING or UNDER_REVIEW), newest
        first."""
        found = await self._client().bookings.page(statuses=OPEN_STATUSES, page_size=MAX_PAGE_SIZE)
        return list(found.results)

    async def answer_as_carrier(self, booking_id: UUID | str, answer: CarrierResponse) -> Booking:
        """Accept or reject the booking as its carrier would; the list shows the outcome."""
        answered = await self._client().bookings.carrier_response(booking_id, answer)
        await self._show_if_listed([answered])
        self._watched(answered)
        return answered

    async def can_answer_as_carrier(self) -> bool:
        with contextlib.suppress(Exception):
            return await self._client().bookings.has_carrier_response()
        return False

    async def can_cancel(self) -> bool:
        with contextlib.suppress(Exception):
            return await self._client().bookings.has_cancel()
        return False

    async def aclose(self) -> None:
        await self.watch.aclose()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await super().aclose()
