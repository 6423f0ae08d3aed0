"""Reads of tracked shipments for the routes: the tracked shipment view and its histories,
what a viewer may see of them (`viewer_of`, `attributes_hidden`) and the public view behind a
shipment's share link.

Rows come from the store and are trusted, so positions (the large part of a history) are built
without re-validation.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.auth import TenantRole
from freightdesk.models.public_link import as_public
from freightdesk.models.tracking import (
    Cost,
    SharingContext,
    SharingParty,
    ShipmentAttribute,
    ShipmentException,
    TrackedShipment,
    TrackedShipmentEvent,
    TrackedShipmentPosition,
    TrackedShipmentState,
)
from freightdesk.server.domain.shipments import (
    exception_view,
    share_in_force,
    share_link,
    state_view,
)
from freightdesk.server.errors import not_found
from freightdesk.server.principal import Principal
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentEvent,
    ShipmentExceptionRow,
    ShipmentShare,
    ShipmentState,
)


@dataclass(frozen=True)
class Viewer:
    """Who looks: the tenant, and whether the shipment's attributes are hidden from it
    (attributes are not shared with carriers)."""

    tenant_id: int
    hide_attributes: bool = False


def attributes_hidden(*, owner: bool, kind: str | None, role: TenantRole | None = None) -> bool:
    """Whether a tenant sees a shipment without its attributes ("not shared with carriers",
    interface): when it reads another tenant's shipment as a carrier, being a tenant of kind
    CARRIER (`kind`) or a caller that says `x-tenant-role: CARRIER` (`role`). A webhook
    delivery has no caller: its tenant's kind alone decides (docs/spec-gaps.md)."""
    if owner:
        return False
    return role is TenantRole.CARRIER or kind == TenantRole.CARRIER.value


def viewer_of(session: Session, principal: Principal, row: Shipment) -> Viewer:
    """How the caller sees `row` (`attributes_hidden`)."""
    owner = row.tenant_id == principal.tenant_id
    # The caller's tenant is read only for a shipment shared with it.
    tenant = None if owner else session.get(Tenant, principal.tenant_id)
    hide = attributes_hidden(
        owner=owner, kind=None if tenant is None else tenant.kind, role=principal.role
    )
    return Viewer(principal.tenant_id, hide_attributes=hide)


def shipment_view(
    row: Shipment,
    *,
    base_url: str,
    viewer: Viewer,
    include_route: bool = True,
    events: list[TrackedShipmentEvent] | None = None,
    include_costs: bool = True,
) -> TrackedShipment:
    data = dict(row.data)
    if not include_route:
        data.pop("routeInfo", None)
    if viewer.hide_attributes:
        data.pop("attributes", None)
    if not include_costs:
        data.pop("costs", None)
    shipment = TrackedShipment.model_validate(
        {
            **data,
            "id": row.id,
            "shipmentShareLink": share_link(base_url, row),
            "createdDateTime": row.created_at,
            "lastModifiedDateTime": row.last_modified_at,
        }
    )
    if events is not None:
        shipment.events = events
    return shipment


def costs_of(row: Shipment) -> list[Cost]:
    return [Cost.model_validate(item) for item in row.data.get("costs", [])]


def attributes_of(row: Shipment, viewer: Viewer) -> list[ShipmentAttribute]:
    if viewer.hide_attributes:
        return []
    result = []
    for item in row.data.get("attributes", []):
        values = list(item.get("values") or [])
        if not values and item.get("value") is not None:
            values = [item["value"]]
        result.append(ShipmentAttribute(attribute_name=item["name"], attribute_values=values))
    return result


def events_of(session: Session, row: Shipment) -> list[TrackedShipmentEvent]:
    """In ascending order of occurrence (events known only by a plan or estimate sort by that;
    events without any time come last, in the order they were recorded)."""
    rows = session.scalars(
        select(ShipmentEvent.data)
        .where(ShipmentEvent.shipment_pk == row.pk)
        .order_by(ShipmentEvent.occurred_at.asc().nulls_last(), ShipmentEvent.pk)
    )
    return [TrackedShipmentEvent.model_validate(data) for data in rows]


def positions_of(session: Session, row: Shipment, limit: int) -> list[TrackedShipmentPosition]:
    """Ascending in time; beyond `limit`, down-sampled keeping the first, the last and the
    shape of the track, from the shipment's kept track (`kept_tracks`)."""
    # Imported here: the kept tracks are numpy's work (about 60 ms of CPU to import), and
    # the service's start imports this module (the routes) but answers before any history.
    from freightdesk.server.domain.kept_tracks import kept_positions

    return kept_positions(session, row.pk, limit)


def states_of(session: Session, row: Shipment) -> list[TrackedShipmentState]:
    return [
        state_view(state)
        for state in session.scalars(
            select(ShipmentState)
            .where(ShipmentState.shipment_pk == row.pk)
            .order_by(ShipmentState.start_at, ShipmentState.pk)
        )
    ]


def exceptions_of(session: Session, row: Shipment) -> list[ShipmentException]:
    return [
        exception_view(problem)
        for problem in session.scalars(
            select(ShipmentExceptionRow)
            .where(ShipmentExceptionRow.shipment_pk == row.pk)
            .order_by(ShipmentExceptionRow.created_at, ShipmentExceptionRow.pk)
        )
    ]


def sharing_context(session: Session, row: Shipment, viewer: Viewer) -> SharingContext:
    """The owner is the data originator; the owner sees every recipient, a recipient only
    itself. Empty lists when the shipment is not shared."""
    shares = session.execute(
        select(ShipmentShare.created_at, Tenant.name, Tenant.uuid)
        .join(Tenant, Tenant.id == ShipmentShare.tenant_id)
        .where(ShipmentShare.shipment_pk == row.pk, share_in_force())
        .order_by(ShipmentShare.created_at)
    ).all()
    if viewer.tenant_id != row.tenant_id:
        me = session.get(Tenant, viewer.tenant_id)
        shares = [share for share in shares if me is not None and share[2] == me.uuid]
    if not shares:
        return SharingContext()
    owner = session.get(Tenant, row.tenant_id)
    assert owner is not None
    return SharingContext(
        data_originators=[SharingParty(tenant_name=owner.name, tenant_uuid=uuid.UUID(owner.uuid))],
        recipients=[
            SharingParty(tenant_name=name, tenant_uuid=uuid.UUID(tenant_uuid), shared_date_time=at)
            for at, name, tenant_uuid in shares
        ],
    )


def public_shipment(session: Session, share_token: str, base_url: str) -> TrackedShipment:
    """The tracked shipment behind a share link, as whoever has the link sees it
    (`models.public_link`: not the owner's business data). 404 for an unknown token or a
    deleted shipment."""
    row = session.scalar(
        select(Shipment).where(Shipment.share_token == share_token, Shipment.deleted_at.is_(None))
    )
    if row is None:
        raise not_found("Shared shipment")
    view = shipment_view(
        row, base_url=base_url, viewer=Viewer(tenant_id=0), events=events_of(session, row)
    )
    return as_public(view)
