"""Reading a list the local service offers as an extension of the interface, page by page.

The rate-request and rail-leg lists are extensions: another deployment of the interface answers
them 404 or 405, and the app then shows only what it made or looked up itself. `read_pages`
gathers the newest items up to a limit and says None for such a service.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

from freightdesk.api.errors import ApiError
from freightdesk.models.common import PaginationInfo

T = TypeVar("T", covariant=True)
Item = TypeVar("Item")


class Page(Protocol[T]):
    @property
    def pagination_info(self) -> PaginationInfo: ...

    @property
    def results(self) -> Sequence[T]: ...


async def read_pages(
    fetch: Callable[[int, int], Awaitable[Page[Item]]], limit: int, page_size: int
) -> list[Item] | None:
    """Up to `limit` items, reading pages of `page_size` with `fetch(page_number, page_size)`;
    None where the service does not offer the list (404 or 405)."""
    found: list[Item] = []
    page_number = 1
    try:
        while len(found) < limit:
            page = await fetch(page_number, page_size)
            found += page.results
            if not page.results or page_number * page_size >= page.pagination_info.total:
                break
            page_number += 1
    except ApiError as exc:
        if exc.status not in (404, 405):
            raise
        return None
    return found[:limit]
