"""The operations' request handlers, leaner than FastAPI's for the same answers (issue 18).

FastAPI's handler (`fastapi.routing.get_request_handler`) does, on every request, work whose
result depends on the route only: classifying each dependency (coroutine, generator, its
cache key and OAuth scopes, through several caches), looking up its OpenTelemetry state
(off in this service), extracting the endpoint's source location for error messages, parsing
the content type with `email.message`, and calling the parameter checks for every kind of
parameter, present or not. For a small answer that was about a third of the service's own CPU
(`python -m bench.request_cost`).

`lean_handlers` gives each operation a handler that does that work once, when the app is
built, and per request only what depends on the request: the body read and parsed as FastAPI
does, the dependencies solved in FastAPI's order with its cache, the parameters and the body
checked by FastAPI's own functions (so every error is the same), the endpoint called, its
answer made as FastAPI makes it. A request whose body FastAPI would refuse before any
dependency runs (not JSON, unreadable) is handed to FastAPI's own handler of the route, which
refuses it. Routes using what this does not do (form bodies, streams, security scopes,
background tasks, dependency overrides, a limit of concurrency) keep FastAPI's handler.
"""

from __future__ import annotations

import email.message
import json
from collections.abc import Callable, Coroutine
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, HTTPException, params
from fastapi._body_limit import get_body_limit_error
from fastapi._compat import Undefined, lenient_issubclass
from fastapi.concurrency import run_in_threadpool
from fastapi.datastructures import DefaultPlaceholder
from fastapi.dependencies.models import (
    Dependant,
    _get_cache_key,
    _is_async_gen_callable,
    _is_coroutine_callable,
    _is_gen_callable,
    _is_security_scheme,
)
from fastapi.dependencies.utils import (
    _get_param_model,
    _solve_generator,
    request_body_to_args,
    request_params_to_args,
)
from fastapi.exceptions import RequestValidationError
from fastapi.routing import (
    APIRoute,
    _build_response_args,
    _extract_endpoint_context,
    request_response,
    serialize_response,
)
from fastapi.sse import EventSourceResponse
from fastapi.telemetry._api import _run_sync_endpoint
from fastapi.types import DependencyCacheKey
from fastapi.utils import is_body_allowed_for_status_code
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


@dataclass
class _Step:
    """One dependency of a route, or the route's endpoint itself: what solving it takes."""

    dependant: Dependant
    steps: list[_Step]
    cache_key: DependencyCacheKey
    is_generator: bool
    is_coroutine: bool
    # The parameter lists to check, only those the dependant has.
    checks: list[tuple[str, list[Any]]] = field(default_factory=list)
    # Every query parameter optional, with a default taken as it is (not validated): a
    # request without a query string gets the defaults, as FastAPI's checks would give.
    query_defaults: bool = False


def _plan(dependant: Dependant) -> _Step | None:
    """How to solve `dependant`, or None if it uses what `_solve` does not do."""
    if (
        dependant.websocket_param_name
        or dependant.background_tasks_param_name
        or dependant.security_scopes_param_name
        or dependant.own_oauth_scopes
        or dependant.concurrency is not None
        or (dependant.call is not None and _is_security_scheme(dependant=dependant))
    ):
        return None
    steps = []
    for sub in dependant.dependencies:
        step = _plan(sub)
        if step is None or sub.call is None:
            return None
        steps.append(step)
    call = dependant.call
    checks = [
        (kind, fields)
        for kind, fields in (
            ("path", dependant.path_params),
            ("query", dependant.query_params),
            ("header", dependant.header_params),
            ("cookie", dependant.cookie_params),
        )
        if fields
    ]
    return _Step(
        dependant=dependant,
        steps=steps,
        cache_key=_get_cache_key(dependant=dependant),
        is_generator=_is_gen_callable(call) or _is_async_gen_callable(call),
        is_coroutine=_is_coroutine_callable(call),
        checks=checks,
        query_defaults=all(
            not query.field_info.is_required()
            and not query.field_info.validate_default
            and _get_param_model(query) is None
            for query in dependant.query_params
        ),
    )


def _received(request: Request, kind: str) -> Any:
    if kind == "path":
        return request.path_params
    if kind == "query":
        return request.query_params
    if kind == "header":
        return request.headers
    return request.cookies


