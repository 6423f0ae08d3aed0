"""Row values and checks the writers share: sources, events, states, identifiers, the
data summary columns."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from freightdesk.models.common import TransportationMode, utc_datetime
from freightdesk.models.tracking import (
    ETA_EVENT_TYPE as ETA_EVENT_TYPE,  # the app's rule's (is_estimate), for the domain
)
from freightdesk.models.tracking import (
    ExceptionStatus,
    ShipmentException,
    ShipmentStateType,
    TrackedShipmentEvent,
    TrackedShipmentState,
)
from freightdesk.server.domain.identifiers import normalize_value
from freightdesk.server.domain.shipment_rules import PreparedShipment
from freightdesk.server.errors import field_error
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentDocument,
    ShipmentEvent,
    ShipmentExceptionRow,
)

# Sources besides the transportation modes.
USER = "USER"  # events recorded by the user through PUT tracking
SYSTEM = "SYSTEM"  # what the service itself records (the initial SCHEDULED state)
SOURCES = frozenset({USER, SYSTEM, *(mode.value for mode in TransportationMode)})


def check_source(source: str) -> None:
    if source not in SOURCES:
        raise ValueError(f"unknown tracking source {source!r}; use a transportation mode or USER")


STATE_RANK = {state: rank for rank, state in enumerate(ShipmentStateType)}


def set_current_state(row: Shipment, state: ShipmentStateType | None) -> None:
    row.current_state = state.value if state is not None else None
    row.state_rank = STATE_RANK[state] if state is not None else None


def store_data(session: Session, row: Shipment, data: dict[str, Any]) -> None:
    """Replace the user-provided data (kept in shipment_documents; `Shipment.data` reads it)."""
    session.execute(
        update(ShipmentDocument).where(ShipmentDocument.shipment_pk == row.pk).values(data=data)
    )
    set_committed_value(row, "data", data)


def identifier_rows_of(
    tenant_id: int, pk: int, identifiers: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return [
        {
            "tenant_id": tenant_id,
            "shipment_pk": pk,
            "type": identifier["type"],
            "value": identifier["value"],
            "value_norm": normalize_value(identifier["value"]),
        }
        for identifier in identifiers
    ]


def attribute_rows_of(
    tenant_id: int, pk: int, attributes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    rows = []
    for attribute in attributes:
        name = str(attribute["name"]).strip().casefold()
        values = list(attribute.get("values") or [])
        if attribute.get("value") is not None:
            values.append(attribute["value"])
        for value in dict.fromkeys(v.strip().casefold() for v in values) or [None]:
            rows.append({"tenant_id": tenant_id, "shipment_pk": pk, "name": name, "value": value})
    return rows


def data_summary(item: PreparedShipment) -> dict[str, Any]:
    stops = item.data.get("routeInfo", {}).get("stops", [])
    return {
        "primary_identifier": item.analysis.primary.value.strip(),
        "primary_sort": normalize_value(item.analysis.primary.value),
        "carrier": item.analysis.carrier,
        "origin_name": _stop_name(stops[0]) if stops else None,
        "destination_name": _stop_name(stops[-1]) if len(stops) > 1 else None,
    }


def _stop_name(stop: dict[str, Any]) -> str | None:
    name = stop.get("name")
    if name:
        return str(name)[:200]
    address = (stop.get("location") or {}).get("address") or {}
    parts = [address.get("city"), address.get("state")]
    text = ", ".join(str(part) for part in parts if part)
    return text[:200] or None


def stop_zone(data: Mapping[str, Any], stop_key: str | None) -> str | None:
    """The IANA zone of a stop of the shipment's route (its appointment window's), if any."""
    if stop_key is None:
        return None
    for stop in (data.get("routeInfo") or {}).get("stops", []):
        if str(stop.get("id")) == stop_key:
            zone = (stop.get("appointmentWindow") or {}).get("localTimeZoneIdentifier")
            return str(zone) if zone else None
    return None


def route_ids(row: Shipment) -> tuple[set[str], set[str]]:
    route = row.data.get("routeInfo") or {}
    stops = {str(stop["id"]) for stop in route.get("stops", []) if stop.get("id")}
    segments = {str(seg["id"]) for seg in route.get("routeSegments", []) if seg.get("id")}
    return stops, segments


def check_event_refs(
    event: TrackedShipmentEvent, stops: set[str], segments: set[str], path: str
) -> None:
    if event.stop_id is not None and str(event.stop_id) not in stops:
        raise field_error(f"{path}.stopId", "the shipment has no stop with this id")
    if event.route_segment_id is not None and str(event.route_segment_id) not in segments:
        raise field_error(
            f"{path}.routeSegmentId", "the shipment has no route segment with this id"
        )


def eta_event(
    event_id: str | None,
    eta: datetime,
    stop_key: str | None,
    description: str | None,
    now: datetime,
) -> TrackedShipmentEvent:
    """The ETA event of one stop (`event_id`: the one it replaces, if any)."""
    return TrackedShipmentEvent(
        id=uuid.UUID(event_id) if event_id is not None else uuid.uuid4(),
        type=ETA_EVENT_TYPE,
        description=description or "Estimated time of arrival",
        estimate_date_time=eta,
        estimate_last_calculated_date_time=now,
        received_date_time=now,
        stop_id=uuid.UUID(stop_key) if stop_key else None,
    )


def event_wire(event: TrackedShipmentEvent) -> dict[str, Any]:
    if event.id is None:
        event = event.model_copy(update={"id": uuid.uuid4()})
    return event.wire()


def event_time(event: TrackedShipmentEvent) -> datetime:
    assert event.date_time is not None
    return utc_datetime(event.date_time)


def occurred_at(wire: Mapping[str, Any]) -> datetime | None:
    for key in ("dateTime", "estimateDateTime", "plannedDateTime"):
        if wire.get(key):
            return wire_time(wire[key])
    return None


def wire_time(value: Any) -> datetime:
    return utc_datetime(datetime.fromisoformat(str(value).replace("Z", "+00:00")))


def event_row(pk: int, wire: dict[str, Any], source: str) -> dict[str, Any]:
    return {
        "id": wire["id"],
        "shipment_pk": pk,
        "source": source,
        "type": wire["type"],
        "occurred_at": occurred_at(wire),
        "date_time": wire_time(wire["dateTime"]) if wire.get("dateTime") else None,
        "data": wire,
    }


def apply_event(row: ShipmentEvent, wire: dict[str, Any]) -> None:
    row.type = wire["type"]
    row.occurred_at = occurred_at(wire)
    row.date_time = wire_time(wire["dateTime"]) if wire.get("dateTime") else None
    row.data = wire


def latest_of(events: Iterable[TrackedShipmentEvent]) -> TrackedShipmentEvent | None:
    happened = [event for event in events if event.date_time is not None]
    return max(happened, key=event_time) if happened else None


def latest_values(event: TrackedShipmentEvent, data: Mapping[str, Any]) -> dict[str, Any]:
    """The summary columns of a shipment's latest event; `data` is the shipment's wire data,
    whose route names the zone of the event's stop."""
    return {
        "latest_event_type": event.type,
        "latest_event_at": event_time(event),
        "latest_event_description": event.description,
        "latest_event_zone": stop_zone(data, str(event.stop_id) if event.stop_id else None),
    }


