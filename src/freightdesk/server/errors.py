"""Every error the service answers is the interface's Error body, with the right status.

`ApiError` is what routers and domain code raise; the handlers here turn it, FastAPI's
validation errors, Starlette's routing errors and anything unexpected into the Error body.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.exc import DataError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match, Route

from freightdesk.models.base import error_location
from freightdesk.models.errors import ErrorBody, ErrorDetail, Severity

log = logging.getLogger("freightdesk.server")

_LOCATIONS = {"body", "query", "path", "header", "cookie"}


class ApiError(Exception):
    """An answer other than success, carrying what the Error body needs."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        errors: Sequence[ErrorDetail] = (),
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = list(errors)
        self.headers = headers or {}


def field_error(source: str, message: str, *, status: int = 400) -> ApiError:
    """A refusal caused by one field; `source` is its path, e.g. `address.country`."""
    return ApiError(
        status, f"{source}: {message}", errors=[ErrorDetail(message=message, source=source)]
    )


def field_errors(problems: Iterable[tuple[str, str]], *, status: int = 400) -> ApiError:
    """A refusal listing several fields at once, so a form can mark them all."""
    details = [ErrorDetail(message=message, source=source) for source, message in problems]
    if not details:
        raise ValueError("field_errors needs at least one problem")
    summary = f"{details[0].source}: {details[0].message}"
    if len(details) > 1:
        summary += f" (and {len(details) - 1} more)"
    return ApiError(status, summary, errors=details)


def not_found(what: str) -> ApiError:
    return ApiError(404, f"{what} was not found")


def conflict(message: str, source: str | None = None) -> ApiError:
    return ApiError(409, message, errors=[ErrorDetail(message=message, source=source)])


def loc_to_path(loc: Sequence[int | str]) -> str:
    """('body', 'routeInfo', 'stops', 2, 'name') -> 'routeInfo.stops[2].name'."""
    parts = list(loc)
    if parts and parts[0] in _LOCATIONS:
        parts = parts[1:]
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif str(part).startswith(("function-", "tagged-union", "union[")):
            continue
        else:
            path += f".{part}" if path else str(part)
    return path or "body"


def validation_details(errors: Sequence[Any]) -> list[ErrorDetail]:
    details: list[ErrorDetail] = []
    for error in errors:
        path = loc_to_path(error_location(error))
        message = str(error.get("msg", "is not valid"))
        message = message.removeprefix("Value error, ")
        details.append(
            ErrorDetail(
                severity=Severity.ERROR,
                message=message,
                diagnostic=str(error.get("type", "")) or None,
                source=path,
            )
        )
    return details


def error_body(
    request: Request, status: int, message: str, errors: Sequence[ErrorDetail] = ()
) -> ErrorBody:
    reference = getattr(request.state, "support_reference_id", None)
    return ErrorBody(
        http_status_code=status,
        http_message=_reason(status),
        error_message=message,
        errors=list(errors),
        support_reference_id=reference,
    )


def error_response(
    request: Request,
    status: int,
    message: str,
    errors: Sequence[ErrorDetail] = (),
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = error_body(request, status, message, errors)
    request.state.error_message = message
    return JSONResponse(body.wire(), status_code=status, headers=headers)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _is_json(request: Request) -> bool:
    content_type = request.headers.get("content-type", "")
    return "json" in content_type.split(";")[0].lower()


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(request, exc.status, exc.message, exc.errors, exc.headers)


def _path_methods(request: Request) -> tuple[set[str], set[str]]:
    """The methods of the routes whose path matches this request's: those of fixed paths
    (`/documents/search`) and those of templated ones (`/documents/{documentId}`)."""
    fixed: set[str] = set()
    templated: set[str] = set()
    routes: list[BaseRoute] = request.app.router.routes
    for route in routes:
        if not isinstance(route, Route) or not route.methods:
            continue
        match, _ = route.matches({**request.scope, "type": "http"})
        if match is not Match.NONE:
            (templated if route.param_convertors else fixed).update(route.methods)
    return fixed, templated


def _method_not_allowed(request: Request, methods: set[str]) -> JSONResponse:
    message = f"{request.method} is not allowed on {request.url.path}"
    return error_response(request, 405, message, headers={"Allow": ", ".join(sorted(methods))})


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError | ValidationError)
    errors = exc.errors()
    if any(tuple(e.get("loc", ()))[:1] == ("path",) for e in errors):
        # `PUT /documents/search` reached `PUT /documents/{documentId}` with "search" as the
        # id: the path is the fixed route's, which does not take this method.
        fixed, _ = _path_methods(request)
        if fixed and request.method not in fixed:
            return _method_not_allowed(request, fixed)
    body_errors = [e for e in errors if tuple(e.get("loc", ()))[:1] == ("body",)]
    if body_errors and request.method in {"POST", "PUT", "PATCH"}:
        has_body = bool(request.headers.get("content-length", "0") != "0")
        content_type = request.headers.get("content-type", "")
        expects_form = content_type.startswith("multipart/") or content_type.startswith(
            "application/x-www-form-urlencoded"
        )
        if has_body and not _is_json(request) and not expects_form:
            return error_response(
                request,
                415,
                f"Content type {content_type or '(none)'} is not supported here; "
                "send application/json",
            )
        if any(e.get("type") == "json_invalid" for e in body_errors):
            detail = body_errors[0]
            return error_response(
                request,
                400,
                "The request body is not valid JSON",
                [
                    ErrorDetail(
                        message=str(detail.get("ctx", {}).get("error", "malformed JSON")),
                        diagnostic="json_invalid",
                        source="body",
                    )
                ],
            )
    details = validation_details(errors)
    summary = f"{details[0].source}: {details[0].message}" if details else "Invalid request"
    if len(details) > 1:
        summary += f" (and {len(details) - 1} more)"
    return error_response(request, 400, summary, details)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    if status == 404:
        message = f"There is no operation at {request.url.path}"
    elif status == 405:
        # Starlette names the methods of the first route of the path only.
        fixed, templated = _path_methods(request)
        return _method_not_allowed(request, fixed or templated)
    else:
        message = str(exc.detail) if exc.detail else _reason(status)
    return error_response(request, status, message, headers=dict(exc.headers or {}))


async def _database_refused(request: Request, exc: Exception) -> JSONResponse:
    # The database refused a value the models let through (a NUL character on PostgreSQL,
    # a number out of the column's range): the client's input, not a fault of the service.
    log.info("database refused a value: %s", exc)
    return error_response(
        request,
        400,
        "The request contains a value that cannot be stored (for example a NUL character "
        "or a number out of range)",
        [ErrorDetail(message="value cannot be stored", diagnostic="data_error", source="body")],
    )


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    reference = getattr(request.state, "support_reference_id", "-")
    log.exception("internal error ref=%s %s %s", reference, request.method, request.url.path)
    return error_response(
        request,
        500,
        "The service failed to handle this request; quote the support reference id",
    )


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(ValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(DataError, _database_refused)
    app.add_exception_handler(Exception, _unexpected)
