"""A booked booking's tracked shipment: created through `domain/shipments.py`, found by
`masterShipmentId`: the carrier's SCAC and every identifier tracking accepts for the mode, the
route of the rate request, and as attributes the shipper's booking attributes followed by the
carrier's reference keys, 25 in all; reference keys beyond that are left out."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from freightdesk.models.booking import (
    MAX_TRACKING_KEYS,
)
from freightdesk.models.common import TransportationMode
from freightdesk.models.tracking import TrackedShipmentInput
from freightdesk.server.domain import shipments
from freightdesk.server.domain.identifiers import ACCEPTED_BY_MODE, QUALIFIERS, normalize_value
from freightdesk.server.tables.booking import BookingRow
from freightdesk.server.tables.rating import RateRequestRow

__all__ = ["fold", "has_tracking_key", "initiate_tracking", "key_types", "tracking_attributes"]


def fold(text: str) -> str:
    """An attribute name or value as it is matched: trimmed, case folded."""
    return text.strip().casefold()


def key_types(mode: str | None) -> frozenset[str]:
    accepted = ACCEPTED_BY_MODE.get(TransportationMode(mode or "TL"), frozenset())
    return accepted - QUALIFIERS


def _tracking_identifiers(
    row: BookingRow, carrier_identifiers: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    mode = TransportationMode(row.transportation_mode or "TL")
    accepted = ACCEPTED_BY_MODE.get(mode, frozenset())
    carrier_type = row.document["capacityProviderIdentifier"]["type"]
    carrier_type = "FFW_SCAC" if carrier_type == "FFW_SCAC" else "CARRIER_SCAC"
    found: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    candidates = [{"type": carrier_type, "value": row.scac}]
    if carrier_type not in accepted:  # LTL: the carrier is the account's, its code the SCAC
        candidates.append({"type": "CAPACITY_PROVIDER_ACCOUNT_CODE", "value": row.scac})
    candidates += carrier_identifiers + list(row.shipment_identifiers)
    for identifier in candidates:
        kind, value = identifier["type"], str(identifier["value"]).strip()
        key = (kind, normalize_value(value))
        if kind in accepted and value and len(value) <= 200 and key not in seen:
            seen.add(key)
            found.append({"type": kind, "value": value})
    return found


def has_tracking_key(row: BookingRow, carrier_identifiers: list[dict[str, Any]]) -> bool:
    keys = key_types(row.transportation_mode)
    return any(i["type"] in keys for i in _tracking_identifiers(row, carrier_identifiers))


def tracking_attributes(
    attributes: list[dict[str, Any]], reference_keys: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The shipper's attributes, then the carrier's reference keys, 25 in all."""
    chosen: list[dict[str, Any]] = []
    names: set[str] = set()
    pairs = [(a["name"], a.get("values", [])) for a in attributes]
    pairs += [(k["key"], k.get("values", [])) for k in reference_keys]
    for name, values in pairs:
        if len(chosen) == MAX_TRACKING_KEYS:
            break
        if fold(name) in names:
            continue
        names.add(fold(name))
        chosen.append({"name": name.strip(), "values": list(values)})
    return chosen


def initiate_tracking(session: Session, row: BookingRow) -> str:
    body: dict[str, Any] = {
        "identifiers": _tracking_identifiers(row, row.carrier_provided_identifiers),
        "attributes": tracking_attributes(row.document.get("attributes", []), row.reference_keys),
        "plan": {"expectedTransportationModes": [row.transportation_mode or "TL"]},
    }
    request = session.get(RateRequestRow, row.rate_request_id) if row.rate_request_id else None
    if request is not None:
        route = request.document["rateDetail"]["routeInfo"]
        body["routeInfo"] = {
            "stops": [
                {
                    "id": stop["id"],
                    "type": stop["type"],
                    "name": stop["location"].get("name"),
                    "location": {
                        key: stop["location"][key]
                        for key in ("address", "coordinates")
                        if key in stop["location"]
                    },
                }
                for stop in route["stops"]
            ],
            "routeSegments": [
                {
                    "id": segment["id"],
                    "fromStopId": segment["fromStopId"],
                    "toStopId": segment["toStopId"],
                    "transportationMode": row.transportation_mode,
                }
                for segment in route.get("routeSegments", [])
            ],
        }
    return shipments.create_shipment(
        session, row.tenant_id, TrackedShipmentInput.model_validate(body)
    )
