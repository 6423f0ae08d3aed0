"""Packages for the app: a page of the search with every filter of the interface, create,
edit (with the status workflow), delete by id or by an identifier, and the service's rules
checked before sending.

The workflow and the rules are the local service's own (models/package_rules.py): UNASSIGNED ->
ASSIGNED -> CONFIRMED, ASSIGNED -> UNASSIGNED, CONFIRMED -> UNASSIGNED; a CONFIRMED package's
contents are fixed until it is released.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import NotFound
from freightdesk.api.packaging import DEFAULT_PAGE_SIZE
from freightdesk.models.package_rules import (
    CONTENT_FIELDS,
    SKU,
    confirmed_change_problem,
    identifier_problems,
    new_status_problem,
    postal_code_key,
    text_key,
    transition_problem,
)
from freightdesk.models.packaging import (
    DeletedPackage,
    Package,
    PackageLocation,
    PackageSearch,
    PackageWrite,
)
from freightdesk.service.cache import Cache
from freightdesk.service.listing import ListService, Params
from freightdesk.service.validation import checked

PAGE_SIZE = 25


def check_package(
    wire: dict[str, Any], current: Package | None = None
) -> tuple[PackageWrite | None, dict[str, str]]:
    """The body for a form given as wire fields, or every problem by field path.

    `current`: the saved package being edited, whose status limits where it may move."""
    problems: dict[str, str] = {}
    if not wire.get("items"):
        problems["items"] = "Add at least one item (order identifier and quantity)"
    if not wire.get("identifiers"):
        problems["identifiers"] = "Add at least one identifier, e.g. a delivery number or an OLPN"
    package, problems = checked(PackageWrite, wire, problems)
    if package is None:
        return None, problems
    if current is None:
        problem = new_status_problem(package.status)
    else:
        problem = _status_problem(current, package)
    if problem is not None:
        problems["status"] = problem
    return (None, problems) if problems else (package, {})


def _status_problem(current: Package, package: PackageWrite) -> str | None:
    requested = package.status or current.status
    changed = _content(package.wire()) != _content(current.wire())
    return transition_problem(current.status, requested) or confirmed_change_problem(
        current.status, requested, content_changed=changed
    )


def _content(wire: dict[str, Any]) -> dict[str, Any]:
    # The saved package's wire leaves out what the form sends as empty: compare the rest.
    return {
        name: wire.get(name) for name in CONTENT_FIELDS if wire.get(name) not in (None, [], False)
    }


def check_identifier(type_: str, value: str) -> dict[str, str]:
    """The service's rule for deleting by an identifier: a type and an exact value, both given
    (problems by the query parameter's name)."""
    return dict(identifier_problems(type_, value))


def as_write(package: Package) -> dict[str, Any]:
    """The wire fields of a PUT that keeps the package as it is (the form edits these)."""
    wire = package.wire()
    return {k: v for k, v in wire.items() if k in (*CONTENT_FIELDS, "status")}


def matches(package: Package, search: PackageSearch) -> bool:
    """The service's filters, for placing a new or edited package in the list shown."""
    if search.identifier_type and search.identifier_value:
        wanted = (search.identifier_type, search.identifier_value)
        if wanted not in {(i.type, i.value) for i in package.identifiers}:
            return False
    if search.sku_identifier:
        skus = {i.value for item in package.items for i in item.identifiers if i.type == SKU}
        if search.sku_identifier not in skus:
            return False
    for location, prefix in (
        (package.origin_location, "origin"),
        (package.destination_location, "destination"),
    ):
        if not _location_matches(location, search, prefix):
            return False
    return True


def _location_matches(location: PackageLocation | None, search: PackageSearch, prefix: str) -> bool:
    address = location.address if location else None
    for name in ("city", "state", "country"):
        wanted = getattr(search, f"{prefix}_{name}")
        actual = getattr(address, name, None) if address else None
        if wanted and text_key(wanted) != text_key(actual):
            return False
    postal = getattr(search, f"{prefix}_postal_code")
    actual_postal = address.postal_code if address else None
    return not (postal and postal_code_key(postal) != postal_code_key(actual_postal))


class PackagesService(ListService[Package]):
    kind = "packages"

    def __init__(
        self, client: Callable[[], ApiClient], cache: Cache, *, interval: float = 60.0
    ) -> None:
        super().__init__(
            cache,
            Package,
            lambda p: str(p.id),
            params={"pageNumber": 1, "pageSize": PAGE_SIZE},
            interval=interval,
        )
        self._client = client

    async def fetch_items(self, params: Params) -> tuple[Sequence[Package], int]:
        page = await self._client().packaging.page(
            PackageSearch.from_params(params),
            page_number=int(params.get("pageNumber", 1)),
            page_size=int(params.get("pageSize", DEFAULT_PAGE_SIZE)),
        )
        return page.results, page.pagination_info.total

    def sort_key(self, item: Package) -> Any:
        created = item.created_date_time.timestamp() if item.created_date_time else 0.0
        return (-created, str(item.id))

    def fits(self, item: Package, params: Params) -> bool:
        if int(params.get("pageNumber", 1)) != 1:
            return False
        return matches(item, PackageSearch.from_params(params))

    def page_limit(self, params: Params) -> int | None:
        return int(params.get("pageSize", PAGE_SIZE))

    async def get(self, package_id: UUID | str) -> Package:
        return await self._client().packaging.get(package_id)

    async def save(self, package: PackageWrite, package_id: UUID | str | None = None) -> Package:
        """Create (no id) or replace; the list shows the result before this returns."""
        api = self._client().packaging
        if package_id is None:
            saved = await api.create(package)
            await self.upsert(saved, first=True)
        else:
            saved = await api.put(package_id, package)
            await self.upsert(saved, grow=False)
        return saved

    async def delete(self, package_id: UUID | str) -> DeletedPackage | None:
        """Delete (soft); None when it was already gone (the wish is met)."""
        deleted: DeletedPackage | None = None
        with contextlib.suppress(NotFound):
            deleted = await self._client().packaging.delete(package_id)
        await self.remove(str(package_id))
        return deleted

    async def delete_by_identifier(self, type_: str, value: str) -> DeletedPackage:
        """Delete (soft) the live package with this identifier (type and exact value).

        Raises NotFound when no live package has it: unlike a delete by id, the user named a
        package that may never have existed, which they need to know."""
        api = self._client().packaging
        deleted = await api.delete_by_identifier(type_.strip(), value.strip())
        await self.remove(str(deleted.id))
        return deleted
