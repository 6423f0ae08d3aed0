"""The document search's request path: its answer, and its usual request answered without
FastAPI's per-request machinery (issue 18). The operation is declared in `documents`, in its
place in the OpenAPI document and with its validation of every other request."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.requests import ClientDisconnect
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from freightdesk.models.documents import DocumentSearch
from freightdesk.server.auth import trusted_principal
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


class _SearchOperation:
    """The search's usual request answered without FastAPI's per-request machinery (solving
    the dependencies, the query parameters and the body: about a third of a narrow search's
    CPU in-process, issue 18); the route's own handler answers every other request.

    The usual request: a bearer token the cache trusts, `page` and `size` absent or plain
    numbers within their bounds, and no body or an `application/json` one that validates.
    Its checks have no effect of their own, so a request that fails one is handed to the
    route as it came and answered exactly as before (every error body and status); the
    token's and the role header's refusals are the route's own, raised in its order (after
    a body that is not JSON, before the query's and the body's validation)."""

    def __init__(self, declared: ASGIApp) -> None:
        self._declared = declared

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            body = await request.body()
        except ClientDisconnect:
            return  # nobody to answer
        usual = _usual_search(request, body)
        if usual is None:
            await self._declared(scope, _replayed(body, receive), send)
            return
        response = await found(request, *usual)
        await response(scope, receive, send)


def _usual_search(
    request: Request, body: bytes
) -> tuple[Principal, DocumentSearch, int, int] | None:
    """The caller, criteria, page and size of a usual search (see `_SearchOperation`)."""
    data: Any = None
    if body:
        if request.headers.get("content-type") != "application/json":
            return None
        try:
            data = json.loads(body)
        except Exception:  # FastAPI's 400 (not JSON, not UTF-8, nested too deep)
            return None
    principal = trusted_principal(request)
    paging = _usual_paging(request.scope["query_string"])
    if principal is None or paging is None:
        return None
    if not body:
        return principal, DocumentSearch(), *paging
    if not isinstance(data, dict):
        return None
    try:
        # As FastAPI validates the body parameter: the parsed JSON, in Python mode.
        criteria = DocumentSearch.model_validate(data, from_attributes=True)
    except ValidationError:
        return None
    return principal, criteria, *paging


def _usual_paging(query: bytes) -> tuple[int, int] | None:
    """`page` and `size` of a query string that gives each at most once, as a plain decimal
    number within its bounds; None for anything else (FastAPI's validation decides)."""
    given = {"page": FIRST_PAGE, "size": PAGE_SIZE}
    seen: set[str] = set()
    # Parsed as Starlette parses it for FastAPI.
    for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if name not in given:
            continue  # FastAPI ignores other parameters
        if name in seen or not _PLAIN_NUMBER.fullmatch(value):
            return None
        seen.add(name)
        given[name] = int(value)
    page, size = given["page"], given["size"]
    return (page, size) if size <= MAX_PAGE_SIZE else None


# A positive number without a sign, spaces or leading zeros, short enough for an int64.
_PLAIN_NUMBER = re.compile(r"[1-9][0-9]{0,17}")


def _replayed(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body read already, then the connection's own messages."""
    first = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> Message:
        return first.pop() if first else await receive()

    return again


class _SearchFirst(BaseRoute):
    """The search's route, tried before the service's other routes (app.py's
    `_checks_first`): Starlette tries the routes in turn, and the search came after some 50
    others, about 30 us of a search in matching alone (issue 18). Only the search route's
    full match is taken here (its path and method); anything else is matched in the usual
    order, as before. Not documented: the declared route is, in place."""

    match_first = True

    def __init__(self, route: APIRoute) -> None:
        self._route = route

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or scope.get("path") != self._route.path:
            return Match.NONE, {}
        match, child = self._route.matches(scope)
        return (match, child) if match is Match.FULL else (Match.NONE, {})

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._route.handle(scope, receive, send)


def usual_first(route: APIRoute) -> BaseRoute:
    """The search's declared `route`, answering its usual request itself (`_SearchOperation`),
    as a route to try before the service's others."""
    # Starlette's route still matches the request and refuses other methods (405).
    route.app = _SearchOperation(route.app)
    return _SearchFirst(route)
