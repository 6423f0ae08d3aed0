"""Push configurations (webhooks) for the app: the tenant's list, create and edit, delete, and
where the service offers them, a test delivery and the delivery log."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.models.base import error_location
from freightdesk.models.webhooks import (
    MAX_CONFIGURATIONS_PER_TENANT,
    PARAMETERS_BY_TYPE,
    AuthenticationType,
    DeliveryList,
    DeliveryStatus,
    PingResult,
    PushConfiguration,
    PushConfigurationInput,
    Redelivery,
    SigningSecret,
)
from freightdesk.service.cache import Cache
from freightdesk.service.listing import ListService, Params
from freightdesk.service.validation import message_of, path_of, problems_of

LIMIT_TEXT = (
    f"A tenant can have at most {MAX_CONFIGURATIONS_PER_TENANT} push configurations. "
    "Delete one you no longer need before adding another."
)


def check_configuration(
    wire: dict[str, Any],
) -> tuple[PushConfigurationInput | None, dict[str, str]]:
    """The request for a configuration given as wire fields, or the problems by field path.

    Runs the rules the service applies to the shape, including each authentication
    method's parameters, so most mistakes are shown before anything is sent.
    """
    problems: dict[str, str] = {}
    if not str(wire.get("configName", "")).strip():
        problems["configName"] = "Enter a name for this configuration"
    if not str(wire.get("url", "")).strip():
        problems["url"] = "Enter the address of the receiving endpoint"
    for index, method in enumerate(wire.get("authenticationMethods") or []):
        try:
            kind = AuthenticationType(method.get("type"))
        except ValueError:
            problems[f"authenticationMethods[{index}].type"] = "Choose an authentication type"
            continue
        try:
            PARAMETERS_BY_TYPE[kind].model_validate(method.get("parameters") or {})
        except ValidationError as exc:
            for error in exc.errors():
                where = path_of(error_location(error))
                key = f"authenticationMethods[{index}].parameters.{where}"
                problems.setdefault(key, message_of(error))
    try:
        configuration = PushConfigurationInput.model_validate(wire)
    except ValidationError as exc:
        for key, message in problems_of(exc).items():
            problems.setdefault(key, message)
        return None, problems
    if problems:
        return None, problems
    return configuration, {}


@dataclass(frozen=True)
class WebhookExtensions:
    """Which operators' extensions the connected service offers."""

    ping: bool = False
    delivery_log: bool = False
    rotate_secret: bool = False


class WebhooksService(ListService[PushConfiguration]):
    kind = "webhooks"

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 60.0
    ) -> None:
        super().__init__(cache, PushConfiguration, lambda c: str(c.id), interval=interval)
        self._client = client
        self._extensions: WebhookExtensions | None = None

    async def fetch_items(self, params: Params) -> tuple[Sequence[PushConfiguration], int]:
        configurations = await self._client().webhooks.list()
        return configurations, len(configurations)

    def sort_key(self, item: PushConfiguration) -> Any:
        return item.id  # the service lists them in the order they were made

    @property
    def at_limit(self) -> bool:
        data = self.coordinator.data
        return data is not None and len(data.items) >= MAX_CONFIGURATIONS_PER_TENANT

    async def save(self, configuration: PushConfigurationInput) -> PushConfiguration:
        """Create (no id) or replace; the list shows it before this returns. The answer to a
        create carries the signing secret, shown to the user only this once."""
        saved = await self._client().webhooks.put(configuration)
        await self.upsert(saved.model_copy(update={"signing_secret": None}))
        return saved

    async def set_enabled(
        self, configuration: PushConfiguration, enabled: bool
    ) -> PushConfiguration:
        """Pause or resume deliveries: the configuration sent back as it was read (masked
        secrets keep the stored ones) with only `enabled` changed."""
        wire = configuration.model_dump(by_alias=True, mode="json", exclude_none=True)
        wire["enabled"] = enabled
        return await self.save(PushConfigurationInput.model_validate(wire))

    async def get(self, webhook_id: int) -> PushConfiguration:
        return await self._client().webhooks.get(webhook_id)

    async def name_taken(self, name: str, own_id: int | None = None) -> bool:
        """Whether another configuration of the tenant (not `own_id`) has this name: asked
        by name (the interface's GET by name), so configurations made elsewhere count too."""
        try:
            found = await self._client().webhooks.get_by_name(name.strip())
        except NotFound:
            return False
        return found.id != own_id

    async def delete(self, webhook_id: int) -> None:
        with contextlib.suppress(NotFound):  # already gone: the wish is met
            await self._client().webhooks.delete(webhook_id)
        await self.remove(str(webhook_id))

    # --- extensions ------------------------------------------------------------------------

    async def extensions(self) -> WebhookExtensions:
        if self._extensions is None:
            api = self._client().webhooks
            self._extensions = WebhookExtensions(
                ping=await api.has_ping(),
                delivery_log=await api.has_delivery_log(),
                rotate_secret=await api.has_signing_secret_rotation(),
            )
        return self._extensions

    async def ping(self, webhook_id: int) -> PingResult:
        return await self._client().webhooks.ping(webhook_id)

    async def deliveries(
        self,
        webhook_id: int,
        *,
        status: DeliveryStatus | None = None,
        offset: int = 0,
        page_size: int = 50,
    ) -> DeliveryList:
        return await self._client().webhooks.deliveries(
            webhook_id, status=status, offset=offset, page_size=page_size
        )

    async def redeliver(self, webhook_id: int, message_id: int) -> Redelivery:
        return await self._client().webhooks.redeliver(webhook_id, message_id)

    async def rotate_signing_secret(self, webhook_id: int) -> SigningSecret:
        """A new signing secret, shown only in this answer; the previous one keeps signing
        alongside until `previous_secret_expires_date_time`."""
        return await self._client().webhooks.rotate_signing_secret(webhook_id)
