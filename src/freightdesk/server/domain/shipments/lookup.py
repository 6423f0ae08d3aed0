"""Which shipments a tenant can see or owns, and lookups by identifier."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import or_, select
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
            ShipmentShare.shipment_pk == row.pk,
            ShipmentShare.tenant_id == tenant_id,
            ShipmentShare.revoked_at.is_(None),
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
    shared = select(ShipmentShare.shipment_pk).where(
        ShipmentShare.tenant_id == tenant_id, ShipmentShare.revoked_at.is_(None)
    )
    rows = session.scalars(
        select(Shipment.id).where(
            Shipment.id.in_(wanted),
            Shipment.deleted_at.is_(None),
            or_(Shipment.tenant_id == tenant_id, Shipment.pk.in_(shared)),
        )
    )
    return set(rows)
