"""The operations' lean handlers and the fixed paths' index answer every request exactly as
FastAPI's own handlers and Starlette's scan of the routes do (server/handlers.py,
server/route_index.py): the same requests, good and bad, sent to the real service with them
and then with FastAPI's and Starlette's own, give the same statuses, headers and bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, request_response
from starlette.routing import BaseRoute, Match, Route

from freightdesk.server.route_index import FixedPaths
from tests.support import LiveService, TenantHandle, running_service, tenant_of

GROUPS = "/api/v4/capacityprovideraccountgroups"
DOCUMENTS = "/services/document/v1/documents"
SEARCH = f"{DOCUMENTS}/search"
PUSH = "/services/carrier-push/v1/tracking-updates"
JSON = {"content-type": "application/json"}
# Headers that differ between any two answers (a new id, the time), and the Error body's id.
VARYING = {"x-support-reference-id", "x-server-time", "date"}


@pytest.fixture(scope="module")
def own_service() -> Iterator[LiveService]:
    """A service of this module's own: its routes are switched to FastAPI's handlers."""
    with running_service() as live:
        yield live


@pytest.fixture
def caller(own_service: LiveService) -> Iterator[TenantHandle]:
    with tenant_of(own_service) as handle:
        handle.http.post(GROUPS, json={"code": "G1", "name": "Group 1"}).raise_for_status()
        yield handle


@contextmanager
def frameworks_own(app: FastAPI) -> Iterator[None]:
    """`app` answering with FastAPI's handler on every operation and Starlette's scan of the
    routes, for the block."""
    routes: list[BaseRoute] = app.router.routes
    kept = list(routes)
    apps = {id(route): route.app for route in routes if isinstance(route, APIRoute)}
    for route in routes:
        if isinstance(route, APIRoute) and _is_lean(route):
            route.app = request_response(route.get_route_handler())
    routes[:] = [route for route in routes if not isinstance(route, FixedPaths)]
    try:
        yield
    finally:
        routes[:] = kept
        for route in routes:
            if isinstance(route, APIRoute):
                route.app = apps[id(route)]


def _is_lean(route: APIRoute) -> bool:
    """Whether the route's app is one the service made (the lean handler's)."""
    qualname = getattr(route.app, "__qualname__", "")
    cells = getattr(route.app, "__closure__", None) or ()
    inner = [getattr(cell.cell_contents, "__qualname__", "") for cell in cells]
    return qualname == "_asgi.<locals>.app" or "_lean.<locals>.handle" in inner


def seen(answer: httpx.Response) -> tuple[int, list[tuple[str, str]], Any]:
    """An answer without what differs between any two: its status, headers and body."""
    headers = sorted((k, v) for k, v in answer.headers.items() if k not in VARYING)
    body: Any = answer.content
    if answer.headers.get("content-type", "").startswith("application/json") and body:
        body = json.loads(body)
        if isinstance(body, dict):
            body.pop("supportReferenceId", None)
            # A length that differs only by the id's presence is compared through the body.
            headers = [(k, v) for k, v in headers if k != "content-length"]
    return answer.status_code, headers, body


# (method, path, query, body bytes or None, extra headers)
Request = tuple[str, str, dict[str, Any], bytes | None, dict[str, str]]
REQUESTS: list[Request] = [
    ("GET", "/health", {}, None, {}),
    ("GET", "/ready", {}, None, {}),
    ("GET", GROUPS, {}, None, {}),
    ("GET", GROUPS, {}, None, {"x-tenant-role": "PILOT"}),
    ("GET", GROUPS, {}, None, {"authorization": "Bearer not-a-token"}),
    ("GET", GROUPS, {}, None, {"authorization": "Basic !!"}),
    ("GET", f"{GROUPS}/", {}, None, {}),
    ("POST", GROUPS, {}, b"{", JSON),
    ("POST", GROUPS, {}, b"[]", JSON),
    ("POST", GROUPS, {}, b'{"code": "G1", "name": "again"}', JSON),
    ("POST", GROUPS, {}, b'{"code": "", "name": 5, "extra": 1}', JSON),
    ("POST", GROUPS, {}, b"code=G9", {"content-type": "text/plain"}),
    ("POST", GROUPS, {}, b'{"code": "G9"}', {}),
    ("PUT", f"{GROUPS}/not-a-number", {}, b'{"name": "x"}', JSON),
    ("PUT", f"{GROUPS}/99999999", {}, b'{"name": "x"}', JSON),
    ("DELETE", f"{GROUPS}/99999999", {}, None, {}),
    ("PATCH", GROUPS, {}, b"{}", JSON),
    ("POST", SEARCH, {}, None, {}),
    ("POST", SEARCH, {}, b"{}", JSON),
    ("POST", SEARCH, {"page": 2, "size": 1}, b"{}", JSON),
    ("POST", SEARCH, {"page": "01"}, b"{}", {"content-type": "application/json; charset=utf-8"}),
    ("POST", SEARCH, {"size": 501}, b'{"mode": 1}', JSON),
    ("POST", SEARCH, {"page": 0, "size": "x"}, b"{}", JSON),
    ("POST", SEARCH, {}, b'{"name": {"operator": "EQUALS", "value": "doc"}}', JSON),
    ("POST", SEARCH, {}, b'{"nope": 1}', JSON),
    ("POST", SEARCH, {}, b"[1]", JSON),
    ("POST", SEARCH, {}, b"{", JSON),
    ("POST", SEARCH, {}, b"{}", {"content-type": "text/plain"}),
    ("POST", SEARCH, {}, b"{}", {"x-tenant-role": "PILOT", **JSON}),
    ("POST", SEARCH, {}, b"{}", {"authorization": "", **JSON}),
    ("PUT", SEARCH, {}, b"{}", JSON),
    ("GET", f"{DOCUMENTS}/not-a-uuid", {}, None, {}),
    ("GET", "/nothing/here", {}, None, {}),
]


def send(http: httpx.Client, request: Request) -> httpx.Response:
    method, path, query, body, headers = request
    return http.request(method, path, params=query, content=body, headers=headers)


def test_every_request_is_answered_as_by_fastapis_own_handlers(
    own_service: LiveService, caller: TenantHandle
) -> None:
    http = caller.http
    http.post(SEARCH, json={}).raise_for_status()  # the token trusted from the cache on
    for request in REQUESTS:
        ours = send(http, request)
        with frameworks_own(own_service.app):
            theirs = send(http, request)
        assert seen(ours) == seen(theirs), request


def test_the_services_operations_have_the_lean_handler(own_service: LiveService) -> None:
    routes = [route for route in own_service.app.router.routes if isinstance(route, APIRoute)]
    lean = [f"{sorted(route.methods or ())} {route.path}" for route in routes if _is_lean(route)]
    # All but the pushes, answered by an operation of their own (routers/carrier_push.py),
    # and the token's, whose body is a form.
    kept = {"/api/v4/oauth2/token", PUSH}
    kept.add("/api/v4/capacityproviders/parcel/shipments/statusupdates")
    assert {route.path for route in routes if not _is_lean(route)} == kept
    assert len(lean) == len(routes) - len(kept)
    assert any(SEARCH in entry for entry in lean)
    assert isinstance(own_service.app.router.routes[0], FixedPaths)


def test_every_fixed_path_operation_is_found_by_the_index(own_service: LiveService) -> None:
    # The checks and the pushes among them, which no route ahead of the scan shadows: the
    # index is what finds them fast, in their declared place among the routes.
    routes = own_service.app.router.routes
    index = routes[0]
    assert isinstance(index, FixedPaths)
    fixed = [r for r in routes if isinstance(r, APIRoute) and not r.param_convertors]
    assert {"/health", "/ready", PUSH} <= {route.path for route in fixed}
    for route in fixed:
        for method in route.methods or ():
            scope = {"type": "http", "path": route.path, "method": method, "root_path": ""}
            match, child = index.matches(scope)
            assert (match, child.get("endpoint")) == (Match.FULL, route.endpoint), scope


def test_a_fixed_path_is_indexed_only_where_the_scan_would_take_its_route() -> None:
    def endpoint(request: object) -> None:
        raise AssertionError("not called")

    templated = Route("/items/{item}", endpoint, methods=["GET"])
    fixed = Route("/items/search", endpoint, methods=["GET", "POST"])
    index = FixedPaths([templated, fixed])

    def matched(method: str) -> Match:
        scope = {"type": "http", "path": "/items/search", "method": method, "root_path": ""}
        return index.matches(scope)[0]

    # GET /items/search is the templated route's ("search" as the item), as in the scan.
    assert (matched("GET"), matched("HEAD"), matched("POST"), matched("PUT")) == (
        Match.NONE,
        Match.NONE,
        Match.FULL,
        Match.NONE,
    )
