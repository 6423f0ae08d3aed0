"""Volume LTL: rate quotes from the carriers of an account group, and dispatch to one of them.

The interface has the quote operation at two paths (v2 and v3) that behave the same; the
client uses v3 and falls back to v2 on a deployment that lacks it. A quote query only prices
(a repeat adds quotes that expire unused), so it is sent again after a dropped connection; a
dispatch orders a pickup, so it is never sent again blindly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from freightdesk.api.errors import ApiError
from freightdesk.api.parsing import parse
from freightdesk.models.common import LocalDateWindow
from freightdesk.models.vltl import (
    DispatchedShipment,
    DispatchRequest,
    RateQuote,
    RateQuoteList,
    VltlQuoteRequest,
    VltlUser,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

V3_QUOTES_PATH = "/api/v3/vltl/shipments/rates/query"
V2_QUOTES_PATH = "/api/v2/vltl/quotes/rates/query"
DISPATCH_PATH = "/api/v4/vltl/dispatchedshipments"
# What a deployment without the operation answers (no route, or no POST on it).
_MISSING = (404, 405)


class VltlApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client
        self._v3_missing = False

    async def query_rates(self, request: VltlQuoteRequest, *, user: VltlUser) -> list[RateQuote]:
        """Quotes of every carrier of the account group (or of the accounts named), cheapest
        first. A carrier that cannot quote answers a quote without a price whose ERROR alert
        says why. `user` (the interface's required `user` object) is sent as query
        parameters; it must name at least one field.
        """
        body = _with_windows(request.wire(), request.pickup_window, request.delivery_window)
        params = user.wire()
        if not self._v3_missing:
            try:
                response = await self._client.request(
                    "POST", V3_QUOTES_PATH, json=body, params=params, idempotent=True
                )
                return parse(RateQuoteList, response).rate_quotes
            except ApiError as exc:
                if exc.status not in _MISSING:
                    raise
                self._v3_missing = True
        response = await self._client.request(
            "POST", V2_QUOTES_PATH, json=body, params=params, idempotent=True
        )
        return parse(RateQuoteList, response).rate_quotes

    async def dispatch(self, shipment: DispatchRequest) -> DispatchedShipment:
        """Dispatch to one carrier account; the answer carries the carrier's pickup and PRO
        numbers and the tracked shipment it created (`shipment_id`)."""
        body = _with_windows(shipment.wire(), shipment.pickup_window, shipment.delivery_window)
        response = await self._client.request("POST", DISPATCH_PATH, json=body)
        return parse(DispatchedShipment, response)


def _with_windows(
    body: dict[str, Any], pickup: LocalDateWindow | None, delivery: LocalDateWindow | None
) -> dict[str, Any]:
    """`body` with its windows' times of day as hh:mm, the interface's spelling (the model
    writes hh:mm:ss)."""
    for name, window in (("pickupWindow", pickup), ("deliveryWindow", delivery)):
        if window is None:
            continue
        for key, moment in (("startTime", window.start_time), ("endTime", window.end_time)):
            if moment is not None:
                body[name][key] = moment.strftime("%H:%M")
    return body
