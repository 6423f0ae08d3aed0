"""Packaging: search, create, read, replace and soft-delete packages."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from freightdesk.models.common import PageNumber, PaginationInfo
from freightdesk.models.package_rules import identifier_problems
from freightdesk.models.packaging import DeletedPackage, Package, PackageList, PackageWrite
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep
from freightdesk.server.db import transaction
from freightdesk.server.domain import packaging as domain
from freightdesk.server.errors import conflict, field_error, field_errors, not_found
from freightdesk.server.openapi import ERRORS
from freightdesk.server.strict import strict_body
from freightdesk.server.tables.packaging import PackageRow

router = APIRouter(prefix="/services/booking/v1/packaging", tags=["Packaging"])

StrictPackage = Depends(strict_body(PackageWrite))

_DUPLICATE = "Another package was given one of these identifiers at the same moment; retry"


def _pair(type_: str | None, value: str | None) -> tuple[str, str] | None:
    """identifier.type and identifier.value come together or not at all."""
    if type_ is None and value is None:
        return None
    problems = identifier_problems(type_, value)
    if problems:
        raise field_error(*problems[0])  # the first: the type, then the value
    assert type_ is not None and value is not None
    return type_, value


@router.get("", responses=ERRORS, response_model_exclude_none=True)
def search_packages(
    principal: PrincipalDep,
    session: SessionDep,
    shipper_tenant_id: Annotated[str | None, Query(alias="shipperTenantId")] = None,
    shipper_tenant_uuid: Annotated[UUID | None, Query(alias="shipperTenantUuid")] = None,
    identifier_type: Annotated[str | None, Query(alias="identifier.type")] = None,
    identifier_value: Annotated[str | None, Query(alias="identifier.value")] = None,
    sku_identifier: Annotated[str | None, Query(alias="skuIdentifier")] = None,
    origin_city: Annotated[str | None, Query(alias="origin.city")] = None,
    origin_state: Annotated[str | None, Query(alias="origin.state")] = None,
    origin_country: Annotated[str | None, Query(alias="origin.country")] = None,
    origin_postal_code: Annotated[str | None, Query(alias="origin.postalCode")] = None,
    destination_city: Annotated[str | None, Query(alias="destination.city")] = None,
    destination_state: Annotated[str | None, Query(alias="destination.state")] = None,
    destination_country: Annotated[str | None, Query(alias="destination.country")] = None,
    destination_postal_code: Annotated[str | None, Query(alias="destination.postalCode")] = None,
    page_number: Annotated[PageNumber, Query(alias="pageNumber")] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=100)] = 10,
) -> PackageList:
    search = domain.PackageFilter(principal.tenant_id)
    search.shipper(
        shipper_tenant_id,
        str(shipper_tenant_uuid) if shipper_tenant_uuid else None,
        principal.tenant_uuid,
    )
    identifier = _pair(identifier_type, identifier_value)
    if identifier is not None:
        search.identifier(*identifier)
    if sku_identifier is not None:
        search.sku(sku_identifier)
    for prefix, values in (
        ("origin", (origin_city, origin_state, origin_country, origin_postal_code)),
        (
            "destination",
            (destination_city, destination_state, destination_country, destination_postal_code),
        ),
    ):
        for field, value in zip(("city", "state", "country", "postal_code"), values, strict=True):
            search.location(prefix, field, value)
    total = search.count(session)
    rows = search.page(session, page_number, page_size)
    return PackageList(
        pagination_info=PaginationInfo(page_number=page_number, page_size=page_size, total=total),
        results=[domain.view(row) for row in rows],
    )


@router.post("", responses=ERRORS, response_model_exclude_none=True, dependencies=[StrictPackage])
def create_package(body: PackageWrite, principal: PrincipalDep, context: ContextDep) -> Package:
    try:
        with transaction(context.sessions) as session:
            row = domain.create_package(session, principal.tenant_id, body)
            return domain.view(row)
    except IntegrityError:
        raise conflict(_DUPLICATE, source="identifiers") from None


PackageIdPath = Annotated[UUID, Path(alias="packageId")]


def _owned(session: Session, principal: PrincipalDep, package_id: UUID) -> PackageRow:
    row = domain.live_package(session, principal.tenant_id, str(package_id))
    if row is None:
        raise not_found(f"Package {package_id}")
    return row


@router.get("/{packageId}", responses=ERRORS, response_model_exclude_none=True)
def get_package(package_id: PackageIdPath, principal: PrincipalDep, session: SessionDep) -> Package:
    return domain.view(_owned(session, principal, package_id))


@router.put(
    "/{packageId}", responses=ERRORS, response_model_exclude_none=True, dependencies=[StrictPackage]
)
def replace_package(
    package_id: PackageIdPath, body: PackageWrite, principal: PrincipalDep, context: ContextDep
) -> Package:
    try:
        with transaction(context.sessions) as session:
            row = _owned(session, principal, package_id)
            return domain.view(domain.replace_package(session, row, body))
    except IntegrityError:
        raise conflict(_DUPLICATE, source="identifiers") from None


@router.delete("", responses=ERRORS, response_model_exclude_none=True)
def delete_package(
    principal: PrincipalDep,
    context: ContextDep,
    package_id: Annotated[UUID | None, Query(alias="id")] = None,
    identifier_type: Annotated[str | None, Query(alias="identifier.type")] = None,
    identifier_value: Annotated[str | None, Query(alias="identifier.value")] = None,
) -> DeletedPackage:
    identifier = _pair(identifier_type, identifier_value)
    if package_id is None and identifier is None:
        raise field_errors(
            [
                ("id", "give the package id, or identifier.type and identifier.value"),
                ("identifier.type", "give the package id, or identifier.type and identifier.value"),
            ]
        )
    if package_id is not None and identifier is not None:
        raise field_error("id", "give either id or identifier.type and identifier.value, not both")
    with transaction(context.sessions) as session:
        if package_id is not None:
            row = _owned(session, principal, package_id)
        else:
            assert identifier is not None
            found = domain.package_by_identifier(session, principal.tenant_id, *identifier)
            if found is None:
                raise not_found(f"A package with identifier {identifier[0]} {identifier[1]!r}")
            row = found
        return domain.soft_delete(session, row)
