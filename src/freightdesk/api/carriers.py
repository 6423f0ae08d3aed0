"""Carrier profiles (an extension of the local service): the carriers a tenant is connected
to and how the simulated ones answer quotes and bookings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk.api.parsing import parse
from freightdesk.models.booking import (
    CarrierName,
    CarrierNameList,
    CarrierProfile,
    CarrierProfileInput,
    CarrierProfileList,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/services/carriers/v1/profiles"
NAMES_PATH = "/services/carriers/v1/names"


class CarriersApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def available(self) -> bool:
        """Whether the connected service offers carrier profiles."""
        return await self._client.has_extension("GET", PATH)

    async def has_names(self) -> bool:
        """Whether the connected service names the carriers it knows."""
        return await self._client.has_extension("GET", NAMES_PATH)

    async def names(self) -> list[CarrierName]:
        """Every carrier the service knows a name of, as the tenant names it."""
        response = await self._client.request("GET", NAMES_PATH)
        return parse(CarrierNameList, response).carriers

    async def list(self) -> list[CarrierProfile]:
        """The built-in carriers and every carrier the tenant configured."""
        response = await self._client.request("GET", PATH)
        return parse(CarrierProfileList, response).carriers

    async def get(self, scac: str) -> CarrierProfile:
        """Any SCAC has a profile: configured, built in, or derived defaults."""
        response = await self._client.request("GET", f"{PATH}/{scac}")
        return parse(CarrierProfile, response)

    async def put(self, scac: str, profile: CarrierProfileInput) -> CarrierProfile:
        """Set how the carrier behaves for this tenant; fields left out keep the defaults."""
        response = await self._client.request(
            "PUT", f"{PATH}/{scac}", json=profile.wire(exclude_unset=True)
        )
        return parse(CarrierProfile, response)

    async def delete(self, scac: str) -> None:
        """Forget the tenant's settings for the carrier (404 when there were none)."""
        await self._client.request("DELETE", f"{PATH}/{scac}")
