"""Yard appointment slots: the dock-door slots of a site in a time window.

The interface offers one operation, a POST that only reads: it books nothing, so it is safe
to send again after a dropped connection. The sites themselves (list, add, remove) are a
FreightDesk extension: the interface names site codes but shows no operation for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from freightdesk.api.parsing import parse
from freightdesk.models.yard import SlotAnswer, SlotQuery, YardSite, YardSiteInput, YardSiteList

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/services/appointments/v1/slots"
SITES = "/services/appointments/v1/sites"


class SlotsApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def query(self, query: SlotQuery) -> SlotAnswer:
        """The site's slots that start inside `query.appointment_window`, in time order, with
        the doors still free in each. NotFound names `identifiers.siteCode` for a site the
        tenant does not have."""
        response = await self._client.request("POST", PATH, json=query.wire(), idempotent=True)
        return parse(SlotAnswer, response)

    async def sites(self) -> list[YardSite]:
        """The tenant's sites, by code."""
        response = await self._client.request("GET", SITES)
        return parse(YardSiteList, response).sites

    async def add_site(self, site: YardSiteInput) -> YardSite:
        """Conflict names `code` when the tenant has that site already."""
        response = await self._client.request("POST", SITES, json=site.wire())
        return parse(YardSite, response)

    async def remove_site(self, code: str) -> None:
        """Remove a site with its appointments; NotFound names `siteCode`."""
        await self._client.request("DELETE", f"{SITES}/{quote(code.strip(), safe='')}")
