"""What receivers get: messages built from rows of the shipment change journal.

A granular configuration (with `webhookEventType`) gets one message per journal row of its
kind that passes its filters: the envelope `{eventId, eventType, createdDateTime, dataType,
context, data}`. A classic configuration (without it) gets, for each shipment that changed,
the shipment's whole tracking history: the JSON of GET /api/v4/shipments/{id}/tracking/history.

A change reaches the configurations of the shipment's owner and of every tenant the shipment
was shared with when the change was made, each seeing the shipment as it would through the
API (a carrier does not see attributes). Sharing itself sends the recipient's classic
configurations the history it can now read.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.tracking import TrackingHistory
from freightdesk.models.webhooks import ContextKind, ShipmentContext, WebhookEventType
from freightdesk.server.db import iso
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


CLASSIC_EVENT_TYPE = "shipment.trackingHistory"
PING_EVENT_TYPE = "webhook.ping"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Target:
    """A configuration as the fan-out needs it."""

    id: int
    tenant_id: int
    event_type: str | None
    include_context: tuple[str, ...]
    event_types: frozenset[str]
    modes: frozenset[str]
    # Its first journal id is above this (`WebhookConfigRow.journal_after`).
    after: int = 0
    # Paused: nothing above this journal id (`journal_paused_after`).
    paused_after: int | None = None
    # Earlier pauses: (after, through] of journal ids (`journal_paused`).
    paused: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, row: Any) -> Target:
        """From a WebhookConfigRow, or a row of its columns id, tenant_id, event_type,
        include_context, filters, journal_after, journal_paused_after and journal_paused."""
        filters = row.filters or {}
        return cls(
            id=row.id,
            tenant_id=row.tenant_id,
            event_type=row.event_type,
            include_context=tuple(row.include_context or [ContextKind.SHIPMENT.value]),
            event_types=frozenset(filters.get("eventTypes") or ()),
            modes=frozenset(filters.get("transportationModes") or ()),
            after=row.journal_after,
            paused_after=row.journal_paused_after,
            paused=tuple((after, through) for after, through in row.journal_paused or ()),
        )

    def takes(self, change_id: int) -> bool:
        """Whether a change was made after this configuration was created, while it was
        enabled: by journal ids, whenever the fan-out reads the change."""
        if change_id <= self.after:
            return False
        if self.paused_after is not None and change_id > self.paused_after:
            return False
        return not any(after < change_id <= through for after, through in self.paused)


@dataclass
class Facts:
    """One shipment as the messages of one fan-out batch describe it."""

    shipment: dict[str, Any]
    modes: frozenset[str]
    route: dict[str, Any]
    related: list[dict[str, Any]]


@dataclass(frozen=True)
class Payload:
    """A body to store once and send to every configuration that receives it."""

    event_id: str
    event_type: str
    shipment_id: str
    body: str
    created_at: datetime


@dataclass(frozen=True)
class Outgoing:
    """One delivery to insert into the outbox: a payload (by its index in the batch's list)
    for a configuration."""

    config_id: int
    payload: int
    shipment_id: str


@dataclass(frozen=True)
class Share:
    """A tenant a shipment is (or was) shared with, and when."""

    tenant_id: int
    since: datetime
    until: datetime | None
    # Attributes are not shared with carriers.
    hide_attributes: bool

    def covers(self, at: datetime) -> bool:
        return self.since <= at and (self.until is None or at < self.until)


@dataclass(frozen=True)
class Audience:
    """Whose configurations receive a change, and how that tenant sees the shipment."""

    tenant_id: int
    hide_attributes: bool = False
    classic_only: bool = False


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


def data_of(kind: str, payload: Mapping[str, Any], hide_attributes: bool = False) -> dict[str, Any]:
    """The `data` (delta) of one kind; removed items carry their last known value."""
    if kind.startswith("shipments.v1.event."):
        return {"eventNotification": {"event": payload.get("event")}}
    if kind.startswith("shipments.v1.state."):
        return {"stateNotification": {"state": payload.get("state")}}
    if kind == WebhookEventType.EXCEPTION_ADDED_OR_UPDATED:
        return {"exceptionNotification": {"exception": payload.get("exception")}}
    if kind == WebhookEventType.SHIPMENT_DELETED:
        last = payload.get("shipment") or {"shipmentId": payload.get("shipmentId")}
        shipment = ShipmentContext.model_validate(last).wire()
        if hide_attributes:
            shipment = _without_attributes(shipment)
        return {"shipmentNotification": {"shipment": shipment}}
    return {}


def _without_attributes(shipment: dict[str, Any]) -> dict[str, Any]:
    return {**shipment, "attributes": []}


def _context(facts: Facts, include: tuple[str, ...], hide_attributes: bool) -> dict[str, Any]:
    shipment = _without_attributes(facts.shipment) if hide_attributes else facts.shipment
    context: dict[str, Any] = {"shipment": shipment}
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
    """Builds the deliveries of one batch of journal rows: each change goes to the
    configurations of its shipment's owner and of the tenants it was shared with when it was
    made. Reads each shipment (and each classic history) once per batch, and makes each
    distinct body once, however many configurations receive it."""

    session: Session
    base_url: str | None
    max_positions: int = 2000
    _facts: dict[str, Facts] = field(default_factory=dict)
    payloads: list[Payload] = field(default_factory=list)
    deliveries: list[Outgoing] = field(default_factory=list)
    _bodies: dict[tuple[Any, ...], int] = field(default_factory=dict)

    def run(
        self,
        changes: Iterable[ShipmentChange],
        targets: Mapping[int, list[Target]],
        shares: Mapping[str, list[Share]],
    ) -> None:
        plans = [(c, a) for c in changes if (a := _audiences(c, targets, shares))]
        if not plans:
            return
        rows = {
            row.id: row
            for row in self.session.scalars(
                select(Shipment).where(Shipment.id.in_({c.shipment_id for c, _ in plans}))
            )
        }
        # Classic push: one history per shipment and viewer per batch, after its last change.
        classic_last: dict[tuple[int, str], tuple[ShipmentChange, Audience]] = {}
        # A shipment deleted by now is described by the last value the journal kept.
        last_known: dict[str, dict[str, Any]] = {}
        for change, _ in plans:
            if "shipment" in change.payload:
                last_known[change.shipment_id] = dict(change.payload["shipment"])
        for change, audiences in plans:
            facts = self._facts.get(change.shipment_id)
            if facts is None:
                known = last_known.get(change.shipment_id, {"shipmentId": change.shipment_id})
                facts = _facts(rows.get(change.shipment_id), known, self.base_url)
                self._facts[change.shipment_id] = facts
            for audience in audiences:
                for target in targets[audience.tenant_id]:
                    if not target.takes(change.id):
                        continue
                    if target.event_type is None:
                        if _passes_modes(target, facts):
                            classic_last[(target.id, change.shipment_id)] = (change, audience)
                    elif (
                        not audience.classic_only
                        and target.event_type == change.kind
                        and _passes(target, change, facts)
                    ):
                        index = self._granular(change, facts, target, audience)
                        self.deliveries.append(Outgoing(target.id, index, change.shipment_id))
        self._classic(classic_last, rows)

    def _granular(
        self, change: ShipmentChange, facts: Facts, target: Target, audience: Audience
    ) -> int:
        key = (change.id, target.include_context, audience.hide_attributes)
        index = self._bodies.get(key)
        if index is None:
            body = _dumps(
                {
                    "eventId": event_id(change.id),
                    "eventType": change.kind,
                    "createdDateTime": iso(change.created_at),
                    "dataType": DATA_TYPES[WebhookEventType(change.kind)],
                    "context": _context(facts, target.include_context, audience.hide_attributes),
                    "data": data_of(change.kind, change.payload, audience.hide_attributes),
                }
            )
            index = self._add(
                key,
                Payload(
                    event_id(change.id), change.kind, change.shipment_id, body, change.created_at
                ),
            )
        return index

    def _add(self, key: tuple[Any, ...], payload: Payload) -> int:
        self._bodies[key] = len(self.payloads)
        self.payloads.append(payload)
        return len(self.payloads) - 1

    def _classic(
        self,
        last: dict[tuple[int, str], tuple[ShipmentChange, Audience]],
        rows: Mapping[str, Shipment],
    ) -> None:
        for (config_id, shipment_id), (change, audience) in sorted(
            last.items(), key=lambda item: item[1][0].id
        ):
            row = rows.get(shipment_id)
            if row is None or row.deleted_at is not None:
                continue  # deleted: there is no history any more
            viewer = Viewer(audience.tenant_id, hide_attributes=audience.hide_attributes)
            key = ("classic", shipment_id, viewer)
            index = self._bodies.get(key)
            if index is None:
                body = tracking_history(
                    self.session, row, self.base_url, self.max_positions, viewer
                )
                index = self._add(
                    key,
                    Payload(
                        event_id(change.id, f"classic:{audience.tenant_id}"),
                        CLASSIC_EVENT_TYPE,
                        shipment_id,
                        body,
                        change.created_at,
                    ),
                )
            self.deliveries.append(Outgoing(config_id, index, shipment_id))


def _audiences(
    change: ShipmentChange, targets: Mapping[int, list[Target]], shares: Mapping[str, list[Share]]
) -> list[Audience]:
    """The tenants whose configurations may receive this change."""
    if change.kind == ChangeKind.SHIPMENT_UNSHARED.value:
        return []
    if change.kind == ChangeKind.SHIPMENT_SHARED.value:
        # The recipient can now read the whole history: its classic configurations get it.
        recipient = change.payload.get("recipientTenantId")
        return [
            Audience(share.tenant_id, share.hide_attributes, classic_only=True)
            for share in shares.get(change.shipment_id, ())
            if share.tenant_id == recipient and share.covers(change.created_at)
            if share.tenant_id in targets
        ]
    found = [Audience(change.tenant_id)] if change.tenant_id in targets else []
    for share in shares.get(change.shipment_id, ()):
        if share.tenant_id in targets and share.covers(change.created_at):
            found.append(Audience(share.tenant_id, share.hide_attributes))
    return found


class Head(Protocol):
    """A journal row without its payload: what decides whether anyone may receive it."""

    @property
    def id(self) -> int: ...
    @property
    def tenant_id(self) -> int: ...
    @property
    def shipment_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...


def may_receive(
    change: Head, targets: Mapping[int, list[Target]], shares: Mapping[str, list[Share]]
) -> bool:
    """Whether some configuration may receive this change: true of every change `FanOut.run`
    sends, read without the payload (a sharing's recipient is in it), so that a change
    nobody can receive is never loaded."""
    kind = change.kind
    if kind == ChangeKind.SHIPMENT_UNSHARED.value:
        return False
    covering = [
        share.tenant_id
        for share in shares.get(change.shipment_id, ())
        if share.covers(change.created_at)
    ]
    if kind == ChangeKind.SHIPMENT_SHARED.value:
        return any(_takes(targets.get(tenant_id, ()), change.id, None) for tenant_id in covering)
    return any(_takes(targets.get(t, ()), change.id, kind) for t in [change.tenant_id, *covering])


def _takes(targets: Iterable[Target], change_id: int, kind: str | None) -> bool:
    """Whether one of these configurations, made before the change, is classic or granular
    of this kind."""
    return any(
        t.takes(change_id) and (t.event_type is None or t.event_type == kind) for t in targets
    )


def tracking_history(
    session: Session,
    row: Shipment,
    base_url: str | None,
    max_positions: int,
    viewer: Viewer | None = None,
) -> str:
    """The JSON of GET /api/v4/shipments/{id}/tracking/history as `viewer` (by default the
    owner) sees it."""
    viewer = viewer or Viewer(row.tenant_id)
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
