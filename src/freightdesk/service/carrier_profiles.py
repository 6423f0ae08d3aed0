"""Carrier profiles (an extension of the local service) for the app: the carriers the tenant
is connected to, one looked up by its SCAC, its settings saved, or forgotten (the carrier
answers with its defaults again).

Any SCAC has a profile: the tenant's settings, else a built-in carrier's, else defaults the
service derives from the code. A PUT replaces the tenant's settings as a whole, so the pane
sends every field it shows and nothing else.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.models.booking import CarrierProfile, CarrierProfileInput
from freightdesk.models.rating import Scac
from freightdesk.service import carrier_names
from freightdesk.service.cache import Cache
from freightdesk.service.listing import ListService, Params
from freightdesk.service.validation import checked

_SCAC = TypeAdapter(Scac)
SCAC_TEXT = "A SCAC is 2 to 4 letters, e.g. GLKT"


def check_scac(text: str) -> tuple[str | None, str | None]:
    """The SCAC typed, in capitals, or why it is not one."""
    stripped = text.strip()
    if not stripped:
        return None, "Enter the carrier's SCAC (2 to 4 letters)"
    try:
        return _SCAC.validate_python(stripped).upper(), None
    except ValidationError:
        return None, f"{stripped!r} is not a SCAC. {SCAC_TEXT}"


def check_profile(wire: dict[str, Any]) -> tuple[CarrierProfileInput | None, dict[str, str]]:
    """The body of a save given as wire fields, or the problems by field path (the model's
    rules, a name that is more than spaces, and alternate SCACs that are SCACs)."""
    problems: dict[str, str] = {}
    if not str(wire.get("name") or "").strip():
        problems["name"] = "Enter the carrier's name"
    if not wire.get("modes"):
        problems["modes"] = "Tick at least one mode the carrier hauls"
    # The entries that are not SCACs, by name: the model's own words are its regex pattern,
    # one message per entry, and the field shows only one of them.
    wrong = [str(code) for code in wire.get("alternateScacs") or [] if check_scac(str(code))[1]]
    if wrong:
        named = " and ".join(repr(code) for code in wrong)
        verb = "is not a SCAC" if len(wrong) == 1 else "are not SCACs"
        problems["alternateScacs"] = f"{named} {verb}. {SCAC_TEXT}"
    body, found = checked(CarrierProfileInput, wire, problems)
    if wrong:
        found = {
            path: text for path, text in found.items() if not path.startswith("alternateScacs[")
        }
    return body, found


class CarrierProfilesService(ListService[CarrierProfile]):
    """The built-in carriers and those the tenant configured, by SCAC."""

    kind = "carrier_profiles"

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 120.0
    ) -> None:
        super().__init__(cache, CarrierProfile, lambda p: p.scac, interval=interval)
        self._client = client

    async def fetch_items(self, params: Params) -> tuple[Sequence[CarrierProfile], int]:
        carriers = await self._client().carriers.list()
        return carriers, len(carriers)

    def sort_key(self, item: CarrierProfile) -> Any:
        return item.scac  # the service's order

    async def available(self) -> bool:
        """Whether the connected service offers carrier profiles."""
        return await self._client().carriers.available()

    async def get(self, scac: str) -> CarrierProfile:
        """The carrier's profile as the service has it now; a row of the list that showed it
        is brought up to date too."""
        profile = await self._client().carriers.get(scac)
        current = self.coordinator.data
        if current is not None and current.index_of(profile.scac) is not None:
            await self.upsert(profile)
        return profile

    async def save(self, scac: str, body: CarrierProfileInput) -> CarrierProfile:
        """Replace the tenant's settings for the carrier; the list shows it before this
        returns. Refusals are the client's typed errors (400 naming `accountGroupCodes[0]`
        for a group the tenant does not have)."""
        saved = await self._client().carriers.put(scac, body)
        await self.upsert(saved)
        await carrier_names.refresh(self._client(), self.cache)  # a renamed carrier's lists
        return saved

    async def forget(self, scac: str) -> CarrierProfile:
        """Delete the tenant's settings: the carrier answers with its defaults again (a
        built-in carrier stays in the list; another leaves it). Answers the profile as it is
        now."""
        with contextlib.suppress(NotFound):  # nothing was set, or already forgotten
            await self._client().carriers.delete(scac)
        await self.coordinator.fetch_now()
        await carrier_names.refresh(self._client(), self.cache)  # named as before, or not
        return await self._client().carriers.get(scac)
