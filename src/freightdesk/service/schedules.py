"""Ocean sailing schedules for the app: the sailings between two ports, page by page.

The last search's page is a `ListService` list (kept in the profile cache, so the pane opens
with it and keeps it, with its age, when the service is away). The interface has no port
lookup, so the app offers the world's container ports it knows (models/ports.py) by name
from the start, and learns the names the service answers with: every port call of a result
(origin, destination, transshipment hubs) is remembered in the cache and named as the service
names it. A port is also taken by its UN/LOCODE as typed.

`check_search` runs the service's own rules (models/schedule_rules.py), so the form marks every
problem beside its field (keyed by the query parameter's name) before anything is sent.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from typing import Any

from freightdesk.api.client import ApiClient
from freightdesk.api.schedules import ScheduleSearch
from freightdesk.models.ports import port_rows
from freightdesk.models.schedule_rules import (
    any_window_problems,
    ports_problems,
    scac_problems,
    window_problems,
)
from freightdesk.models.schedules import (
    MAX_TRANSSHIPMENTS,
    OceanCarrier,
    PointToPointRoute,
    PortCall,
    ScheduleSort,
    Transshipment,
)
from freightdesk.service.cache import Cache
from freightdesk.service.carrier_codes import carrier_codes
from freightdesk.service.carrier_names import CARRIER_NAMES
from freightdesk.service.kept_json import keep_json, kept_json
from freightdesk.service.listing import ListService, Params
from freightdesk.service.messages import plain

KIND = "sailing_schedules"
PORTS_META = f"{KIND}:ports"
CARRIERS_META = f"{KIND}:carriers"
PAGE_SIZE = 25
# "Rotterdam, NL (NLRTM)": the completer's text of a port; the code in brackets decides.
_CODE_IN_TEXT = re.compile(r"\(([A-Za-z0-9]{5})\)\s*$")


@dataclass(frozen=True)
class Port:
    """A port as the app words it, one rule wherever a port shows: by its name in a line of
    ports (`short`: a route, the stops), said whole with its country and code where one port
    is named on its own (`text`: the form's completer, a tooltip, a sailing's legs)."""

    locode: str
    name: str
    country: str

    @property
    def short(self) -> str:
        """`Rotterdam`; the code where no name is known."""
        return self.name or self.locode

    @property
    def text(self) -> str:
        """`Rotterdam, NL (NLRTM)`: the completer's entry, which `resolve_port` reads back."""
        if not self.name:
            return self.locode
        return f"{self.name}, {self.country or self.locode[:2]} ({self.locode})"


@dataclass(frozen=True)
class SearchInput:
    """The form's fields as typed (dates from date pickers, None where a window is off)."""

    origin: str
    destination: str
    departure: tuple[date, date] | None = None
    arrival: tuple[date, date] | None = None
    carriers: str = ""
    transshipments_max: int | None = None
    sort: ScheduleSort = ScheduleSort.DEPARTURE_DATE_TIME


@cache
def _world_ports() -> dict[str, Port]:
    return {row.locode: Port(row.locode, row.name, row.country) for row in port_rows()}


@cache
def _world_zones() -> dict[str, str]:
    return {row.locode: row.time_zone for row in port_rows()}


def port_zone(locode: str) -> str | None:
    """The port's IANA zone, where the app knows the port: its calls read in it (`CET`), as
    every time at a place does (service/clock.offset_time); None for a port it does not know,
    whose calls read in the offset the service gave them."""
    return _world_zones().get(locode.upper())


def port_of(call: PortCall | Transshipment) -> Port:
    """The port of a call as the service named it, else as the app knows it, else its code."""
    known = _world_ports().get(call.locode)
    name = call.port_name.strip() or (known.name if known else "")
    return Port(call.locode, name, call.country or (known.country if known else ""))


def resolve_port(text: str, ports: Sequence[Port]) -> str | None:
    """The UN/LOCODE `text` names: a completer entry, a code, or a known port's exact name."""
    typed = text.strip()
    found = _CODE_IN_TEXT.search(typed)
    if found:
        return found.group(1).upper()
    by_name = [p for p in ports if p.name.casefold() == typed.casefold()]
    if len(by_name) == 1:
        return by_name[0].locode
    if len(typed) == 5 and typed.isalnum():
        return typed.upper()
    return None


def _carrier_codes(text: str) -> tuple[tuple[str, ...], str | None]:
    codes, problem = carrier_codes(text)  # by name or SCAC, as every carrier field
    if not problem:
        return tuple(codes), None
    # A word that no SCAC and no name could be (a digit in it: 'HOCS 12') is refused in the
    # service's own words, as the service would refuse it (models.schedule_rules).
    unlettered = [
        word.upper() for word in re.split(r"[\s,;]+", text) if word and not word.isalpha()
    ]
    found = scac_problems(unlettered)
    return (), found[0][1] if found else problem


