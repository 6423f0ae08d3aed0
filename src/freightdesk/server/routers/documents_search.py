"""The document search's answer. The operation is declared in `documents`; its requests are
answered by the service's lean handler (server/handlers.py) and found by the fixed paths'
index (server/route_index.py), as every operation's: a38ecd9 answered its usual request
with a parser of its own, no longer needed (issue 18)."""

from __future__ import annotations

from fastapi import Request, Response

from freightdesk.models.documents import DocumentSearch
from freightdesk.server.context import context_of, on_loop_when_cheap
from freightdesk.server.domain.documents import Viewer, search_documents
from freightdesk.server.domain.driver_statements import reading
from freightdesk.server.principal import Principal

# The search's query parameters: defaults and the largest page.
FIRST_PAGE = 1
PAGE_SIZE = 10
MAX_PAGE_SIZE = 500


async def found(
    request: Request, principal: Principal, criteria: DocumentSearch, page: int, size: int
) -> Response:
    """The search's answer: the bytes of `DocumentSearchResults` for one page."""
    engine = context_of(request).engine  # no session: nothing to load

    def read() -> bytes:
        # On SQLite the thread's kept connection: checking one out of the pool and rolling
        # it back cost about a tenth of a small page's time.
        viewer = Viewer(principal.tenant_id, principal.tenant_uuid)
        with reading(engine) as run:
            return search_documents(run, viewer, criteria, page=page, size=size)

    # On SQLite an indexed page costs less than the hop to the thread pool and back (issue 18).
    return Response(await on_loop_when_cheap(read, reads=engine), media_type="application/json")
