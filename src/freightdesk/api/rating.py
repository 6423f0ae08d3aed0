"""Rating: ask carriers for quotes, read the request with the quotes that arrived, cancel it.

Cancelling has three outcomes the interface names: 200 (also when the request was cancelled
already), 409 when a carrier already accepted a booking of it, 403 when the tenant does not
have the cancellation feature. The two refusals are raised as their own typed errors so a
caller can tell them apart from any other conflict or refusal.

Listing the tenant's requests is a FreightDesk extension (the interface reads them one by
one); a service without it answers 404 or 405, which the caller takes as "not offered".
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from freightdesk.api.errors import Conflict, PermissionDenied
from freightdesk.api.parsing import parse
from freightdesk.models.rating import (
    RateRequest,
    RateRequestCancellation,
    RateRequestCreate,
    RateRequestList,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/services/rating/v1/rate-requests"


class RateRequestBooked(Conflict):
    """409 on cancel: a carrier already accepted a booking of the request (cancel that first)."""


class CancellationNotEnabled(PermissionDenied):
    """403 on cancel: the tenant's account does not have rate request cancellation."""


class RatingApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def create(self, request: RateRequestCreate) -> RateRequest:
        """Ask for quotes; the answer is QUOTES_REQUESTED and quotes arrive later.

        A POST that may have reached the service is not sent again (it would ask twice).
        """
        response = await self._client.request("POST", PATH, json=request.wire())
        return parse(RateRequest, response)

    async def page(self, page_number: int = 1, page_size: int = 20) -> RateRequestList:
        """A page of the tenant's rate requests with their quotes, newest first."""
        params = {"pageNumber": page_number, "pageSize": page_size}
        response = await self._client.request("GET", PATH, params=params)
        return parse(RateRequestList, response)

    async def get(self, request_id: UUID | str) -> RateRequest:
        response = await self._client.request("GET", f"{PATH}/{request_id}")
        return parse(RateRequest, response)

    async def cancel(self, request_id: UUID | str) -> RateRequestCancellation:
        """Cancel the request (and its booking in progress, whose id the answer carries).

        Cancelling again answers 200 with the same body, so the call is safe to repeat.
        Raises RateRequestBooked (409) or CancellationNotEnabled (403).
        """
        try:
            response = await self._client.request(
                "POST", f"{PATH}/{request_id}/cancellations", idempotent=True
            )
        except Conflict as exc:
            raise RateRequestBooked(exc.status, exc.body, exc.headers) from exc
        except PermissionDenied as exc:
            raise CancellationNotEnabled(exc.status, exc.body, exc.headers) from exc
        return parse(RateRequestCancellation, response)
