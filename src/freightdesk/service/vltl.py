"""Volume LTL for the app: quotes from the carriers of an account group, and a dispatch to
the carrier of a chosen quote.

The last quotes (with the request that asked for them) and the last dispatch are kept in the
profile cache, so the pane opens with them and keeps them, with their age, when the service is
away. Unlike the capacity and schedules lists they are not polled: each quote query prices
anew under new quote numbers, which would change the quote a dispatcher is about to dispatch.

`check_quote` and `check_dispatch` run the models' rules (`models/vltl_rules.py`, the ones the
local service applies) on what a form holds, keyed by the interface's field paths.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import ApiError
from freightdesk.models.account_groups import AccountGroup
from freightdesk.models.booking import CarrierProfile, DefaultContacts
from freightdesk.models.common import Address
from freightdesk.models.vltl import (
    DispatchedShipment,
    DispatchRequest,
    RateQuote,
    VltlQuoteRequest,
    VltlUser,
)
from freightdesk.models.vltl_rules import dispatch_problems, freight_problems, quote_address
from freightdesk.service.cache import Cache
from freightdesk.service.kept_json import keep_json, kept_json
from freightdesk.service.messages import plain
from freightdesk.service.validation import problems_of

QUOTES_META = "vltl:last_quotes"
DISPATCH_META = "vltl:last_dispatch"
# The interface's `user` must name at least one field; the app quotes as an enabled user of
# the token's tenant (docs/spec-gaps.md).
APP_USER = VltlUser(enabled=True)


@dataclass(frozen=True)
class LastQuotes:
    request: VltlQuoteRequest
    quotes: list[RateQuote]
    at: float  # epoch seconds of the answer


@dataclass(frozen=True)
class LastDispatch:
    answer: DispatchedShipment
    at: float


def check_quote(wire: dict[str, Any]) -> tuple[VltlQuoteRequest | None, dict[str, str]]:
    """The quote request for a form given as wire fields, or every problem by field path (the
    addresses' too when another field is refused)."""
    problems: list[tuple[str, str]] = []
    request: VltlQuoteRequest | None = None
    # The addresses' own words first ("is required" rather than the model's pattern message).
    for path in ("originAddress", "destinationAddress"):
        try:
            address = Address.model_validate(wire.get(path))
        except ValidationError:
            continue  # said below
        quote_address(address, path, problems)
    try:
        request = VltlQuoteRequest.model_validate(wire)
    except ValidationError as exc:
        problems += problems_of(exc).items()
    if request is not None:
        freight_problems(request.line_items, request.enhanced_handling_units, problems)
    found: dict[str, str] = {}
    for path, message in problems:
        found.setdefault(path, message)
    # In the form's words here, so every caller shows the same (the rules say wire names).
    return (None, plain(found)) if found else (request, {})


def check_dispatch(
    wire: dict[str, Any], defaults: DefaultContacts | None
) -> tuple[DispatchRequest | None, dict[str, str]]:
    """The dispatch for a form given as wire fields, or every problem by field path.
    `defaults`: the carrier account's default contacts (a location may then leave its contact
    out)."""
    try:
        request = DispatchRequest.model_validate(wire)
    except ValidationError as exc:
        return None, problems_of(exc)
    problems = dispatch_problems(request, defaults)
    return (None, plain(problems)) if problems else (request, {})


def dispatch_draft(quote: RateQuote, request: VltlQuoteRequest) -> dict[str, Any]:
    """The wire fields of a dispatch of `quote` that the quote and its request already say:
    the carrier account, the quote's numbers, the addresses, the freight, the windows and the
    units (a dispatch's own default length unit is not a quote's); the origin stands for the
    requester."""
    group: dict[str, Any] = {"accounts": [{"code": quote.carrier_code}]}
    if quote.capacity_provider_account_group.code:
        group["code"] = quote.capacity_provider_account_group.code
    draft: dict[str, Any] = {
        "capacityProviderAccountGroup": group,
        "capacityProviderQuoteNumber": quote.capacity_provider_quote_number or "",
        "rateQuoteId": str(quote.id),
        "originLocation": {"address": request.origin_address.wire()},
        "destinationLocation": {"address": request.destination_address.wire()},
        # Most often the shipper asks for the pickup: its address is the requester's until
        # the dispatcher says otherwise.
        "requesterLocation": {"address": request.origin_address.wire()},
        "lineItems": [item.wire() for item in request.line_items],
        "accessorialServices": [a.wire() for a in request.accessorial_services],
        "lengthUnit": request.length_unit.value,
        "weightUnit": request.weight_unit.value,
    }
    for name, window in (
        ("pickupWindow", request.pickup_window),
        ("deliveryWindow", request.delivery_window),
    ):
        if window is not None:
            draft[name] = window.wire()
    if quote.total_linear_feet is not None:
        draft["totalLinearFeet"] = quote.total_linear_feet
    if quote.currency_code is not None:
        draft["currencyCode"] = quote.currency_code.value
    return draft


class VltlService:
    """The volume LTL calls of one pane; the client and the cache are the session's current
    ones (None while no profile's cache is open)."""

    def __init__(
        self, client: Callable[[], ApiClient], cache: Callable[[], Cache | None] = lambda: None
    ) -> None:
        self._client = client
        self._cache = cache

    # --- quotes ----------------------------------------------------------------------------

    async def quote(self, request: VltlQuoteRequest) -> LastQuotes:
        quotes = await self._client().vltl.query_rates(request, user=APP_USER)
        last = LastQuotes(request, quotes, time.time())
        await keep_json(
            self._cache(),
            QUOTES_META,
            {"request": request.wire(), "quotes": [q.wire() for q in quotes], "at": last.at},
        )
        return last

    async def last_quotes(self) -> LastQuotes | None:
        """The last quotes answered, from the cache (None when none, or they no longer read)."""
        kept = await kept_json(self._cache(), QUOTES_META)
        if not isinstance(kept, dict):
            return None
        try:
            return LastQuotes(
                VltlQuoteRequest.model_validate(kept["request"]),
                [RateQuote.model_validate(q) for q in kept["quotes"]],
                float(kept["at"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    # --- dispatch --------------------------------------------------------------------------

    async def dispatch(self, request: DispatchRequest) -> LastDispatch:
        """Never sent again blindly (the client's rule): a dispatch orders a pickup."""
        answer = await self._client().vltl.dispatch(request)
        last = LastDispatch(answer, time.time())
        await keep_json(self._cache(), DISPATCH_META, {"answer": answer.wire(), "at": last.at})
        return last

    async def last_dispatch(self) -> LastDispatch | None:
        kept = await kept_json(self._cache(), DISPATCH_META)
        if not isinstance(kept, dict):
            return None
        try:
            return LastDispatch(
                DispatchedShipment.model_validate(kept["answer"]), float(kept["at"])
            )
        except (KeyError, TypeError, ValueError):
            return None

    # --- what the forms offer --------------------------------------------------------------

    async def carriers(self) -> list[CarrierProfile]:
        """The tenant's carriers with their default contacts, where the service tells (an
        extension of the local service; elsewhere the list is empty)."""
        try:
            return await self._client().carriers.list()
        except ApiError as exc:
            if exc.status in (404, 405):
                return []
            raise

    async def account_groups(self) -> list[AccountGroup]:
        return await self._client().account_groups.list()
