"""Packaging: search packages by every filter of the interface, create, read, replace, and
delete (soft) by id or by an identifier."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from uuid import UUID

from freightdesk.api.parsing import parse
from freightdesk.models.packaging import (
    DeletedPackage,
    Package,
    PackageList,
    PackageSearch,
    PackageWrite,
)

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

PATH = "/services/booking/v1/packaging"
DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100


class PackagingApi:
    def __init__(self, client: ApiClient) -> None:
        self._client = client

    async def page(
        self,
        search: PackageSearch | None = None,
        *,
        page_number: int = 1,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> PackageList:
        """One page of matching packages, newest first."""
        params: dict[str, Any] = (search or PackageSearch()).params()
        params.update(pageNumber=page_number, pageSize=page_size)
        response = await self._client.request("GET", PATH, params=params)
        return parse(PackageList, response)

    async def search(
        self, search: PackageSearch | None = None, *, page_size: int = MAX_PAGE_SIZE
    ) -> AsyncIterator[Package]:
        """Every matching package, page by page."""
        number = 1
        while True:
            result = await self.page(search, page_number=number, page_size=page_size)
            for package in result.results:
                yield package
            if number * page_size >= result.pagination_info.total or not result.results:
                return
            number += 1

    async def create(self, package: PackageWrite) -> Package:
        """Create (UNASSIGNED); a POST, so never repeated blindly."""
        response = await self._client.request("POST", PATH, json=package.wire())
        return parse(Package, response)

    async def get(self, package_id: UUID | str) -> Package:
        response = await self._client.request("GET", f"{PATH}/{package_id}")
        return parse(Package, response)

    async def put(self, package_id: UUID | str, package: PackageWrite) -> Package:
        """Replace the package (its `status` moves it along the workflow; absent keeps it).
        Repeating the same PUT leaves the same package, so it is retried safely."""
        response = await self._client.request("PUT", f"{PATH}/{package_id}", json=package.wire())
        return parse(Package, response)

    async def delete(self, package_id: UUID | str) -> DeletedPackage:
        """Soft delete by id; answers the id and identifiers the package had."""
        response = await self._client.request("DELETE", PATH, params={"id": str(package_id)})
        return parse(DeletedPackage, response)

    async def delete_by_identifier(self, identifier_type: str, value: str) -> DeletedPackage:
        """Soft delete the live package that has this identifier (an exact match)."""
        response = await self._client.request(
            "DELETE",
            PATH,
            params={"identifier.type": identifier_type, "identifier.value": value},
        )
        return parse(DeletedPackage, response)
