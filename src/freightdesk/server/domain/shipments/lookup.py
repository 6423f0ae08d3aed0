"""Which shipments a tenant can see or owns, and lookups by identifier.

The visibility rule, written here once (`visible_clause`, `share_in_force`): a tenant sees a
live shipment it owns, or one shared with it whose share is not revoked."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import BindParameter, ColumnElement, Select, and_, or_, select
from sqlalchemy.orm import Session

from freightdesk.server.domain.identifiers import normalize_value
from freightdesk.server.domain.shipments.locking import (
    by_id,
    missing,
)
from freightdesk.server.tables.tracking import (
    Shipment,
    ShipmentIdentifier,
    ShipmentShare,
)

# A tenant's id, or a parameter bound to one at execution (statements built once).
TenantRef = int | BindParameter[int]


def share_in_force(tenant: TenantRef | None = None) -> ColumnElement[bool]:
    """A share that makes its shipment visible to its tenant (not revoked); with `tenant`,
    a share with that tenant."""
    current = ShipmentShare.revoked_at.is_(None)
    return current if tenant is None else and_(ShipmentShare.tenant_id == tenant, current)


def shared_with(tenant: TenantRef) -> Select[int]:
    """The keys of the shipments shared with `tenant` (shares in force)."""
    return select(ShipmentShare.shipment_pk).where(share_in_force(tenant))


def visible_clause(
    tenant: TenantRef, *, any_shared: bool = True, by_index: bool = True
) -> ColumnElement[bool]:
    """The shipments `tenant` can see: live, and its own or shared with it (in force).

    Both flags spell the same rule for SQLite's planner, which has no statistics:
    `any_shared=False`, when the caller knows nothing is shared with the tenant, leaves out
    the shares so the (tenant_id, ...) indexes serve both a filter and a sort;
    `by_index=False` keeps the planner off those indexes (`tenant_id + 0`), for when a filter
    elsewhere names few shipments and fetching and sorting those is cheaper."""
    own = Shipment.tenant_id == tenant if by_index else (Shipment.tenant_id + 0) == tenant
    visible = or_(own, Shipment.pk.in_(shared_with(tenant))) if any_shared else own
    return and_(Shipment.deleted_at.is_(None), visible)


def find_shipments_by_identifier(
    session: Session, tenant_id: int, type: str | None, value: str
) -> list[str]:
    """Ids of the tenant's own shipments carrying this identifier (value case-insensitive),
    oldest first. `type` None matches any type."""
    query = (
        select(Shipment.pk, Shipment.id)
        .join(ShipmentIdentifier, ShipmentIdentifier.shipment_pk == Shipment.pk)
        .where(
            ShipmentIdentifier.tenant_id == tenant_id,
            ShipmentIdentifier.value_norm == normalize_value(value),
            Shipment.deleted_at.is_(None),
        )
        .distinct()
        .order_by(Shipment.pk)
    )
    if type is not None:
        query = query.where(ShipmentIdentifier.type == type)
    return [shipment_id for _pk, shipment_id in session.execute(query)]


@dataclass(frozen=True)
class Visible:
    """A shipment as one tenant sees it: its own (`owned`) or shared with it."""

    row: Shipment
    owned: bool


def visible_shipment(session: Session, tenant_id: int, shipment_id: str) -> Visible:
    """The live shipment if the tenant owns it or it was shared with the tenant, else 404."""
    row = by_id(session, shipment_id)
    if row is None:
        raise missing(shipment_id)
    if row.tenant_id == tenant_id:
        return Visible(row, owned=True)
    shared = session.scalar(
        select(ShipmentShare.shipment_pk).where(
            ShipmentShare.shipment_pk == row.pk, share_in_force(tenant_id)
        )
    )
    if shared is None:
        raise missing(shipment_id)
    return Visible(row, owned=False)


def owned_shipment(
    session: Session, tenant_id: int, shipment_id: str, *, lock: bool = False
) -> Shipment:
    """The tenant's own live shipment; 404 otherwise (also when it was only shared with it)."""
    row = by_id(session, shipment_id, lock=lock)
    if row is None or row.tenant_id != tenant_id:
        raise missing(shipment_id)
    return row


def visible_ids(session: Session, tenant_id: int, ids: Iterable[str]) -> set[str]:
    """Which of these shipment ids the tenant can see (own or shared, not deleted)."""
    wanted = list({str(i) for i in ids})
    if not wanted:
        return set()
    rows = session.scalars(
        select(Shipment.id).where(Shipment.id.in_(wanted), visible_clause(tenant_id))
    )
    return set(rows)
