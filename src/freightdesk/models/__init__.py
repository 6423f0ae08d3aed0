"""The shapes of the interface (pydantic models), for the app, the local service and scripts
(see docs/scripting.md): the ones a script builds and reads most are exported here::

    from freightdesk.models import StopLocationInput, TrackingHistory

The rest are in the module of their area (`freightdesk.models.rating`, ...). Loaded on first
use: importing one area does not load the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from freightdesk._lazy import lazy_exports

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


__getattr__ = lazy_exports(
    __name__,
    __all__,
    (
        "freightdesk.models.addresses",
        "freightdesk.models.common",
        "freightdesk.models.documents",
        "freightdesk.models.errors",
        "freightdesk.models.push",
        "freightdesk.models.stop_locations",
        "freightdesk.models.tracking",
        "freightdesk.models.webhooks",
    ),
)
