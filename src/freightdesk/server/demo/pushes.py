"""The demo tenant's push configurations (webhook endpoints).

They point at the shipper's imaginary systems under the reserved `.example` domain and are
saved paused (`enabled: false`), so a demo never sends anything off the machine; a user can
look at them, edit them and point one at a real receiver. Each says so as the reason it is
paused: nobody paused it, and the service's reason for a pause asked for ("by a PUT") would
have the app say a user did.
"""

from __future__ import annotations

import random
import string

from sqlalchemy.orm import Session

from freightdesk.models.webhooks import PushConfigurationInput
from freightdesk.server.webhooks import configs
from freightdesk.server.webhooks.secret_box import SecretBox

PAUSED_REASON = "saved paused in the demo data, so nothing is sent off this machine"


def _secret(rng: random.Random, length: int = 32) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length))


def configurations(rng: random.Random) -> list[PushConfigurationInput]:
    bodies = [
        {
            "configName": "erp-milestones",
            "url": "https://erp.alderfinch.example/hooks/freightdesk/events",
            "methodHeaders": {"X-Source": "freightdesk"},
            "authenticationMethods": [
                {
                    "type": "API_KEY",
                    "parameters": {"headerName": "X-API-Key", "apiKey": _secret(rng)},
                }
            ],
            "webhookConfiguration": {
                "webhookEventType": "shipments.v1.event.added",
                "shipmentV1Event": {"includeContext": ["SHIPMENT", "ROUTE"]},
                "filters": {"eventTypes": ["PICKED_UP", "ARRIVAL_AT_STOP", "DELIVERED"]},
            },
        },
        {
            "configName": "customer-portal-states",
            "url": "https://portal.alderfinch.example/api/tracking/states",
            "authenticationMethods": [
                {
                    "type": "OAUTH2",
                    "parameters": {
                        "tokenUrl": "https://login.alderfinch.example/oauth2/token",
                        "clientId": "freightdesk-push",
                        "clientSecret": _secret(rng),
                        "scope": "tracking.write",
                    },
                }
            ],
            "webhookConfiguration": {"webhookEventType": "shipments.v1.state.added"},
        },
        {
            "configName": "exception-alerts",
            "url": "https://alerts.alderfinch.example/freightdesk/exceptions",
            "authenticationMethods": [
                {
                    "type": "BASIC",
                    "parameters": {"username": "freightdesk", "password": _secret(rng)},
                }
            ],
            "webhookConfiguration": {
                "webhookEventType": "shipments.v1.exception.addedOrUpdated",
                "shipmentV1Event": {"includeContext": ["SHIPMENT", "RELATED_SHIPMENTS"]},
            },
        },
        {
            "configName": "ocean-import-desk",
            "url": "https://tms.alderfinch.example/ocean/updates",
            "method": "PUT",
            "methodParams": {"feed": "freightdesk", "region": "na"},
            "authenticationMethods": [
                {
                    "type": "API_KEY",
                    "parameters": {"headerName": "X-TMS-Key", "apiKey": _secret(rng)},
                }
            ],
            "webhookConfiguration": {
                "webhookEventType": "shipments.v1.event.added",
                "filters": {"transportationModes": ["OCEAN", "AIR"]},
            },
        },
    ]
    return [
        PushConfigurationInput.model_validate(body | {"enabled": False, "version": 1})
        for body in bodies
    ]


def save(session: Session, tenant_id: int, rng: random.Random, box: SecretBox | None) -> None:
    """The demo's configurations saved for tenant `tenant_id`, paused for the demo's reason."""
    for body in configurations(rng):
        row, _secret = configs.save(session, tenant_id, body, box)
        row.disabled_reason = PAUSED_REASON
