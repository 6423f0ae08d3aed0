"""The shapes of the interface (pydantic models), for the app, the local service and scripts
(see docs/scripting.md): the ones a script builds and reads most are exported here::

    from freightdesk.models import StopLocationInput, TrackingHistory

The rest are in the module of their area (`freightdesk.models.rating`, ...). Loaded on first
use: importing one area does not load the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freightdesk.models.addresses import AddressInput
    from freightdesk.models.common import (
        Address,
        GeoCoordinates,
        IdentifierType,
        LogisticsIdentifier,
        Money,
        PaginationInfo,
        Weight,
    )
    from freightdesk.models.documents import (
        Document,
        DocumentSearch,
        DocumentSearchResults,
        DocumentType,
    )
    from freightdesk.models.errors import (
        ErrorBody,
        ErrorDetail,
    )
    from freightdesk.models.push import (
        Ingestion,
        IngestionStatus,
        ParcelEventType,
        ParcelStatusUpdate,
        TruckloadTrackingUpdate,
    )
    from freightdesk.models.stop_locations import (
        StopLocation,
        StopLocationInput,
    )
    from freightdesk.models.tracking import (
        TrackedShipment,
        TrackedShipmentInput,
        TrackingHistory,
    )
    from freightdesk.models.webhooks import (
        PushConfiguration,
        PushConfigurationInput,
    )

_EXPORTS = {
    "Address": "freightdesk.models.common",
    "GeoCoordinates": "freightdesk.models.common",
    "IdentifierType": "freightdesk.models.common",
    "LogisticsIdentifier": "freightdesk.models.common",
    "Money": "freightdesk.models.common",
    "PaginationInfo": "freightdesk.models.common",
    "Weight": "freightdesk.models.common",
    "AddressInput": "freightdesk.models.addresses",
    "StopLocation": "freightdesk.models.stop_locations",
    "StopLocationInput": "freightdesk.models.stop_locations",
    "TrackedShipment": "freightdesk.models.tracking",
    "TrackedShipmentInput": "freightdesk.models.tracking",
    "TrackingHistory": "freightdesk.models.tracking",
    "Document": "freightdesk.models.documents",
    "DocumentSearch": "freightdesk.models.documents",
    "DocumentSearchResults": "freightdesk.models.documents",
    "DocumentType": "freightdesk.models.documents",
    "Ingestion": "freightdesk.models.push",
    "IngestionStatus": "freightdesk.models.push",
    "ParcelEventType": "freightdesk.models.push",
    "ParcelStatusUpdate": "freightdesk.models.push",
    "TruckloadTrackingUpdate": "freightdesk.models.push",
    "PushConfiguration": "freightdesk.models.webhooks",
    "PushConfigurationInput": "freightdesk.models.webhooks",
    "ErrorBody": "freightdesk.models.errors",
    "ErrorDetail": "freightdesk.models.errors",
}

__all__ = [
    "Address",
    "AddressInput",
    "Document",
    "DocumentSearch",
    "DocumentSearchResults",
    "DocumentType",
    "ErrorBody",
    "ErrorDetail",
    "GeoCoordinates",
    "IdentifierType",
    "Ingestion",
    "IngestionStatus",
    "LogisticsIdentifier",
    "Money",
    "PaginationInfo",
    "ParcelEventType",
    "ParcelStatusUpdate",
    "PushConfiguration",
    "PushConfigurationInput",
    "StopLocation",
    "StopLocationInput",
    "TrackedShipment",
    "TrackedShipmentInput",
    "TrackingHistory",
    "TruckloadTrackingUpdate",
    "Weight",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'freightdesk.models' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
