"""The push configurations client against the real local service, with its extensions."""

from __future__ import annotations

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, Conflict, NotFound
from freightdesk.models.webhooks import (
    MASK,
    AuthenticationMethod,
    AuthenticationType,
    ContextKind,
    PushConfigurationInput,
    ShipmentV1Event,
    WebhookConfiguration,
    WebhookEventType,
)
from tests.server.test_webhooks_support import receiver


def _config(
    name: str, url: str = "https://hooks.example.com/in", **changes: object
) -> PushConfigurationInput:
    fields: dict[str, object] = {
        "config_name": name,
        "url": url,
        "method_headers": {"X-Team": "dispatch"},
        "method_params": {"source": "freightdesk"},
        "authentication_methods": [
            AuthenticationMethod(
                type=AuthenticationType.API_KEY, parameters={"apiKey": "s3cret-key"}
            )
        ],
        "webhook_configuration": WebhookConfiguration(
            webhook_event_type=WebhookEventType.EVENT_ADDED,
            shipment_v1_event=ShipmentV1Event(include_context=[ContextKind.ROUTE]),
        ),
    }
    fields.update(changes)
    return PushConfigurationInput.model_validate(fields)


async def test_create_read_edit_with_masked_secret_and_delete(client: ApiClient) -> None:
    created = await client.webhooks.put(_config("Orders feed"))
    assert created.signing_secret
    assert created.authentication_methods[0].parameters["apiKey"] == MASK
    assert [c.config_name for c in await client.webhooks.list()] == ["Orders feed"]
    by_name = await client.webhooks.get_by_name("Orders feed")
    assert by_name.id == created.id and by_name.signing_secret is None
    # The form sends the masked value back: the stored key is kept.
    edited = PushConfigurationInput.model_validate(
        {**by_name.wire(), "url": "https://hooks.example.com/v2", "version": 2}
    )
    saved = await client.webhooks.put(edited)
    assert (saved.url, saved.version) == ("https://hooks.example.com/v2", 2)
    assert (await client.webhooks.get(created.id)).webhook_configuration == (
        created.webhook_configuration
    )
    await client.webhooks.delete(created.id)
    with pytest.raises(NotFound):
        await client.webhooks.get(created.id)


async def test_refusals_name_the_field(client: ApiClient) -> None:
    await client.webhooks.put(_config("Dup"))
    with pytest.raises(Conflict) as duplicate:
        await client.webhooks.put(_config("Dup"))
    assert "configName" in duplicate.value.field_errors()
    with pytest.raises(BadRequest) as bad:
        await client.webhooks.put(
            _config(
                "Mask",
                authentication_methods=[
                    AuthenticationMethod(
                        type=AuthenticationType.API_KEY, parameters={"apiKey": MASK}
                    )
                ],
            )
        )
    assert any(k.startswith("authenticationMethods[0]") for k in bad.value.field_errors())


async def test_ping_and_delivery_log(client: ApiClient) -> None:
    with receiver() as hook:
        created = await client.webhooks.put(
            _config("Ping me", url=hook.url(), authentication_methods=[])
        )
        assert await client.webhooks.has_ping() and await client.webhooks.has_delivery_log()
        result = await client.webhooks.ping(created.id)
        assert result.delivered and result.status_code == 200
        log = await client.webhooks.deliveries(created.id)
        assert [d.message_id for d in log.deliveries] == [result.message_id]
        assert log.deliveries[0].attempts[0].status_code == 200
        with pytest.raises(Conflict):  # a ping is never redelivered
            await client.webhooks.redeliver(created.id, result.message_id)
        rotated = await client.webhooks.rotate_signing_secret(created.id)
        assert rotated.signing_secret != created.signing_secret
