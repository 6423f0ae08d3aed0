"""North American rail legs for the app: start tracking a leg, follow its equipment's
statuses, find a leg by bill of lading or waybill, stop tracking it.

The interface has no call that lists a tenant's legs. The local service lists them (an
extension, `listRailShipments`), so legs started elsewhere, the demo's included, are shown; where
a service answers that call 404 or 405, the list is the legs this profile has started or looked
up: their railLegIds are kept in the cache, and each refresh reads every one's statuses with
their history (a leg answering 404 was deleted elsewhere and leaves the list). The list is a
`ListService` list, so the pane opens with the last statuses and keeps them, with their age,
when the service is away.

`check_leg` runs the models' rules on what the form holds, keyed by the body's field paths,
including the clock's rule on `trackingStartDateTime` that the service applies too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.models.rail import (
    RailShipmentCreate,
    RailShipmentIdentifier,
    RailShipmentList,
    RailShipmentResponse,
    RailStatusResponse,
    tracking_start_problem,
)
from freightdesk.service.cache import Cache
from freightdesk.service.extension_pages import read_pages
from freightdesk.service.kept_json import keep_json, kept_json
from freightdesk.service.listing import ListService, Params
from freightdesk.service.messages import plain
from freightdesk.service.validation import problems_of

KIND = "rail_legs"
IDS_META = f"{KIND}:ids"
# Statuses read at once on a refresh; a tenant follows tens of legs, not thousands.
PARALLEL_READS = 4
# The newest legs a refresh lists (with the extension), in pages of LIST_PAGE.
MAX_LISTED = 200
LIST_PAGE = 50


def leg_key(leg: RailStatusResponse) -> str:
    return str(leg.shipment.rail_leg_id)


def check_leg(
    wire: dict[str, Any], now: datetime | None = None
) -> tuple[RailShipmentCreate | None, dict[str, str]]:
    """The request for a form given as wire fields, or every problem by field path."""
    problems: dict[str, str] = {}
    body: RailShipmentCreate | None = None
    try:
        body = RailShipmentCreate.model_validate(wire)
    except ValidationError as exc:
        problems = problems_of(exc)
    start = body.tracking_start_date_time if body else wire.get("trackingStartDateTime")
    if "trackingStartDateTime" not in problems and (start is None or isinstance(start, datetime)):
        problem = tracking_start_problem(
            start, bool(wire.get("shipmentIdentifiers")), now or datetime.now(UTC)
        )
        if problem is not None:
            problems["trackingStartDateTime"] = problem
    if problems:
        return None, plain(problems)
    return body, {}


class RailService(ListService[RailStatusResponse]):
    kind = KIND

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 120.0
    ) -> None:
        # Railroads report a few times a day; a poll every two minutes is current enough.
        super().__init__(cache, RailStatusResponse, leg_key, interval=interval)
        self._client = client
        self._ids: list[str] | None = None  # newest first
        self._listing: bool | None = None  # does the service list legs? (unknown at first)

    # --- the legs this profile follows -----------------------------------------------------

    async def leg_ids(self) -> list[str]:
        if self._ids is None:
            loaded = await kept_json(self.cache, IDS_META)
            if self._ids is None:  # another caller may have loaded them meanwhile
                self._ids = [str(i) for i in loaded] if isinstance(loaded, list) else []
        return list(self._ids)

    async def _set_ids(self, ids: list[str]) -> None:
        self._ids = ids
        await keep_json(self.cache, IDS_META, ids)

    async def _follow(self, leg: RailStatusResponse) -> None:
        key = leg_key(leg)
        ids = await self.leg_ids()
        if key not in ids:
            await self._set_ids([key, *ids])
        await self.upsert(leg, first=True)

    async def _forget(self, key: str) -> None:
        ids = await self.leg_ids()
        if key in ids:
            await self._set_ids([i for i in ids if i != key])
        await self.remove(key)

    async def _listed(self) -> list[RailStatusResponse] | None:
        """The tenant's newest legs (up to MAX_LISTED) with their statuses; None where the
        service does not list legs."""
        if self._listing is False:
            return None
        rail = self._client().rail

        async def fetch(page_number: int, page_size: int) -> RailShipmentList:
            return await rail.page(page_number, page_size, include_status_history=True)

        found = await read_pages(fetch, MAX_LISTED, LIST_PAGE)
        self._listing = found is not None
        return found

    async def fetch_items(self, params: Params) -> tuple[Sequence[RailStatusResponse], int]:
        listed = await self._listed()
        ids = await self.leg_ids()
        if listed is not None:
            keys = [leg_key(leg) for leg in listed]
            # A complete list says which followed legs are gone; legs older than the window
            # the list covers are read one by one.
            older = [i for i in ids if i not in keys] if len(listed) >= MAX_LISTED else []
            await self._set_ids(keys + older)
            legs = listed + await self._read(older)
            return legs, len(legs)
        legs = await self._read(ids)
        read = {leg_key(leg) for leg in legs}
        gone = [key for key in ids if key not in read]
        current = await self.leg_ids()
        if gone:
            await self._set_ids([i for i in current if i not in gone])
        # A leg started while this refresh read the others stays listed (as it was shown).
        shown = self.coordinator.data
        added = [i for i in current if i not in ids]
        if added and shown is not None:
            legs = [item for item in shown.items if leg_key(item) in added] + legs
        return legs, len(legs)

    async def _read(self, ids: list[str]) -> list[RailStatusResponse]:
        """The statuses of each leg named, but those gone (404)."""
        gate = asyncio.Semaphore(PARALLEL_READS)
        rail = self._client().rail

        async def read(key: str) -> RailStatusResponse | None:
            async with gate:
                try:
                    return await rail.statuses(key, include_status_history=True)
                except NotFound:
                    return None

        found = await asyncio.gather(*(read(key) for key in ids))
        return [leg for leg in found if leg is not None]

    # --- writes and look-ups ---------------------------------------------------------------

    async def create(
        self, body: RailShipmentCreate
    ) -> tuple[RailShipmentResponse, RailStatusResponse]:
        """Start tracking a leg; the answer (with its info and warning messages) and the leg
        with its statuses, shown first in the list at once."""
        rail = self._client().rail
        created = await rail.create(body)
        leg = await rail.statuses(created.shipment.rail_leg_id, include_status_history=True)
        await self._follow(leg)
        return created, leg

    async def leg(self, leg_id: str) -> RailStatusResponse:
        """A leg with its equipment's statuses and their history, updated in the list; a leg
        deleted elsewhere leaves it (NotFound is raised)."""
        try:
            leg = await self._client().rail.statuses(leg_id, include_status_history=True)
        except NotFound:
            await self._forget(leg_id)
            raise
        await self._follow(leg)
        return leg

    async def look_up(self, identifier: RailShipmentIdentifier) -> RailStatusResponse:
        """The leg carrying a bill of lading or waybill (the newest when several do: its
        info message names the others), added to the list."""
        leg = await self._client().rail.statuses_by_identifier(
            identifier, include_status_history=True
        )
        await self._follow(leg)
        return leg

    async def delete(self, leg_id: str) -> None:
        """Stop tracking the leg; one already gone leaves the list all the same."""
        with contextlib.suppress(NotFound):
            await self._client().rail.delete(leg_id)
        await self._forget(leg_id)
