"""The local service's demo preparation (extension): how many of its shipments are stored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from freightdesk.api.errors import NotFound
from freightdesk.api.parsing import parse_as
from freightdesk.models.base import WireModel

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

STATUS_PATH = "/services/demo/v1/status"


class DemoStatus(WireModel):
    """`preparing` while shipments are still being written; `shipments_total` is 0 until
    the service has counted them."""

    state: Literal["none", "preparing", "ready"]
    shipments_ready: int = 0
    shipments_total: int = 0


class DemoApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def status(self) -> DemoStatus | None:
        """The demo's preparation; None from a service without the extension."""
        try:
            response = await self._client.request("GET", STATUS_PATH, idempotent=True)
        except NotFound:
            return None
        return parse_as(DemoStatus, response)
