"""Strict request bodies: a misspelt field is the caller's mistake, answered with a 400.

The wire models are lenient so that clients survive a newer service; the service itself tells
a caller about an unknown field (with its path) instead of silently dropping it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from freightdesk.models.base import json_type_problem
from freightdesk.server.auth import PrincipalDep


def strict_body(model: type[BaseModel]) -> Callable[..., Awaitable[None]]:
    """A dependency refusing unknown fields anywhere in a JSON body, values of another JSON
    type than the field's (`false` for an integer: what StrictWireModel refuses, also for
    lenient models). NUL characters are refused before, for every body (body_limits.py).

    Runs after authentication, so an unauthenticated caller learns nothing about the shape.
    Bodies that are not JSON objects, empty or malformed are left to FastAPI's own validation
    (415, 400).
    """

    async def check(request: Request, _principal: PrincipalDep) -> None:
        await refuse_unknown_fields(request, model)

    return check


async def refuse_unknown_fields(request: Request, model: type[BaseModel]) -> None:
    """strict_body's check, for a route that authenticates its callers in its own way."""
    if "json" not in request.headers.get("content-type", "").lower():
        return
    raw = await request.body()
    if not raw:
        return
    try:
        data = json.loads(raw)
    except ValueError:
        return
    if not isinstance(data, dict):
        return  # not an object (or null for an optional body): FastAPI's validation says so
    try:
        model.model_validate(data, extra="forbid")
    except ValidationError as exc:
        raise RequestValidationError(
            [{**error, "loc": ("body", *error["loc"])} for error in exc.errors()]
        ) from None
    mistyped = json_type_problem(model, data)
    if mistyped is not None:
        path, message = mistyped
        error = {"loc": ("body", *path), "msg": message, "type": "json_type"}
        raise RequestValidationError([error])
