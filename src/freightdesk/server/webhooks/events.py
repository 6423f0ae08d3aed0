"""What receivers get: messages built from rows of the shipment change journal.

A granular configuration (with `webhookEventType`) gets one message per journal row of its
kind that passes its filters: the envelope `{eventId, eventType, createdDateTime, dataType,
context, data}`. A classic configuration (without it) gets, for each shipment that changed,
the shipment's whole tracking history: the JSON of GET /api/v4/shipments/{id}/tracking/history.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.tracking import TrackingHistory
from freightdesk.models.webhooks import ContextKind, ShipmentContext, WebhookEventType
from freightdesk.server.domain.shipments import share_link, shipment_context
from freightdesk.server.domain.tracking_reads import (
    Viewer,
    costs_of,
    events_of,
    exceptions_of,
    positions_of,
    sharing_context,
    shipment_view,
    states_of,
)
from freightdesk.server.tables.tracking import ChangeKind, Shipment, ShipmentChange
from freightdesk.server.tables.webhooks import WebhookConfigRow

# eventIds are derived from the journal row, so every configuration (and every retry) of one
# change carries the same id: receivers can deduplicate, operators can correlate.
_EVENT_IDS = uuid.UUID("5b0e8a4e-2f4c-4a51-9d7e-0c6c1f1f7a10")

DATA_TYPES = {
    WebhookEventType.EVENT_ADDED: "EventChange",
    WebhookEventType.EVENT_UPDATED: "EventChange",
    WebhookEventType.EVENT_REMOVED: "EventChange",
    WebhookEventType.STATE_ADDED: "StateChange",
    WebhookEventType.STATE_UPDATED: "StateChange",
    WebhookEventType.STATE_REMOVED: "StateChange",
    WebhookEventType.SHIPMENT_CREATED: "ShipmentChange",
    WebhookEventType.SHIPMENT_DELETED: "ShipmentChange",
    WebhookEventType.EXCEPTION_ADDED_OR_UPDATED: "ExceptionChange",
}

# Journal kinds that are not a change of the shipment's tracking history.
_NOT_HISTORY = frozenset({ChangeKind.SHIPMENT_SHARED.value, ChangeKind.SHIPMENT_UNSHARED.value})

CLASSIC_EVENT_TYPE = "shipment.trackingHistory"
PING_EVENT_TYPE = "webhook.ping"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class Target:
    """A configuration as the fan-out needs it."""

    id: int
    tenant_id: int
    event_type: str | None
    include_context: tuple[str, ...]
    event_types: frozenset[str]
    modes: frozenset[str]

    @classmethod
    def of(cls, row: WebhookConfigRow) -> Target:
        filters = row.filters or {}
        return cls(
            id=row.id,
            tenant_id=row.tenant_id,
            event_type=row.event_type,
            include_context=tuple(row.include_context or [ContextKind.SHIPMENT.value]),
            event_types=frozenset(filters.get("eventTypes") or ()),
            modes=frozenset(filters.get("transportationModes") or ()),
        )


@dataclass
class Facts:
    """One shipment as the messages of one fan-out batch describe it."""

    shipment: dict[str, Any]
    modes: frozenset[str]
    route: dict[str, Any]
    related: list[dict[str, Any]]


@dataclass
class Outgoing:
    """A message to insert into the outbox."""

    config_id: int
    tenant_id: int
    event_id: str
    event_type: str
    shipment_id: str
    body: str
    created_at: datetime


def event_id(change_id: int, what: str = "change") -> str:
    return str(uuid.uuid5(_EVENT_IDS, f"{what}:{change_id}"))


def _modes(data: Mapping[str, Any], mode: str | None) -> frozenset[str]:
    found = {mode} if mode else set()
    plan = data.get("plan") or {}
    found.update(plan.get("expectedTransportationModes") or ())
    route = data.get("routeInfo") or {}
    for segment in route.get("routeSegments") or ():
        if segment.get("transportationMode"):
            found.add(segment["transportationMode"])
    return frozenset(found)


def _facts(row: Shipment | None, last_known: dict[str, Any], base_url: str | None) -> Facts:
    if row is not None and row.deleted_at is None:
        shipment = ShipmentContext.model_validate(
            {**shipment_context(row), "shipmentShareLink": share_link(base_url or "", row)}
        ).wire()
        route = row.data.get("routeInfo") or {}
        return Facts(
            shipment=shipment,
            modes=_modes(row.data, row.mode),
            route={
                "stops": route.get("stops") or [],
                "routeSegments": route.get("routeSegments") or [],
            },
            related=[
                {k: v for k, v in item.items() if k in ("id", "relationType")}
                for item in row.data.get("relatedShipments") or []
            ],
        )
    # Deleted since: what the journal kept of it.
    return Facts(
        shipment=ShipmentContext.model_validate(last_known).wire(),
        modes=frozenset({row.mode}) if row is not None and row.mode else frozenset(),
        route={"stops": [], "routeSegments": []},
        related=[],
    )


def data_of(kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The `data` (delta) of one kind; removed items carry their last known value."""
    if kind.startswith("shipments.v1.event."):
        return {"eventNotification": {"event": payload.get("event")}}
    if kind.startswith("shipments.v1.state."):
        return {"stateNotification": {"state": payload.get("state")}}
    if kind == WebhookEventType.EXCEPTION_ADDED_OR_UPDATED:
        return {"exceptionNotification": {"exception": payload.get("exception")}}
    if kind == WebhookEventType.SHIPMENT_DELETED:
        last = payload.get("shipment") or {"shipmentId": payload.get("shipmentId")}
        return {"shipmentNotification": {"shipment": ShipmentContext.model_validate(last).wire()}}
    return {}


