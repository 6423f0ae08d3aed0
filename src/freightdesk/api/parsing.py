"""Turning response bodies into models, refusing what the interface does not promise."""

from __future__ import annotations

from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from freightdesk.api.errors import ProtocolError

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


def parse(model: type[M], response: httpx.Response) -> M:
    """The response body as `model`, or ProtocolError if it is not what the interface promises."""
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        raise _protocol_error(response, exc) from exc


def parse_as(kind: type[T] | Any, response: httpx.Response) -> T:
    """Like `parse` for non-model shapes (lists of models, ...)."""
    try:
        result: T = TypeAdapter(kind).validate_json(response.content)
    except ValidationError as exc:
        raise _protocol_error(response, exc) from exc
    return result


def _protocol_error(response: httpx.Response, exc: ValidationError) -> ProtocolError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "body"
    request = response.request
    operation = f"{request.method} {request.url.path}"
    return ProtocolError(
        f"{operation} answered an unexpected body ({where}: {first['msg']})",
        status=response.status_code,
        body=response.content,
    )
