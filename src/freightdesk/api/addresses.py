"""Postal address validation: v4, falling back to v3 on deployments that lack v4."""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk.api.errors import ApiError
from freightdesk.api.parsing import parse
from freightdesk.models.addresses import AddressInput
from freightdesk.models.common import Address

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

V4_PATH = "/api/v4/address/validate"
V3_PATH = "/api/v3/address/validate"
# What a deployment without the operation answers (no route, or no POST on it).
_MISSING = (404, 405)


class AddressesApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client
        self._v4_missing = False

    async def validate(self, address: AddressInput | Address) -> Address:
        """The address in canonical form; BadRequest names each field that cannot be valid.

        Only the format and the region are checked (the local service has no geocoder).
        """
        body = address.wire(exclude_none=True)
        if not self._v4_missing:
            try:
                response = await self._client.request("POST", V4_PATH, json=body, idempotent=True)
                return parse(Address, response)
            except ApiError as exc:
                if exc.status not in _MISSING:
                    raise
                self._v4_missing = True
        response = await self._client.request("POST", V3_PATH, json=body, idempotent=True)
        return parse(Address, response)
