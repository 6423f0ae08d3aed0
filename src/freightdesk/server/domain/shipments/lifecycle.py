"""A shipment's life as its tenant sees it: create, replace, delete, share."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from freightdesk.models.tracking import (
    ShipmentStateType,
    TrackedShipmentInput,
    TrackedShipmentState,
    stops_seen,
)
from freightdesk.server.db import utcnow
from freightdesk.server.domain.identifiers import sources_for
from freightdesk.server.domain.shipment_rules import PreparedShipment, prepare, related_ids
from freightdesk.server.domain.shipments.journal import (
    change_entry,
    insert_rows,
    journal,
    record_change,
    table_of,
)
from freightdesk.server.domain.shipments.lookup import (
    owned_shipment,
    visible_ids,
)
from freightdesk.server.domain.shipments.rows import (
    STATE_RANK,
    SYSTEM,
    USER,
    apply_event,
    attribute_rows_of,
    data_summary,
    event_row,
    event_wire,
    identifier_rows_of,
    latest_of,
    latest_values,
    state_row,
    store_data,
)
from freightdesk.server.domain.shipments.summary import (
    next_eta_values,
    refresh_eta,
    refresh_exceptions,
    refresh_last_position,
    refresh_latest_event,
    refresh_state,
)
from freightdesk.server.domain.shipments.views import (
    exception_wire,
    shipment_context,
    state_wire,
)
from freightdesk.server.errors import field_error, not_found
from freightdesk.server.tables.tracking import (
    ChangeKind,
    Shipment,
    ShipmentAttributeValue,
    ShipmentDocument,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentIdentifier,
    ShipmentPosition,
    ShipmentShare,
    ShipmentState,
)


def create_shipment(session: Session, tenant_id: int, body: TrackedShipmentInput) -> str:
    """Create a tracked shipment from a PUT tracking body (its `id`, if any, is ignored);
    returns the new id. The shipment starts SCHEDULED; body events are recorded as USER."""
    return create_shipments(session, tenant_id, [body])[0]


def create_shipments(
    session: Session,
    tenant_id: int,
    bodies: Sequence[TrackedShipmentInput],
    *,
    created: Sequence[datetime] | None = None,
) -> list[str]:
    """Create many shipments with a handful of statements (demo seeding, imports).

    `created` gives each shipment's creation time (when its initial SCHEDULED state began)
    for shipments whose past is recorded after them; by default, now."""
    if not bodies:
        return []
    if created is not None and len(created) != len(bodies):
        raise ValueError("one creation time per shipment")
    related = {i for body in bodies for i in related_ids(body)}
    can_see = visible_ids(session, tenant_id, related) if related else set()
    prepared = [prepare(body, visible_ids=can_see) for body in bodies]
    latest_events = [latest_of(item.events) for item in prepared]
    now = utcnow()
    starts = list(created) if created is not None else [now] * len(bodies)
    rows = [
        {
            "id": str(uuid.uuid4()),
            "tenant_id": tenant_id,
            "mode": item.analysis.mode.value,
            "current_state": ShipmentStateType.SCHEDULED.value,
            "state_rank": STATE_RANK[ShipmentStateType.SCHEDULED],
            "share_token": secrets.token_urlsafe(24),
            "created_at": start,
            "last_modified_at": now,
            "open_exception_count": 0,
            **data_summary(item),
            **(latest_values(latest, item.data) if latest is not None else {}),
            **next_eta_values(
                item.events, item.data, completed=False, seen=stops_seen(item.events, ())
            ),
        }
        for item, latest, start in zip(prepared, latest_events, starts, strict=True)
    ]
    session.flush()
    table = table_of(Shipment)
    result = session.execute(
        insert(table).returning(table.c.pk, table.c.id, sort_by_parameter_order=True), rows
    ).all()
    document_rows: list[dict[str, Any]] = []
    identifier_rows: list[dict[str, Any]] = []
    attribute_rows: list[dict[str, Any]] = []
    state_rows: list[dict[str, Any]] = []
    event_rows: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for (pk, shipment_id), item, start in zip(result, prepared, starts, strict=True):
        document_rows.append({"shipment_pk": pk, "data": item.data})
        identifier_rows.extend(identifier_rows_of(tenant_id, pk, item.data["identifiers"]))
        attribute_rows.extend(attribute_rows_of(tenant_id, pk, item.data.get("attributes", [])))
        state = TrackedShipmentState(
            id=uuid.uuid4(), type=ShipmentStateType.SCHEDULED, start_date_time=start
        )
        state_rows.append(state_row(pk, state, SYSTEM))
        context = {
            "shipmentId": shipment_id,
            "identifiers": item.data["identifiers"],
            "attributes": item.data.get("attributes", []),
            "createdDateTime": start.isoformat(),
            "lastModifiedDateTime": now.isoformat(),
        }
        changes.append(
            change_entry(
                tenant_id, shipment_id, ChangeKind.SHIPMENT_CREATED, {"shipment": context}, now
            )
        )
        changes.append(
            change_entry(
                tenant_id,
                shipment_id,
                ChangeKind.STATE_ADDED,
                {"state": state.wire(), "source": SYSTEM},
                now,
            )
        )
        for event in item.events:
            wire = event_wire(event)
            event_rows.append(event_row(pk, wire, USER))
            changes.append(
                change_entry(
                    tenant_id,
                    shipment_id,
                    ChangeKind.EVENT_ADDED,
                    {"event": wire, "source": USER},
                    now,
                )
            )
    insert_rows(session, ShipmentDocument, document_rows)
    insert_rows(session, ShipmentIdentifier, identifier_rows)
    insert_rows(session, ShipmentAttributeValue, attribute_rows)
    insert_rows(session, ShipmentState, state_rows)
    insert_rows(session, ShipmentEvent, event_rows)
    journal(session, changes)
    return [shipment_id for _pk, shipment_id in result]


def replace_shipment(
    session: Session, tenant_id: int, shipment_id: str, body: TrackedShipmentInput
) -> None:
    """Replace the user-provided data (identifiers, attributes, accessGroups, costs, plan,
    routeInfo, relatedShipments and the USER events) of the tenant's own shipment.

    Data received from tracking sources is kept, except that of a source which can no longer
    follow the shipment with its new identifiers (rule 4). Body events whose id is that of a
    received event are ignored: they are not the user's.
    """
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    can_see = visible_ids(session, tenant_id, related_ids(body))
    item = prepare(body, visible_ids=can_see, self_id=row.id)
    now = utcnow()
    old_types = {identifier["type"] for identifier in row.data.get("identifiers", [])}
    lost = sources_for(old_types) - item.analysis.sources
    changes: list[dict[str, Any]] = []

    store_data(session, row, item.data)
    row.mode = item.analysis.mode.value
    for key, value in data_summary(item).items():
        setattr(row, key, value)
    session.execute(delete(ShipmentIdentifier).where(ShipmentIdentifier.shipment_pk == row.pk))
    session.execute(
        delete(ShipmentAttributeValue).where(ShipmentAttributeValue.shipment_pk == row.pk)
    )
    insert_rows(
        session,
        ShipmentAttributeValue,
        attribute_rows_of(tenant_id, row.pk, item.data.get("attributes", [])),
    )
    insert_rows(
        session, ShipmentIdentifier, identifier_rows_of(tenant_id, row.pk, item.data["identifiers"])
    )

    _replace_user_events(session, row, item, changes, now)
    if lost:
        _remove_source_data(session, row, {mode.value for mode in lost}, changes, now)
    refresh_latest_event(session, row)
    # The route may have changed, and with it the zone of the stop the next ETA is for.
    refresh_eta(session, row)
    row.last_modified_at = now
    changes.append(
        change_entry(
            row.tenant_id,
            row.id,
            ChangeKind.SHIPMENT_REPLACED,
            {"shipment": shipment_context(row)},
            now,
        )
    )
    journal(session, changes)


def _replace_user_events(
    session: Session,
    row: Shipment,
    item: PreparedShipment,
    changes: list[dict[str, Any]],
    now: datetime,
) -> None:
    existing = {
        event.id: event
        for event in session.scalars(
            select(ShipmentEvent).where(ShipmentEvent.shipment_pk == row.pk)
        )
    }
    kept: set[str] = set()
    new_rows: list[dict[str, Any]] = []
    for event in item.events:
        key = str(event.id) if event.id is not None else None
        current = existing.get(key) if key is not None else None
        if current is not None and current.source != USER:
            continue  # a received event sent back after a GET: not the user's to change
        wire = event_wire(event)
        if current is not None:
            kept.add(current.id)
            if current.data != wire:
                apply_event(current, wire)
                changes.append(
                    change_entry(
                        row.tenant_id,
                        row.id,
                        ChangeKind.EVENT_UPDATED,
                        {"event": wire, "source": USER},
                        now,
                    )
                )
            continue
        new_rows.append(event_row(row.pk, wire, USER))
        changes.append(
            change_entry(
                row.tenant_id, row.id, ChangeKind.EVENT_ADDED, {"event": wire, "source": USER}, now
            )
        )
    for stored in existing.values():
        if stored.source == USER and stored.id not in kept:
            changes.append(
                change_entry(
                    row.tenant_id,
                    row.id,
                    ChangeKind.EVENT_REMOVED,
                    {"event": stored.data, "source": USER},
                    now,
                )
            )
            session.delete(stored)
    session.flush()
    insert_rows(session, ShipmentEvent, new_rows)


def _remove_source_data(
    session: Session,
    row: Shipment,
    sources: set[str],
    changes: list[dict[str, Any]],
    now: datetime,
) -> None:
    """Rule 4: drop what these sources reported, journaling each removed event and state."""
    for event in session.scalars(
        select(ShipmentEvent).where(
            ShipmentEvent.shipment_pk == row.pk, ShipmentEvent.source.in_(sources)
        )
    ):
        changes.append(
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.EVENT_REMOVED,
                {"event": event.data, "source": event.source},
                now,
            )
        )
        session.delete(event)
    for state in session.scalars(
        select(ShipmentState).where(
            ShipmentState.shipment_pk == row.pk, ShipmentState.source.in_(sources)
        )
    ):
        changes.append(
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.STATE_REMOVED,
                {"state": state_wire(state), "source": state.source},
                now,
            )
        )
        session.delete(state)
    for problem in session.scalars(
        select(ShipmentExceptionRow).where(
            ShipmentExceptionRow.shipment_pk == row.pk, ShipmentExceptionRow.source.in_(sources)
        )
    ):
        changes.append(
            change_entry(
                row.tenant_id,
                row.id,
                ChangeKind.EXCEPTION_REMOVED,
                {"exception": exception_wire(problem), "source": problem.source},
                now,
            )
        )
        session.delete(problem)
    session.flush()
    for source in sorted(sources):
        result = session.execute(
            delete(ShipmentPosition).where(
                ShipmentPosition.shipment_pk == row.pk, ShipmentPosition.source == source
            )
        )
        removed = int(getattr(result, "rowcount", 0) or 0)
        if removed:
            changes.append(
                change_entry(
                    row.tenant_id,
                    row.id,
                    ChangeKind.POSITIONS_REMOVED,
                    {"count": removed, "source": source},
                    now,
                )
            )
    refresh_state(session, row, changes, now)
    refresh_exceptions(session, row)
    refresh_last_position(session, row)
    refresh_eta(session, row)


def delete_shipment(session: Session, tenant_id: int, shipment_id: str) -> None:
    """Stop tracking the tenant's own shipment and remove its data (404 for one shared with
    the tenant). A tombstone stays so that incremental sync can report the removal."""
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    now = utcnow()
    context = shipment_context(row)
    for table in (
        ShipmentIdentifier,
        ShipmentAttributeValue,
        ShipmentEvent,
        ShipmentPosition,
        ShipmentState,
        ShipmentExceptionRow,
    ):
        session.execute(delete(table).where(table.shipment_pk == row.pk))
    store_data(session, row, {})
    row.deleted_at = now
    row.last_modified_at = now
    row.open_exception_count = 0
    record_change(session, row, ChangeKind.SHIPMENT_DELETED, {"shipment": context}, now)


# --- sharing -------------------------------------------------------------------------------


def share_shipment(
    session: Session, tenant_id: int, shipment_id: str, recipient_tenant_id: int
) -> bool:
    """Let another tenant read the tenant's own shipment; False when it already could."""
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    if recipient_tenant_id == tenant_id:
        raise field_error("tenantUuid", "a shipment cannot be shared with its own tenant")
    share = session.get(ShipmentShare, (row.pk, recipient_tenant_id))
    now = utcnow()
    if share is not None and share.revoked_at is None:
        return False
    if share is None:
        session.add(
            ShipmentShare(shipment_pk=row.pk, tenant_id=recipient_tenant_id, created_at=now)
        )
    else:
        share.created_at = now
        share.revoked_at = None
    row.last_modified_at = now
    record_change(
        session, row, ChangeKind.SHIPMENT_SHARED, {"recipientTenantId": recipient_tenant_id}, now
    )
    return True


def unshare_shipment(
    session: Session, tenant_id: int, shipment_id: str, recipient_tenant_id: int
) -> None:
    """Stop sharing the tenant's own shipment with a recipient; 404 when it was not shared."""
    row = owned_shipment(session, tenant_id, shipment_id, lock=True)
    share = session.get(ShipmentShare, (row.pk, recipient_tenant_id))
    if share is None or share.revoked_at is not None:
        raise not_found(f"A share of shipment {shipment_id} with that tenant")
    now = utcnow()
    share.revoked_at = now
    row.last_modified_at = now
    record_change(
        session, row, ChangeKind.SHIPMENT_UNSHARED, {"recipientTenantId": recipient_tenant_id}, now
    )