def _context(facts: Facts, include: tuple[str, ...]) -> dict[str, Any]:
    context: dict[str, Any] = {"shipment": facts.shipment}
    if ContextKind.ROUTE.value in include:
        context["route"] = facts.route
    if ContextKind.RELATED_SHIPMENTS.value in include:
        context["relatedShipments"] = facts.related
    return context


def _passes(target: Target, change: ShipmentChange, facts: Facts) -> bool:
    if target.modes and not (target.modes & facts.modes):
        return False
    if target.event_types:
        event = change.payload.get("event") or {}
        return event.get("type") in target.event_types
    return True


@dataclass
class FanOut:
    """Builds the messages of one batch of journal rows for the configurations of their
    tenants; reads each shipment (and each classic history) once per batch."""

    session: Session
    base_url: str | None
    max_positions: int = 2000
    _facts: dict[str, Facts] = field(default_factory=dict)

    def messages(
        self, changes: Iterable[ShipmentChange], targets: Mapping[int, list[Target]]
    ) -> list[Outgoing]:
        changes = [c for c in changes if targets.get(c.tenant_id)]
        if not changes:
            return []
        rows = {
            row.id: row
            for row in self.session.scalars(
                select(Shipment).where(Shipment.id.in_({c.shipment_id for c in changes}))
            )
        }
        out: list[Outgoing] = []
        # Classic push: one history per shipment per batch, sent after its last change.
        classic_last: dict[tuple[int, str], ShipmentChange] = {}
        bodies: dict[tuple[int, tuple[str, ...]], str] = {}
        # A shipment deleted by now is described by the last value the journal kept.
        last_known: dict[str, dict[str, Any]] = {}
        for change in changes:
            if "shipment" in change.payload:
                last_known[change.shipment_id] = dict(change.payload["shipment"])
        for change in changes:
            facts = self._facts.get(change.shipment_id)
            if facts is None:
                known = last_known.get(change.shipment_id, {"shipmentId": change.shipment_id})
                facts = _facts(rows.get(change.shipment_id), known, self.base_url)
                self._facts[change.shipment_id] = facts
            for target in targets[change.tenant_id]:
                if target.event_type is None:
                    if change.kind not in _NOT_HISTORY and _passes_modes(target, facts):
                        classic_last[(target.id, change.shipment_id)] = change
                    continue
                if target.event_type != change.kind or not _passes(target, change, facts):
                    continue
                key = (change.id, target.include_context)
                body = bodies.get(key)
                if body is None:
                    body = _dumps(
                        {
                            "eventId": event_id(change.id),
                            "eventType": change.kind,
                            "createdDateTime": iso(change.created_at),
                            "dataType": DATA_TYPES[WebhookEventType(change.kind)],
                            "context": _context(facts, target.include_context),
                            "data": data_of(change.kind, change.payload),
                        }
                    )
                    bodies[key] = body
                out.append(
                    Outgoing(
                        config_id=target.id,
                        tenant_id=target.tenant_id,
                        event_id=event_id(change.id),
                        event_type=change.kind,
                        shipment_id=change.shipment_id,
                        body=body,
                        created_at=change.created_at,
                    )
                )
        out.extend(self._classic(classic_last, rows, targets))
        return out

    def _classic(
        self,
        last: dict[tuple[int, str], ShipmentChange],
        rows: Mapping[str, Shipment],
        targets: Mapping[int, list[Target]],
    ) -> list[Outgoing]:
        histories: dict[str, str | None] = {}
        out: list[Outgoing] = []
        tenant_of = {t.id: t.tenant_id for ts in targets.values() for t in ts}
        for (config_id, shipment_id), change in sorted(last.items(), key=lambda i: i[1].id):
            if shipment_id not in histories:
                row = rows.get(shipment_id)
                histories[shipment_id] = (
                    tracking_history(self.session, row, self.base_url, self.max_positions)
                    if row is not None and row.deleted_at is None
                    else None
                )
            body = histories[shipment_id]
            if body is None:
                continue  # deleted: there is no history any more
            out.append(
                Outgoing(
                    config_id=config_id,
                    tenant_id=tenant_of[config_id],
                    event_id=event_id(change.id, f"classic:{config_id}"),
                    event_type=CLASSIC_EVENT_TYPE,
                    shipment_id=shipment_id,
                    body=body,
                    created_at=change.created_at,
                )
            )
        return out


def tracking_history(
    session: Session, row: Shipment, base_url: str | None, max_positions: int
) -> str:
    """The JSON of GET /api/v4/shipments/{id}/tracking/history as the owner sees it."""
    viewer = Viewer(row.tenant_id)
    history = TrackingHistory(
        costs=costs_of(row),
        events=events_of(session, row),
        exceptions=exceptions_of(session, row),
        positions=positions_of(session, row, max_positions),
        shipment=shipment_view(row, base_url=base_url or "", viewer=viewer, include_costs=False),
        states=states_of(session, row),
        sharing_context=sharing_context(session, row, viewer),
    )
    return history.model_dump_json(by_alias=True, exclude_none=True)


def _passes_modes(target: Target, facts: Facts) -> bool:
    return not target.modes or bool(target.modes & facts.modes)


def ping_body(event_id_: str, config_name: str, created: datetime) -> str:
    return _dumps(
        {
            "eventId": event_id_,
            "eventType": PING_EVENT_TYPE,
            "createdDateTime": iso(created),
            "dataType": "Ping",
            "data": {
                "configName": config_name,
                "message": "A test message from FreightDesk; no shipment changed.",
            },
        }
    )