async def _solve(
    step: _Step,
    request: Request,
    response: Response,
    body: Any,
    embed_body_fields: bool,
    cache: dict[DependencyCacheKey, Any],
    errors: list[Any],
) -> dict[str, Any]:
    """The values of `step`'s parameters, as FastAPI's `solve_dependencies` finds them (its
    order, its cache of dependencies); their errors added to `errors`."""
    values: dict[str, Any] = {}
    for sub in step.steps:
        dependant = sub.dependant
        sub_errors: list[Any] = []
        sub_values = await _solve(
            sub, request, response, body, embed_body_fields, cache, sub_errors
        )
        if sub_errors:
            errors.extend(sub_errors)
            continue
        call = dependant.call
        assert call is not None
        if dependant.use_cache and sub.cache_key in cache:
            solved = cache[sub.cache_key]
        elif sub.is_generator:
            stack = request.scope["fastapi_inner_astack"]
            if dependant.scope == "function":
                stack = request.scope["fastapi_function_astack"]
            solved = await _solve_generator(
                request=request, dependant=dependant, stack=stack, sub_values=sub_values
            )
        elif sub.is_coroutine:
            solved = await call(**sub_values)
        else:
            solved = await run_in_threadpool(call, **sub_values)
        if dependant.name is not None:
            values[dependant.name] = solved
        if sub.cache_key not in cache:
            cache[sub.cache_key] = solved
    for kind, fields in step.checks:
        if kind == "query" and step.query_defaults and not request.scope["query_string"]:
            # What `request_params_to_args` gives for absent optional parameters.
            values.update((query.name, deepcopy(query.default)) for query in fields)
            continue
        found, wrong = request_params_to_args(fields, _received(request, kind))
        values.update(found)
        errors += wrong
    own = step.dependant
    if own.body_params:
        found, wrong = await request_body_to_args(
            body_fields=own.body_params, received_body=body, embed_body_fields=embed_body_fields
        )
        values.update(found)
        errors.extend(wrong)
    if own.http_connection_param_name:
        values[own.http_connection_param_name] = request
    if own.request_param_name:
        values[own.request_param_name] = request
    if own.response_param_name:
        values[own.response_param_name] = response
    return values


# Content types already classified (JSON or not), as FastAPI's handler classifies them.
_JSON_TYPES: dict[str, bool] = {}


def _is_json(content_type: str) -> bool:
    known = _JSON_TYPES.get(content_type)
    if known is None:
        message = email.message.Message()
        message["content-type"] = content_type
        subtype = message.get_content_subtype()
        known = message.get_content_maintype() == "application" and (
            subtype == "json" or subtype.endswith("+json")
        )
        if len(_JSON_TYPES) < 256:  # a bound: clients choose these strings
            _JSON_TYPES[content_type] = known
    return known


