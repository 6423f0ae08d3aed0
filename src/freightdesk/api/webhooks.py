"""Push configurations (webhooks), and the local service's operators' extensions: the
delivery log, redelivery, a test ping and signing secret rotation."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from freightdesk.api.parsing import parse
from freightdesk.models.webhooks import (
    DeliveryList,
    DeliveryStatus,
    PingResult,
    PushConfiguration,
    PushConfigurationInput,
    PushConfigurationList,
    Redelivery,
    SigningSecret,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/api/v4/webhooks"
# The extensions' paths; the service still answers at the former `{PATH}/{webhookId}/...`.
EXTENSIONS_PATH = f"{PATH}/id"
DELIVERIES_PATH = f"{EXTENSIONS_PATH}/{{webhookId}}/deliveries"
PING_PATH = f"{EXTENSIONS_PATH}/{{webhookId}}/ping"
REDELIVER_PATH = f"{EXTENSIONS_PATH}/{{webhookId}}/deliveries/{{messageId}}/redeliver"
SIGNING_SECRET_PATH = f"{EXTENSIONS_PATH}/{{webhookId}}/signing-secret"


class WebhooksApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def list(self) -> list[PushConfiguration]:
        response = await self._client.request("GET", PATH)
        return parse(PushConfigurationList, response).webhook_endpoints

    async def put(self, configuration: PushConfigurationInput) -> PushConfiguration:
        """Create (no `id`) or replace (with `id`). Secrets sent back masked are kept."""
        response = await self._client.request(
            "PUT",
            PATH,
            json=configuration.wire(),
            # Without an id the PUT creates: repeating it blindly could create twice.
            idempotent=configuration.id is not None,
        )
        return parse(PushConfiguration, response)

    async def get(self, webhook_id: int) -> PushConfiguration:
        response = await self._client.request("GET", f"{PATH}/{webhook_id}")
        return parse(PushConfiguration, response)

    async def get_by_name(self, name: str) -> PushConfiguration:
        response = await self._client.request("GET", f"{PATH}/name/{quote(name, safe='')}")
        return parse(PushConfiguration, response)

    async def delete(self, webhook_id: int) -> None:
        await self._client.request("DELETE", f"{PATH}/{webhook_id}")

    # --- extensions ------------------------------------------------------------------------

    async def has_delivery_log(self) -> bool:
        return await self._client.has_extension("GET", DELIVERIES_PATH)

    async def has_ping(self) -> bool:
        return await self._client.has_extension("POST", PING_PATH)

    async def has_signing_secret_rotation(self) -> bool:
        return await self._client.has_extension("POST", SIGNING_SECRET_PATH)

    async def deliveries(
        self,
        webhook_id: int,
        *,
        status: DeliveryStatus | None = None,
        offset: int = 0,
        page_size: int = 20,
    ) -> DeliveryList:
        """The delivery log, newest first, each message with every attempt."""
        response = await self._client.request(
            "GET",
            f"{EXTENSIONS_PATH}/{webhook_id}/deliveries",
            params={
                "status": status.value if status else None,
                "offset": offset,
                "pageSize": page_size,
            },
        )
        return parse(DeliveryList, response)

    async def redeliver(self, webhook_id: int, message_id: int) -> Redelivery:
        """Queue one message again; not repeated blindly (it would queue it twice)."""
        response = await self._client.request(
            "POST", f"{EXTENSIONS_PATH}/{webhook_id}/deliveries/{message_id}/redeliver"
        )
        return parse(Redelivery, response)

    async def ping(self, webhook_id: int) -> PingResult:
        """Send a test message now and answer how the receiver took it."""
        response = await self._client.request("POST", f"{EXTENSIONS_PATH}/{webhook_id}/ping")
        return parse(PingResult, response)

    async def rotate_signing_secret(self, webhook_id: int) -> SigningSecret:
        response = await self._client.request(
            "POST", f"{EXTENSIONS_PATH}/{webhook_id}/signing-secret"
        )
        return parse(SigningSecret, response)
