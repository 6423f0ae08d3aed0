"""Rate requests for the app: ask carriers for quotes, watch the quotes arrive, cancel, and
turn a quote into a booking.

The interface has no operation listing rate requests; the local service lists the tenant's
as an extension, which the app reads now and then (so requests made elsewhere, the demo's
too, show), and where a service lacks it (404 or 405) the app lists only the requests it made
or opened by id. It keeps them in the profile cache and polls the open ones: every quarter
second for the first ten seconds, then every second while carriers are still answering
(QUOTES_REQUESTED), and now and then otherwise, so a cancellation or expiry elsewhere shows
too. A request taken off the list stays off it (kept in the cache) until opened again.
`check_rate_request` runs the local service's own rules (models/rating_rules.py) so a form
marks every problem beside its field before sending.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import ApiError, NotFound
from freightdesk.api.rating import CancellationNotEnabled, RateRequestBooked
from freightdesk.models.account_groups import AccountGroup
from freightdesk.models.addresses import AddressInput
from freightdesk.models.base import error_location
from freightdesk.models.booking import CarrierProfile
from freightdesk.models.common import Address
from freightdesk.models.rating import (
    Quote,
    RateRequest,
    RateRequestCreate,
    RateRequestStatus,
    RateShippingDetails,
)
from freightdesk.models.rating_rules import (
    ACCESSORIALS,
    STOPS,
    Problems,
    accessorial_problems,
    date_problem,
    future_problem,
    ltl_problems,
    mode_problems,
    region_problems,
    stop_type_problems,
)
from freightdesk.models.stop_locations import StopLocation
from freightdesk.service.cache import Cache
from freightdesk.service.coordinator import Coordinator
from freightdesk.service.extension_pages import read_pages
from freightdesk.service.messages import plain
from freightdesk.service.validation import problems_of

log = logging.getLogger(__name__)

KIND = "rate_requests"
HIDDEN = "rate_requests_hidden"  # ids the user took off the list, which listing skips
# The newest requests kept; older ones that no longer take quotes are dropped.
MAX_KEPT = 200
# How long after asking the quotes are polled every quarter second (then every second).
FAST_WINDOW = timedelta(seconds=10)
LIST_PAGE = 100  # the extension's largest page
OPEN = (RateRequestStatus.QUOTES_REQUESTED, RateRequestStatus.QUOTES_RECEIVED)


# --- the service's rules, checked in the form --------------------------------------------


def check_rate_request(
    wire: dict[str, Any], *, today: date | None = None
) -> tuple[RateRequestCreate | None, dict[str, str]]:
    """The request for a form given as wire fields, or every problem by field path.

    All of them at once: when fields are malformed (a row's weight not a number) the rules
    still run on the rest, with the malformed fields left out, so a user fixing the form
    does not meet new problems on each try.
    """
    problems: dict[str, str] = {}
    trimmed = copy.deepcopy(wire)
    # Lists whose items were taken out, by path, with the lowest index taken: the rules'
    # findings past it would name the wrong row.
    shifted: dict[str, int] = {}
    # Each pass leaves out what the last refused; a few passes cover nested refusals.
    for _attempt in range(5):
        try:
            request = RateRequestCreate.model_validate(trimmed, extra="forbid")
        except ValidationError as exc:
            for path, message in problems_of(exc).items():
                if not _in_shifted(path, shifted):
                    problems.setdefault(path, message)
            dropped = [_drop(trimmed, error_location(e), shifted) for e in exc.errors()]
            if not any(dropped):
                break
            continue
        found = request_problems(request, today=today or datetime.now(UTC).date())
        for path, message in found.items():
            # A field already refused as typed (weight.value) needs no second word (weight).
            said = any(p.startswith(path + ".") for p in problems)
            if not said and not _in_shifted(path, shifted):
                problems.setdefault(path, message)
        if not problems:
            return request, {}
        break
    for index, carrier in enumerate(wire.get("capacityProviderIdentifiers") or []):
        path = f"capacityProviderIdentifiers[{index}].value"
        if path in problems:
            problems[path] = f"{carrier.get('value')!r} is not a SCAC (2 to 4 letters)"
    return None, plain(problems)


def _drop(wire: Any, location: Sequence[int | str], shifted: dict[str, int]) -> bool:
    """Leave what pydantic refused at `location` out of `wire`; whether anything was.

    A field given is left out (if required, it is refused again at the same path, whose first
    message stays); for a field missing, the object lacking it is left out, a list item taken
    out of its list (its later items' rule findings are then skipped: see `shifted`)."""
    node: Any = wire
    last: tuple[Any, int | str, str] | None = None  # (container, key, the container's path)
    path = ""
    # pydantic adds union and validator tags to a location: only the parts met in `wire` count.
    for part in location:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            last = (node, part, path)
            path = f"{path}.{part}" if path else part
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            last = (node, part, path)
            path = f"{path}[{part}]"
        else:
            continue
        node = node[part]
    if last is None:
        return False
    container, key, at = last
    del container[key]
    if isinstance(container, list) and isinstance(key, int):
        shifted[at] = min(shifted.get(at, key), key)
    return True


def _in_shifted(path: str, shifted: dict[str, int]) -> bool:
    """Whether a rule's finding at `path` is about an item whose index moved (or about the
    list that lost items, which the rule may find empty)."""
    for at, lowest in shifted.items():
        if at == path or at.startswith((path + ".", path + "[")):
            return True
        if path.startswith(at + "["):
            index = path[len(at) + 1 :].split("]", 1)[0]
            if index.isdigit() and int(index) >= lowest:
                return True
    return False


def request_problems(request: RateRequestCreate, *, today: date) -> dict[str, str]:
    """The local service's rules (`models/rating_rules.py`), and the app's own: the first
    problem of each field."""
    found: Problems = []
    detail = request.rate_detail
    found += stop_type_problems(detail.route_info.stops)
    for index, stop in enumerate(detail.route_info.stops):
        found += _placement_problems(stop.location.address, stop.location.coordinates, index)
    if detail.pickup_date is not None:
        problem = date_problem(detail.pickup_date, today)
        if problem is not None:
            found.append(("rateDetail.pickupDate", problem))
    if request.expiration_date_time is not None:
        problem = future_problem(request.expiration_date_time, datetime.now(UTC))
        if problem is not None:
            found.append(("expirationDateTime", problem))
    shipping = detail.shipping_details
    found += mode_problems(shipping)
    if shipping is not None and shipping.ltl is not None:
        found += ltl_problems(detail)
    found += accessorial_problems(shipping)
    found += _range_problems(shipping)
    problems: dict[str, str] = {}
    for path, message in found:
        problems.setdefault(path, message)
    return problems


def _placement_problems(address: Address | None, coordinates: object, index: int) -> Problems:
    """A country and state that exist (the service's rule); then, since the app has no
    geocoder to place a stop as the service does, something it can be placed by."""
    path = f"{STOPS}[{index}].location"
    if address is None:
        if coordinates is None:
            return [(f"{path}.address", "Enter an address or pick a saved location")]
        return []
    known = region_problems(address, path)
    if known:
        return known
    state = (address.state or "").strip()
    placed = state or (address.city or "").strip() or (address.postal_code or "").strip()
    if not placed and coordinates is None:
        return [(f"{path}.address.city", "Enter a city, a postal code or a state")]
    return []


def _range_problems(shipping: RateShippingDetails | None) -> Problems:
    """The app's own check (the service takes any range): a range upside down is a typo."""
    found: Problems = []
    for index, accessorial in enumerate(shipping.accessorials if shipping else []):
        details = accessorial.details
        low, high = (details.min, details.max) if details else (None, None)
        if low is not None and high is not None and low > high:
            found.append((f"{ACCESSORIALS}[{index}].details.max", "must not be below the lowest"))
    return found


def effective_status(request: RateRequest, now: datetime | None = None) -> RateRequestStatus:
    """The status as the service computes it at read time: open requests expire."""
    moment = now or datetime.now(UTC)
    if request.status in OPEN and request.expiration_date_time <= moment:
        return RateRequestStatus.EXPIRED
    return request.status


def quote_open(quote: Quote, request: RateRequest, now: datetime | None = None) -> bool:
    """Whether the quote can still be booked."""
    moment = now or datetime.now(UTC)
    return effective_status(request, moment) in OPEN and quote.expiration_date_time > moment


def booking_draft(request: RateRequest, quote: Quote) -> dict[str, Any]:
    """The wire fields of a booking of `quote`, as the service would fill them in, for the
    booking form to show and the user to change."""
    detail = request.rate_detail
    charges = [
        ("LINE_HAUL", quote.line_haul),
        ("FUEL_SURCHARGE", quote.fuel_surcharge),
        *((c.code, c.amount) for c in quote.accessorial_charges),
    ]
    draft: dict[str, Any] = {
        "capacityProviderIdentifier": quote.capacity_provider_identifier.wire(),
        "rateIdentifiers": [i.wire() for i in quote.rate_identifiers],
        "totalRate": quote.total_rate.wire(),
        "fuelSurchargeRate": quote.fuel_surcharge.wire(),
        "charges": [
            {"code": code, "amount": money.amount, "currency": money.currency.value}
            for code, money in charges
        ],
        "expirationDateTime": quote.expiration_date_time.isoformat(),
        "shipmentId": str(request.id),
        "shipmentDetails": [
            {
                "pickupStopId": str(d.pickup_stop_id) if d.pickup_stop_id else None,
                "deliveryStopId": str(d.delivery_stop_id) if d.delivery_stop_id else None,
                "handlingUnits": [u.wire() for u in d.handling_units],
                "identifiers": [i.wire() for i in d.identifiers],
            }
            for d in detail.shipment_details
        ],
    }
    if detail.shipper_contact_info is not None:
        draft["shipperContactInfo"] = detail.shipper_contact_info.wire()
    shipping = detail.shipping_details
    if shipping is not None:
        details: dict[str, Any] = {"accessorials": [a.wire() for a in shipping.accessorials]}
        if shipping.truck is not None:
            truck = shipping.truck.wire()
            details.update({k: v for k, v in truck.items() if v is not None})
        draft["shippingDetails"] = details
    cleaned: dict[str, Any] = _without_none(draft)
    return cleaned


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


# --- cancelling ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Cancellation:
    """How a cancellation went, in words a dispatcher reads."""

    rate_request_id: str
    already: bool
    booking_id: str | None = None

    def text(self) -> str:
        if self.already:
            return "The rate request was already cancelled; nothing changed."
        if self.booking_id:
            return (
                "The rate request is cancelled, and so is its booking in progress "
                f"({self.booking_id})."
            )
        return "The rate request is cancelled; carriers will not be asked again."


def cancel_refusal_text(error: BaseException) -> str | None:
    """The interface's refusals of a cancellation, said plainly (None for other errors)."""
    if isinstance(error, RateRequestBooked):
        return (
            "It cannot be cancelled: a carrier already accepted a booking of it. Cancel the "
            "booking first (Bookings pane), then the rate request."
        )
    if isinstance(error, CancellationNotEnabled):
        return (
            "Cancelling rate requests is not enabled for this account. An administrator of "
            "the freight service can switch it on."
        )
    return None


# --- the service --------------------------------------------------------------------------


@dataclass(frozen=True)
class RateRequests:
    """The rate requests the app knows, newest first."""

    by_id: dict[str, RateRequest]
    order: tuple[str, ...]

    @classmethod
    def of(cls, requests: list[RateRequest]) -> RateRequests:
        ordered = sorted(requests, key=lambda r: (r.created_date_time, str(r.id)), reverse=True)
        return cls({str(r.id): r for r in ordered}, tuple(str(r.id) for r in ordered))

    def items(self) -> list[RateRequest]:
        return [self.by_id[key] for key in self.order]

    def get(self, request_id: UUID | str) -> RateRequest | None:
        return self.by_id.get(str(request_id))

    def waiting(self) -> list[RateRequest]:
        """Requests whose carriers are still answering."""
        return [
            r
            for r in self.by_id.values()
            if effective_status(r) is RateRequestStatus.QUOTES_REQUESTED
        ]


@dataclass(frozen=True)
class RateRequestsChange:
    changed: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()
    new_quotes: frozenset[str] = frozenset()  # requests that received quotes
    full: bool = False


def diff_requests(old: RateRequests | None, new: RateRequests) -> RateRequestsChange | None:
    if old is None:
        return RateRequestsChange(frozenset(new.by_id), full=True)
    if old is new:
        return None
    removed = frozenset(old.by_id.keys() - new.by_id.keys())
    changed = frozenset(k for k, r in new.by_id.items() if old.by_id.get(k) != r)
    if not removed and not changed:
        return None
    new_quotes = frozenset(
        k for k in changed if k in old.by_id and len(new.by_id[k].quotes) > len(old.by_id[k].quotes)
    )
    return RateRequestsChange(changed, removed, new_quotes, full=old.order != new.order)


class RatingService:
    """Owns the app's rate requests of one connection."""

    def __init__(
        self,
        client: Callable[[], ApiClient],
        cache: Cache,
        *,
        interval: float = 1.0,
        fast_interval: float = 0.25,
        idle_interval: float = 30.0,
    ) -> None:
        self._client = client
        self.cache = cache
        self.interval = interval
        self.fast_interval = fast_interval
        self.idle_interval = idle_interval
        self._last_full: float | None = None
        # Whether the service lists rate requests (None until asked); ids taken off the list.
        self._listing: bool | None = None
        self._hidden: set[str] | None = None
        self._lock = asyncio.Lock()
        self.coordinator: Coordinator[RateRequests, RateRequestsChange] = Coordinator(
            "rate-requests", self._fetch, diff_requests, interval=interval
        )

    # --- cache -----------------------------------------------------------------------------

    async def load_cached(self) -> RateRequests:
        try:
            requests = await asyncio.to_thread(self.cache.load_models, KIND, RateRequest)
        except ValidationError:
            log.info("the cached rate requests no longer fit the model; ignored")
            requests = []
        cached = RateRequests.of(requests)
        if self.coordinator.data is None:
            self.coordinator.apply(cached)
        return cached

    def _store(self, upserts: list[RateRequest], removed: list[str]) -> None:
        if upserts:
            self.cache.put_models(KIND, ((str(r.id), r) for r in upserts))
        if removed:
            self.cache.delete_many(KIND, removed)

    async def _keep(self, requests: list[RateRequest], removed: Sequence[str] = ()) -> None:
        """Store these requests and show them at once, dropping `removed`."""
        async with self._lock:
            await asyncio.to_thread(self._store, requests, list(removed))
            # Built from the newest data with no pause before it is shown, so a fetch that
            # finished meanwhile is not undone.
            current = self.coordinator.data or RateRequests({}, ())
            merged = {**current.by_id, **{str(r.id): r for r in requests}}
            for key in removed:
                merged.pop(key, None)
            listing = RateRequests.of(list(merged.values()))
            overflow = self._overflow(listing)
            if overflow:
                listing = RateRequests.of(
                    [r for k, r in listing.by_id.items() if k not in set(overflow)]
                )
            self.coordinator.apply(listing)
            if overflow:
                await asyncio.to_thread(self._store, [], overflow)

    @staticmethod
    def _overflow(listing: RateRequests) -> list[str]:
        """Beyond MAX_KEPT, the oldest requests that no longer take quotes."""
        if len(listing.order) <= MAX_KEPT:
            return []
        extra = len(listing.order) - MAX_KEPT
        finished = [k for k in reversed(listing.order) if listing.by_id[k].status not in OPEN]
        return finished[:extra]

    # --- polling ---------------------------------------------------------------------------

    def _pace(self, listing: RateRequests) -> RateRequests:
        """Poll fast while a request is young: carriers usually answer within a second, and
        the dispatcher is watching the quotes come in."""
        now = datetime.now(UTC)
        young = any(now - r.created_date_time < FAST_WINDOW for r in listing.waiting())
        self.coordinator.interval = self.fast_interval if young else self.interval
        return listing

    async def _listed(self, client: ApiClient) -> list[RateRequest] | None:
        """The tenant's newest requests (up to MAX_KEPT) but those taken off the list; None
        where the service does not list them."""
        if self._listing is False:
            return None
        hidden = await self._hidden_ids()
        found = await read_pages(client.rating.page, MAX_KEPT, LIST_PAGE)
        if found is None:
            log.info("the service does not list rate requests; showing the app's own")
            self._listing = False
            return None
        self._listing = True
        return [r for r in found if str(r.id) not in hidden]

    async def _hidden_ids(self) -> set[str]:
        if self._hidden is None:
            stored = await asyncio.to_thread(self.cache.load, HIDDEN)
            self._hidden = {value.decode() for value in stored}
        return self._hidden

    async def _fetch(self, previous: RateRequests | None) -> RateRequests:
        current = self._pace(previous or RateRequests({}, ()))
        now = time.monotonic()
        due_all = self._last_full is None or now - self._last_full >= self.idle_interval
        client = self._client()
        listed = None
        if due_all:
            self._last_full = now
            listed = await self._listed(client)
        seen = {str(r.id) for r in listed or ()}
        wanted = [
            r
            for r in current.items()
            if str(r.id) not in seen
            and effective_status(r) in OPEN
            and (due_all or r.status is RateRequestStatus.QUOTES_REQUESTED)
        ]
        if not wanted and not listed:
            return current
        fresh: list[RateRequest] = list(listed or ())
        gone: list[str] = []
        for request in wanted:
            try:
                fresh.append(await client.rating.get(request.id))
            except NotFound:
                gone.append(str(request.id))
        # Not one taken off the list while this fetch ran.
        hidden = self._hidden or set()
        changed = [
            r for r in fresh if current.by_id.get(str(r.id)) != r and str(r.id) not in hidden
        ]
        if not changed and not gone:
            return current
        await asyncio.to_thread(self._store, changed, gone)
        # Merged into the newest data: a create may have been shown while this fetch ran.
        latest = self.coordinator.data or current
        merged = {**latest.by_id, **{str(r.id): r for r in changed}}
        for key in gone:
            merged.pop(key, None)
        return self._pace(RateRequests.of(list(merged.values())))

    # --- writes ----------------------------------------------------------------------------

    async def create(self, request: RateRequestCreate) -> RateRequest:
        """Ask for quotes; the request is listed at once and polled until carriers answered."""
        created = await self._client().rating.create(request)
        await self._keep([created])
        self.coordinator.interval = self.fast_interval
        self.coordinator.poke()
        return created

    async def open(self, request_id: UUID | str) -> RateRequest:
        """Add a request made elsewhere (by its id) to the app's list, back on it if it was
        taken off."""
        found = await self._client().rating.get(request_id)
        hidden = await self._hidden_ids()
        if str(found.id) in hidden:
            hidden.discard(str(found.id))
            await asyncio.to_thread(self.cache.delete_many, HIDDEN, [str(found.id)])
        await self._keep([found])
        return found

    async def reload(self, request_id: UUID | str) -> RateRequest:
        return await self.open(request_id)

    async def forget(self, request_id: UUID | str) -> None:
        """Take a request off the app's list (the service keeps it; listing skips it)."""
        key = str(request_id)
        (await self._hidden_ids()).add(key)
        await asyncio.to_thread(self.cache.put_many, HIDDEN, [(key, key.encode())])
        await self._keep([], [key])

    async def cancel(self, request_id: UUID | str) -> Cancellation:
        """Cancel; the outcome says whether it was cancelled already and which booking in
        progress went with it. Raises RateRequestBooked or CancellationNotEnabled, whose
        meaning `cancel_refusal_text` puts in words."""
        api = self._client().rating
        before = await api.get(request_id)
        if before.status is RateRequestStatus.CANCELLED:
            await self._keep([before])
            return Cancellation(str(request_id), already=True)
        answer = await api.cancel(request_id)
        with contextlib.suppress(ApiError):
            await self._keep([await api.get(request_id)])
        return Cancellation(
            str(answer.rate_request_id),
            already=False,
            booking_id=str(answer.booking_id) if answer.booking_id else None,
        )

    # --- what the form offers --------------------------------------------------------------

    async def carriers(self) -> list[CarrierProfile]:
        """The carriers the tenant is connected to, where the service tells (an extension of
        the local service; elsewhere the list is empty and carriers are named by SCAC)."""
        try:
            carriers = await self._client().carriers.list()
        except ApiError as exc:
            if exc.status in (404, 405):  # a deployment without the extension
                return []
            raise
        return sorted(carriers, key=lambda c: c.name.lower())

    async def account_groups(self) -> list[AccountGroup]:
        return await self._client().account_groups.list()

    async def saved_locations(self, query: str = "", limit: int = 50) -> list[StopLocation]:
        page = await self._client().stop_locations.page(page_size=limit, query=query or None)
        return page.locations

    async def validate_address(self, address: AddressInput) -> Address:
        return await self._client().addresses.validate(address)

    async def aclose(self) -> None:
        await self.coordinator.aclose()