def _lean(route: APIRoute, step: _Step) -> Handler:
    """`route`'s handler: FastAPI's, with the route's part done once (see the module)."""
    dependant = route.dependant
    call = dependant.call
    assert call is not None
    has_body = route.body_field is not None
    strict = route.strict_content_type
    strict_content_type = strict.value if isinstance(strict, DefaultPlaceholder) else strict
    response_class = route.response_class
    default_class = isinstance(response_class, DefaultPlaceholder)
    actual_class = (
        response_class.value if isinstance(response_class, DefaultPlaceholder) else response_class
    )
    dump_json = route.response_field is not None and default_class
    embed = route._embed_body_fields
    declared: list[Handler] = []  # FastAPI's handler of the route, made on first use

    async def handle(request: Request) -> Response:
        body: Any = Undefined
        if has_body:
            try:
                body = await _body(request, strict_content_type)
            except json.JSONDecodeError:
                # FastAPI's refusal, before any dependency: its handler reads the same body
                # again (the request keeps it) and refuses it as it always has.
                if not declared:
                    declared.append(route.get_route_handler())
                return await declared[0](request)
            except HTTPException:
                raise
            except Exception as exc:  # as FastAPI's handler
                if MAX_BODY_SIZE_SCOPE_KEY in request.scope and (
                    error := get_body_limit_error(exc)
                ):
                    raise error from exc
                raise HTTPException(400, "There was an error parsing the body") from exc
        response = Response()
        del response.headers["content-length"]
        response.status_code = None  # type: ignore[assignment]
        errors: list[Any] = []
        values = await _solve(step, request, response, body, embed, {}, errors)
        if errors:
            context = _extract_endpoint_context(call)
            if dependant.path:
                mount_path = request.scope.get("root_path", "").rstrip("/")
                context["path"] = f"{request.method} {mount_path}{dependant.path}"
            raise RequestValidationError(
                errors, body=None if body is Undefined else body, endpoint_ctx=context
            )
        if step.is_coroutine:
            answer = await call(**values)
        else:
            answer = await run_in_threadpool(_run_sync_endpoint, function=call, arguments=values)
        if isinstance(answer, Response):
            return answer
        arguments = _build_response_args(
            status_code=route.status_code, solved_result=_Solved(response)
        )
        content = await serialize_response(
            field=route.response_field,
            response_content=answer,
            include=route.response_model_include,
            exclude=route.response_model_exclude,
            by_alias=route.response_model_by_alias,
            exclude_unset=route.response_model_exclude_unset,
            exclude_defaults=route.response_model_exclude_defaults,
            exclude_none=route.response_model_exclude_none,
            is_coroutine=step.is_coroutine,
            endpoint_ctx=_extract_endpoint_context(call),
            dump_json=dump_json,
        )
        if dump_json:
            made = Response(content=content, media_type="application/json", **arguments)
        else:
            made = actual_class(content, **arguments)
        if not is_body_allowed_for_status_code(made.status_code):
            made.body = b""
        made.headers.raw.extend(response.headers.raw)
        return made

    return handle


async def _body(request: Request, strict_content_type: bool) -> Any:
    """The body as FastAPI's handler reads it: parsed JSON when its content type says JSON
    (or it has none and the route is not strict), otherwise its bytes; Undefined if empty."""
    received = await request.body()
    if not received:
        return Undefined
    content_type = request.headers.get("content-type")
    json_body = _is_json(content_type) if content_type else not strict_content_type
    return await request.json() if json_body else received


@dataclass
class _Solved:
    """What `_build_response_args` reads of FastAPI's solved dependencies."""

    response: Response
    background_tasks: None = None


def lean_handlers(app: FastAPI) -> None:
    """Give every operation of `app` that FastAPI's handler answers the lean handler."""
    if app.dependency_overrides:
        return
    for route in app.router.routes:
        if not _plain(route):
            continue
        assert isinstance(route, APIRoute)
        step = _plan(route.dependant)
        if step is None or step.is_generator or route.stream_item_field is not None:
            continue
        if route.is_json_stream or _is_form(route) or _streams_events(route):
            continue
        handle = _lean(route, step)
        route.app = request_response(handle) if _stacks(step) else _asgi(handle)


def _stacks(step: _Step) -> bool:
    """Whether solving `step` needs the request's exit stacks (a dependency with yield)."""
    return step.is_generator or any(_stacks(sub) for sub in step.steps)


def _asgi(handle: Handler) -> ASGIApp:
    """The operation's ASGI app without the exit stacks of FastAPI's `request_response`
    (for dependencies with yield: these routes have none) and its own handling of
    exceptions: the app's ExceptionMiddleware, a few layers out, handles them with the
    same handlers, before anything was sent, as the route's would."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handle(Request(scope, receive, send))
        await response(scope, receive, send)

    return app


def _plain(route: BaseRoute) -> bool:
    """Whether `route` is an operation answered by FastAPI's own handler (not replaced by an
    area's own ASGI app, as the pushes' and the search's usual requests are)."""
    app: ASGIApp | None = getattr(route, "app", None)
    return (
        isinstance(route, APIRoute)
        and getattr(app, "__qualname__", "") == "request_response.<locals>.app"
        and getattr(app, "__module__", "") == "fastapi.routing"
    )


def _is_form(route: APIRoute) -> bool:
    return route.body_field is not None and isinstance(route.body_field.field_info, params.Form)


def _streams_events(route: APIRoute) -> bool:
    response_class = route.response_class
    if isinstance(response_class, DefaultPlaceholder):
        response_class = response_class.value
    return lenient_issubclass(response_class, EventSourceResponse)
