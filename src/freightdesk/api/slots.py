"""Yard appointment slots: the dock-door slots of a site in a time window.

The interface offers one operation, a POST that only reads: it books nothing, so it is safe
to send again after a dropped connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk.api.parsing import parse
from freightdesk.models.yard import SlotAnswer, SlotQuery

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/services/appointments/v1/slots"


class SlotsApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def query(self, query: SlotQuery) -> SlotAnswer:
        """The site's slots that start inside `query.appointment_window`, in time order, with
        the doors still free in each. NotFound names `identifiers.siteCode` for a site the
        tenant does not have."""
        response = await self._client.request("POST", PATH, json=query.wire(), idempotent=True)
        return parse(SlotAnswer, response)