def state_row(pk: int, state: TrackedShipmentState, source: str) -> dict[str, Any]:
    return {
        "id": str(state.id),
        "shipment_pk": pk,
        "source": source,
        "type": state.type.value,
        "start_at": utc_datetime(state.start_date_time),
        "end_at": utc_datetime(state.end_date_time) if state.end_date_time else None,
        "stop_id": str(state.stop_id) if state.stop_id else None,
    }


def exception_row(
    session: Session,
    current: ShipmentExceptionRow | None,
    pk: int,
    key: str,
    exception: ShipmentException,
    source: str,
    now: datetime,
) -> ShipmentExceptionRow:
    """`current` (or a new row added to the session) set to what `exception` says."""
    closed = exception.status is ExceptionStatus.CLOSED
    resolved = (
        (utc_datetime(exception.resolved_date_time) if exception.resolved_date_time else now)
        if closed
        else None
    )
    if current is None:
        current = ShipmentExceptionRow(
            id=key,
            shipment_pk=pk,
            created_at=utc_datetime(exception.created_date_time)
            if exception.created_date_time
            else now,
        )
        session.add(current)
    current.source = source
    current.type = exception.type
    current.status = exception.status.value
    current.severity = exception.severity.value
    current.description = exception.description
    current.stop_id = str(exception.stop_id) if exception.stop_id else None
    current.resolved_at = resolved
    current.last_modified_at = now
    return current