def check_search(
    typed: SearchInput, ports: Sequence[Port]
) -> tuple[ScheduleSearch | None, dict[str, str]]:
    """The search the form asks for, or its problems by query parameter name."""
    problems: dict[str, str] = {}
    codes: dict[str, str | None] = {}
    for name, text in (("origin", typed.origin), ("destination", typed.destination)):
        codes[name] = resolve_port(text, ports)
        if not text.strip():
            problems[name] = "Enter a port: its name or its UN/LOCODE (for example NLRTM)"
        elif codes[name] is None:
            problems[name] = (
                f"{text.strip()!r} is not a port FreightDesk knows: pick one from the list "
                "or type its UN/LOCODE (for example NLRTM)"
            )
    found = ports_problems(codes["origin"], codes["destination"])
    today = datetime.now(UTC).date()
    for kind, window in (("departure", typed.departure), ("arrival", typed.arrival)):
        start, end = window if window is not None else (None, None)
        found += window_problems(f"{kind}StartDate", start, f"{kind}EndDate", end, today)
    found += any_window_problems(typed.departure, typed.arrival)
    for name, message in found:
        problems.setdefault(name, message)
    carriers, carrier_problem = _carrier_codes(typed.carriers)
    if carrier_problem:
        problems["carrierCodes"] = carrier_problem
    most = typed.transshipments_max
    if most is not None and not 0 <= most <= MAX_TRANSSHIPMENTS:
        problems["transshipmentsMax"] = f"must be from 0 to {MAX_TRANSSHIPMENTS}"
    if problems:
        return None, plain(problems)
    origin, destination = codes["origin"], codes["destination"]
    assert origin is not None and destination is not None
    departure, arrival = typed.departure, typed.arrival
    return (
        ScheduleSearch(
            origin=origin,
            destination=destination,
            departure_start_date=departure[0] if departure else None,
            departure_end_date=departure[1] if departure else None,
            arrival_start_date=arrival[0] if arrival else None,
            arrival_end_date=arrival[1] if arrival else None,
            carrier_codes=carriers,
            transshipments_max=most,
            sort=typed.sort,
        ),
        {},
    )


def search_params(search: ScheduleSearch) -> Params:
    """The list's params of a search (its query parameters that are set)."""
    return {key: value for key, value in search.params().items() if value is not None}


def search_of(params: Params) -> ScheduleSearch | None:
    """The search a listing's params asked (None for no search yet)."""
    if not params.get("origin") or not params.get("destination"):
        return None

    def day(name: str) -> date | None:
        value = params.get(name)
        return date.fromisoformat(value) if value else None

    carriers = str(params.get("carrierCodes") or "")
    most = params.get("transshipmentsMax")
    return ScheduleSearch(
        origin=str(params["origin"]),
        destination=str(params["destination"]),
        departure_start_date=day("departureStartDate"),
        departure_end_date=day("departureEndDate"),
        arrival_start_date=day("arrivalStartDate"),
        arrival_end_date=day("arrivalEndDate"),
        carrier_codes=tuple(c for c in carriers.split(",") if c),
        transshipments_max=None if most is None else int(most),
        sort=ScheduleSort(params.get("sort", ScheduleSort.DEPARTURE_DATE_TIME)),
    )


def ports_of(routes: Sequence[PointToPointRoute]) -> list[Port]:
    """Every port the routes call at, as the service named it."""
    found: list[Port] = []
    for route in routes:
        calls: list[PortCall | Transshipment] = [route.departure, route.arrival]
        calls += [call for leg in route.legs for call in (leg.departure, leg.arrival)]
        found += [port_of(call) for call in (*calls, *route.transshipments)]
    return [port for port in found if port.name]


class SchedulesService(ListService[PointToPointRoute]):
    kind = KIND

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 300.0
    ) -> None:
        # Sailings move slowly; a poll now and then says whether the service is still there.
        super().__init__(cache, PointToPointRoute, lambda r: r.route_id, interval=interval)
        self._client = client
        self._ports: dict[str, Port] = {}
        self._ports_loaded = False

    async def fetch_items(self, params: Params) -> tuple[Sequence[PointToPointRoute], int]:
        search = search_of(params)
        if search is None:
            return [], 0  # nothing asked yet: nothing to fetch
        page = await self._client().schedules.routes_page(
            search,
            page_number=int(params.get("pageNumber", 1)),
            page_size=int(params.get("pageSize", PAGE_SIZE)),
        )
        await self._learn(ports_of(page.results))
        CARRIER_NAMES.learn((r.carrier_code, r.carrier_name) for r in page.results)
        return page.results, page.pagination_info.total

    def sort_key(self, item: PointToPointRoute) -> Any:
        return item.departure.date_time

    # --- ports and carriers the service has named ------------------------------------------

    def _load_ports(self) -> None:
        if self._ports_loaded:
            return
        self._ports_loaded = True
        text = self.cache.meta(PORTS_META)
        for row in json.loads(text) if text else []:
            port = Port(*row)
            self._ports.setdefault(port.locode, port)
        for locode, known in _world_ports().items():  # the service's own names first
            self._ports.setdefault(locode, known)

    async def ports(self) -> list[Port]:
        """The ports known so far, by name."""
        await asyncio.to_thread(self._load_ports)
        return sorted(self._ports.values(), key=lambda p: (p.name, p.locode))

    async def _learn(self, ports: Sequence[Port]) -> None:
        await asyncio.to_thread(self._load_ports)
        new = [p for p in ports if self._ports.get(p.locode) != p]
        if not new:
            return
        for port in new:
            self._ports[port.locode] = port
        world = _world_ports()
        learned = [p for p in self._ports.values() if world.get(p.locode) != p]
        rows = [[p.locode, p.name, p.country] for p in learned]
        await keep_json(self.cache, PORTS_META, rows)

    async def carriers(self) -> list[OceanCarrier]:
        """The live carriers (from the service; the last known ones when it cannot answer)."""
        try:
            carriers = await self._client().schedules.carriers()
        except Exception:
            kept = await kept_json(self.cache, CARRIERS_META)
            if not isinstance(kept, list):
                raise
            return [OceanCarrier.model_validate(c) for c in kept]
        await keep_json(self.cache, CARRIERS_META, [c.wire() for c in carriers])
        CARRIER_NAMES.learn((c.carrier_code, c.carrier_name) for c in carriers)
        return carriers
