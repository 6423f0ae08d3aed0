"""Requests for a fixed path routed by a dictionary lookup instead of Starlette's scan.

Starlette tries an app's routes in turn until one matches the whole request: a request for
an operation declared late (the document search came after some 50 others) paid for matching
every route before it, about 85 us of a search's 340 in-process (issue 18), and a small list
about 15 us. `FixedPaths`, the app's first route, finds the route of a request for a path
without parameters in a dictionary, and only the one the scan would have taken: the first
route that matches the whole request (path and method). Any other request, for a templated
path, a method its path does not take, a path that is not there, falls through to the scan
in the declared order, so every answer and error is the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.routing import BaseRoute, Match, Route
from starlette.types import Receive, Scope, Send


class FixedPaths(BaseRoute):
    """The routes of `routes` (in matching order) for a fixed path and a method, each where
    no route before it matches the same whole request. Not documented itself."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self._routes: dict[tuple[str, str], Route] = {}
        for position, route in enumerate(routes):
            if not isinstance(route, Route) or route.param_convertors or not route.methods:
                continue
            for method in route.methods:
                key = (route.path, method)
                if key not in self._routes and not _taken_before(routes[:position], *key):
                    self._routes[key] = route

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        route = self._route(scope)
        if route is None:
            return Match.NONE, {}
        match, child = route.matches(scope)
        return (match, child) if match is Match.FULL else (Match.NONE, {})

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = self._route(scope)
        assert route is not None  # matched by `matches` just before
        await route.handle(scope, receive, send)

    def _route(self, scope: Scope) -> Route | None:
        # Under a root path the path matched is not the scope's: left to the scan.
        if scope["type"] != "http" or scope.get("root_path"):
            return None
        return self._routes.get((scope["path"], scope["method"]))


def _taken_before(routes: Sequence[BaseRoute], path: str, method: str) -> bool:
    """Whether one of `routes` matches a request for `path` with `method` whole."""
    probe: dict[str, Any] = {"type": "http", "path": path, "method": method, "root_path": ""}
    return any(route.matches(probe)[0] is Match.FULL for route in routes)


def index_fixed_paths(routes: list[BaseRoute]) -> None:
    """Put `FixedPaths` of `routes`, as they are now, before them."""
    routes.insert(0, FixedPaths(routes))
