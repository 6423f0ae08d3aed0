"""Packages: the status workflow, the search index and uniqueness of package identifiers.

Workflow (the interface names the states only):

    UNASSIGNED --assign--> ASSIGNED --confirm--> CONFIRMED
    ASSIGNED --unassign--> UNASSIGNED
    CONFIRMED --release--> UNASSIGNED   (the confirmed shipment fell through; plan again)

A status changes through a PUT whose `status` names the next state; a PUT without `status`
keeps the current one. The contents of a CONFIRMED package are fixed: a carrier has committed
to exactly that freight, so a PUT that changes them is refused unless it also releases it.
The rules are `models/package_rules.py`, shared with the app.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, delete, func, select
from sqlalchemy.orm import Session

from freightdesk.models.common import LogisticsIdentifier
from freightdesk.models.package_rules import (
    CONTENT_FIELDS,
    SKU,
    confirmed_change_problem,
    new_status_problem,
    postal_code_key,
    text_key,
    transition_problem,
)
from freightdesk.models.packaging import (
    DeletedPackage,
    Package,
    PackageLocation,
    PackageStatus,
    PackageWrite,
)
from freightdesk.server.db import utcnow
from freightdesk.server.errors import conflict, field_error
from freightdesk.server.tables.packaging import PackageIdentifierRow, PackageRow, PackageSkuRow


def check_transition(current: PackageStatus, requested: PackageStatus) -> None:
    problem = transition_problem(current, requested)
    if problem is not None:
        raise conflict(problem, source="status")


def _content(body: PackageWrite) -> dict[str, Any]:
    wire = body.wire()
    wire.pop("status", None)
    return {name: wire[name] for name in CONTENT_FIELDS if name in wire}


def _set_location_columns(row: PackageRow, prefix: str, location: PackageLocation | None) -> None:
    address = location.address if location is not None else None
    setattr(row, f"{prefix}_city", text_key(address.city if address else None))
    setattr(row, f"{prefix}_state", text_key(address.state if address else None))
    setattr(row, f"{prefix}_country", text_key(address.country if address else None))
    postal = postal_code_key(address.postal_code if address else None)
    setattr(row, f"{prefix}_postal_code", postal)


def _claim_identifiers(
    session: Session, tenant_id: int, package_id: str, identifiers: Sequence[LogisticsIdentifier]
) -> None:
    """Package identifiers name one live package of the tenant (delete by identifier needs it)."""
    for index, identifier in enumerate(identifiers):
        owner = session.scalar(
            select(PackageIdentifierRow.package_id).where(
                PackageIdentifierRow.tenant_id == tenant_id,
                PackageIdentifierRow.type == identifier.type,
                PackageIdentifierRow.value == identifier.value,
                PackageIdentifierRow.package_id != package_id,
            )
        )
        if owner is not None:
            raise conflict(
                f"Package {owner} already has identifier {identifier.type} {identifier.value!r}",
                source=f"identifiers[{index}]",
            )
    session.execute(
        delete(PackageIdentifierRow).where(PackageIdentifierRow.package_id == package_id)
    )
    session.execute(delete(PackageSkuRow).where(PackageSkuRow.package_id == package_id))
    session.flush()
    for identifier in identifiers:
        session.add(
            PackageIdentifierRow(
                tenant_id=tenant_id,
                package_id=package_id,
                type=identifier.type,
                value=identifier.value,
            )
        )


def _index_skus(session: Session, tenant_id: int, package_id: str, body: PackageWrite) -> None:
    skus = {
        identifier.value
        for item in body.items
        for identifier in item.identifiers
        if identifier.type.upper() == SKU
    }
    for value in sorted(skus):
        session.add(PackageSkuRow(tenant_id=tenant_id, package_id=package_id, value=value))


def _apply(session: Session, row: PackageRow, body: PackageWrite) -> None:
    row.body = _content(body)
    _set_location_columns(row, "origin", body.origin_location)
    _set_location_columns(row, "destination", body.destination_location)
    _claim_identifiers(session, row.tenant_id, row.id, body.identifiers)
    _index_skus(session, row.tenant_id, row.id, body)


def create_package(session: Session, tenant_id: int, body: PackageWrite) -> PackageRow:
    problem = new_status_problem(body.status)
    if problem is not None:
        raise field_error("status", problem)
    now = utcnow()
    row = PackageRow(
        id=str(uuid.uuid4()),
        tenant_id=tenant_id,
        status=PackageStatus.UNASSIGNED.value,
        body={},
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    session.flush()
    _apply(session, row, body)
    session.flush()
    return row


def replace_package(session: Session, row: PackageRow, body: PackageWrite) -> PackageRow:
    current = PackageStatus(row.status)
    requested = body.status or current
    check_transition(current, requested)
    changed = _content(body) != row.body
    problem = confirmed_change_problem(current, requested, content_changed=changed)
    if problem is not None:
        raise conflict(problem, source="status")
    row.status = requested.value
    _apply(session, row, body)
    row.updated_at = utcnow()
    session.flush()
    return row


def soft_delete(session: Session, row: PackageRow) -> DeletedPackage:
    answer = DeletedPackage(id=uuid.UUID(row.id), identifiers=view(row).identifiers)
    row.deleted_at = utcnow()
    # Freed identifiers may name a new package; the soft-deleted one keeps them in its body.
    session.execute(delete(PackageIdentifierRow).where(PackageIdentifierRow.package_id == row.id))
    session.execute(delete(PackageSkuRow).where(PackageSkuRow.package_id == row.id))
    session.flush()
    return answer


def live_package(session: Session, tenant_id: int, package_id: str) -> PackageRow | None:
    row = session.get(PackageRow, package_id)
    if row is None or row.tenant_id != tenant_id or row.deleted_at is not None:
        return None
    return row


def package_by_identifier(
    session: Session, tenant_id: int, type_: str, value: str
) -> PackageRow | None:
    package_id = session.scalar(
        select(PackageIdentifierRow.package_id).where(
            PackageIdentifierRow.tenant_id == tenant_id,
            PackageIdentifierRow.type == type_,
            PackageIdentifierRow.value == value,
        )
    )
    return None if package_id is None else live_package(session, tenant_id, package_id)


def view(row: PackageRow) -> Package:
    return Package.model_validate(
        {
            **row.body,
            "id": row.id,
            "status": row.status,
            "createdDateTime": row.created_at,
            "lastModifiedDateTime": row.updated_at,
        }
    )


class PackageFilter:
    """The search filters of GET packaging, applied to a select of live packages."""

    def __init__(self, tenant_id: int) -> None:
        self.tenant_id = tenant_id
        self._conditions: list[Any] = [
            PackageRow.tenant_id == tenant_id,
            PackageRow.deleted_at.is_(None),
        ]
        self.impossible = False

    def shipper(self, tenant_id_text: str | None, tenant_uuid: str | None, own_uuid: str) -> None:
        # A shipper sees only its own packages, so naming another shipper matches nothing.
        if tenant_id_text is not None and tenant_id_text.strip() != str(self.tenant_id):
            self.impossible = True
        if tenant_uuid is not None and tenant_uuid.lower() != own_uuid.lower():
            self.impossible = True

    def identifier(self, type_: str, value: str) -> None:
        self._conditions.append(
            PackageRow.id.in_(
                select(PackageIdentifierRow.package_id).where(
                    PackageIdentifierRow.tenant_id == self.tenant_id,
                    PackageIdentifierRow.type == type_,
                    PackageIdentifierRow.value == value,
                )
            )
        )

    def sku(self, value: str) -> None:
        self._conditions.append(
            PackageRow.id.in_(
                select(PackageSkuRow.package_id).where(
                    PackageSkuRow.tenant_id == self.tenant_id, PackageSkuRow.value == value
                )
            )
        )

    def location(self, prefix: str, field: str, value: str | None) -> None:
        if value is None:
            return
        normalized = postal_code_key(value) if field == "postal_code" else text_key(value)
        column = getattr(PackageRow, f"{prefix}_{field}")
        self._conditions.append(column == normalized)

    def select(self) -> Select[PackageRow]:
        return select(PackageRow).where(*self._conditions)

    def count(self, session: Session) -> int:
        if self.impossible:
            return 0
        return int(
            session.scalar(select(func.count()).select_from(PackageRow).where(*self._conditions))
            or 0
        )

    def page(self, session: Session, page_number: int, page_size: int) -> list[PackageRow]:
        if self.impossible:
            return []
        query = (
            self.select()
            .order_by(PackageRow.created_at.desc(), PackageRow.id)
            .offset((page_number - 1) * page_size)
            .limit(page_size)
        )
        return list(session.scalars(query))
