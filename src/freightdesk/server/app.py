"""The local service's FastAPI application factory."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from freightdesk import __version__
from freightdesk.models.errors import ErrorBody
from freightdesk.server.body_limits import BodyLimits
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import make_engine, make_sessionmaker
from freightdesk.server.demo.progress import demo_prepared
from freightdesk.server.errors import ApiError, install_error_handlers
from freightdesk.server.handlers import lean_handlers
from freightdesk.server.middleware import RequestPlumbing
from freightdesk.server.migrations import Upgrading, readiness_problem, upgrade
from freightdesk.server.openapi import (
    ERRORS,
    EXTENSION,
    EXTENSIONS_PATH,
    document_yaml,
    finish_document,
)
from freightdesk.server.route_index import index_fixed_paths
from freightdesk.server.settings import ServerSettings
from freightdesk.server.workers import Worker, Workers

log = logging.getLogger(__name__)

# One router module per area, each exporting `router`; the order is the OpenAPI order.
ROUTER_MODULES = [
    "auth",
    "account_groups",
    "addresses",
    "stop_locations",
    "webhooks",
    "tracking",
    "fleet",
    "carrier_push",
    "documents",
    "rating",
    "bookings",
    "packaging",
    "vltl",
    "rail",
    "capacity",
    "vehicles",
    "schedules",
    "slots",
    "demo",
]

# Background work waits this long after the start, so that the first requests (the app's
# health check, token and first lists) are answered without it: a worker's first steps cost
# a noticeable part of a start (webhook delivery opens an HTTP client with its TLS context,
# push processing catches up). Pushes are accepted meanwhile and applied once it runs.
WORKERS_START_DELAY_SECONDS = 1.0
# Seconds after the start at which the OpenAPI document is built in the background.
OPENAPI_WARMUP_DELAY_SECONDS = 3.0
# The status of an answer nobody reads: its client disconnected while it was being made.
CLIENT_LEFT = 499

# Modules exporting `WORKERS: list[Worker]`, started with the service.
WORKER_MODULES: list[str] = [
    "freightdesk.server.domain.push_processing",
    "freightdesk.server.domain.carrier_answers",
    "freightdesk.server.webhooks.delivery",
    "freightdesk.server.simulator",
    "freightdesk.server.demo.progress",
]


def _workers() -> list[Worker]:
    found: list[Worker] = []
    for name in WORKER_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # Skip areas not built yet, but never hide a missing import inside a worker.
            if exc.name is None or not name.startswith(exc.name):
                raise
            continue
        found.extend(getattr(module, "WORKERS", []))
    return found


async def _warm_openapi(app: FastAPI, context: ServiceContext, stopping: asyncio.Event) -> None:
    """Build the OpenAPI document off the request path, so that the first client asking for
    it (extension detection) does not wait; but only after the first requests of a start
    (health check, token, first lists) have had the interpreter to themselves: the build
    takes 1 to 2 s of CPU and would slow every request made meanwhile. On a first run, only
    once the demo is written: built while it is, it took the interpreter from the demo's
    first shipments, which the app's list waits for (issue 18)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stopping.wait(), timeout=OPENAPI_WARMUP_DELAY_SECONDS)
        return
    await demo_prepared(context, stopping)
    if stopping.is_set():
        return
    # Not in the loop's executor (see built_aside); a request for the document meanwhile
    # waits for this same build (openapi_document's lock).
    threading.Thread(target=app.openapi, name="openapi-warmup", daemon=True).start()


Built = TypeVar("Built")


async def built_aside(build: Callable[[], Built], request: Request) -> Built | None:
    """`build()` (seconds of CPU on a busy machine, such as the OpenAPI document) in a daemon
    thread of its own. The loop's executor would do too, but a stopping service waits for
    its threads: an app gone, or a SIGTERM, would first wait for a document nobody reads.
    None once the client of `request` has left (an app quitting while it asked): a stopping
    service waits for the requests in flight (up to a second), and this one writes nothing."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Built] = loop.create_future()

    def deliver(result: Built | None, error: BaseException | None) -> None:
        if done.done():  # the request was cancelled meanwhile
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result, error = build(), None
        except Exception as exc:
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop has closed: the service stopped
            loop.call_soon_threadsafe(deliver, result, error)

    threading.Thread(target=run, name="openapi-build", daemon=True).start()
    left = asyncio.ensure_future(_client_left(request))
    either: list[asyncio.Future[Any]] = [done, left]
    try:
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    finally:
        left.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await left
    if not done.done():
        done.cancel()
        return None
    return done.result()


async def _client_left(request: Request) -> None:
    """Return once the client of `request` (a request without a body) has disconnected."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


# The document depends on the code only (routes, models, title), never on the settings: one
# build serves every app of the process. Building it makes FastAPI wrap each model field again
# as `Annotated[type, Field(alias=...)]`, which pydantic flags (UnsupportedFieldAttributeWarning)
# and FastAPI silences with `warnings.catch_warnings()`; that is process-wide, not per thread,
# before Python 3.14, so a build that overlaps another thread's `catch_warnings` lets the flag
# out. Built once, there is one such moment per process instead of one per app.
_OPENAPI_LOCK = threading.Lock()
_openapi: dict[str, Any] | None = None
_openapi_yaml: str | None = None


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The service's OpenAPI document, built on first use by any app of the process."""
    global _openapi
    with _OPENAPI_LOCK:
        if _openapi is None:
            _openapi = _build_openapi(app)
        return _openapi


def openapi_yaml(app: FastAPI) -> str:
    """The same document as YAML (`/openapi.yaml`), written on first use."""
    global _openapi_yaml
    document = app.openapi()
    with _OPENAPI_LOCK:
        if _openapi_yaml is None:
            _openapi_yaml = document_yaml(document)
        return _openapi_yaml


def _build_openapi(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    schema["info"]["x-interface-version"] = "4.0.0"
    # Invalid input is answered 400 with the Error body, never FastAPI's 422.
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict):
                operation.get("responses", {}).pop("422", None)
    schemas = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    finish_document(schema, app.routes)
    return schema


def build_context(settings: ServerSettings, upgrading: Upgrading | None = None) -> ServiceContext:
    """The database opened, its schema upgraded (`upgrading` hears how that goes)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(settings.database_url)
    upgrade(engine, upgrading)
    keep_private(settings.data_dir)
    return ServiceContext(settings=settings, engine=engine, sessions=make_sessionmaker(engine))


def keep_private(data_dir: Path) -> None:
    """The data directory 0700 and what lies directly in it (and in its log directory) 0600 or
    0700: a directory made by an earlier version, or by an administration command, may be
    readable by everyone. What is deeper (document files) is out of others' reach through it;
    `freightdesk serve` creates everything new private (umask 077)."""
    entries = [data_dir]
    for folder in (data_dir, data_dir / "logs"):
        with contextlib.suppress(FileNotFoundError):
            entries.extend(folder.iterdir())
    for entry in entries:
        try:
            if entry.is_symlink():
                continue
            entry.chmod(0o700 if entry.is_dir() else 0o600)
        except OSError as exc:  # another user's file: the service can still run
            log.warning("cannot make %s private: %s", entry, exc)


def create_app(settings: ServerSettings, context: ServiceContext | None = None) -> FastAPI:
    """The service for these settings; pass a context to share its database with the caller."""
    ctx = context or build_context(settings)
    workers = Workers(ctx, _workers() if settings.process_pushes else [])

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        workers.start(delay=WORKERS_START_DELAY_SECONDS)
        stopping = asyncio.Event()
        warm = asyncio.create_task(_warm_openapi(app, ctx, stopping), name="openapi-warmup")
        try:
            yield
        finally:
            stopping.set()
            await workers.stop()
            await warm

    app = FastAPI(
        title="FreightDesk local service",
        version=__version__,
        description=(
            "A faithful local implementation of the Freight Visibility and Logistics Service "
            "Interface 4.0.0. Operations marked `x-freightdesk-extension` are not part of the "
            "interface."
        ),
        lifespan=lifespan,
        # Served below, off the event loop; the interactive docs need a CDN, so none.
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        # FastAPI's native OpenTelemetry, unused here: with it on, every request first asks the
        # global providers whether one is configured, which reads the environment each time
        # (7 to 12 us a request, 7% of a push's time in the app, issue 18).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.context = ctx
    install_error_handlers(app)
    # Added first, so inside RequestPlumbing: its answers have a reference id and a log line.
    app.add_middleware(BodyLimits, settings=settings)
    app.add_middleware(RequestPlumbing)
    for name in ROUTER_MODULES:
        module = importlib.import_module(f"freightdesk.server.routers.{name}")
        # The routers' routes are complete as declared (prefix, tags, responses), and the app
        # adds nothing to them. include_router would build every route a second time, on the
        # first request (about 0.4 s of CPU), and route each request through one more level.
        app.router.routes.extend(module.router.routes)

    # The Error body's schema always comes from this operation's responses, so that the
    # areas' operations may refer to it instead of naming the model: a model named in an
    # operation's responses costs that operation a validator and a serializer at start.
    error_responses = {
        code: {"model": ErrorBody, "description": entry["description"]}
        for code, entry in ERRORS.items()
    }

    # The service's own operations in their document order (the routes' order is the
    # document's): the extensions' list, then the checks.
    @app.get(EXTENSIONS_PATH, tags=["Service"], openapi_extra=EXTENSION, responses=error_responses)
    async def extensions() -> dict[str, list[str]]:
        """The operations of this service that the interface does not describe (`METHOD
        path`), as the OpenAPI document marks them (`x-freightdesk-extension`); needs no
        credentials. What a client asks to learn them: the document takes 1 to 2 s of CPU to
        build, which a first run's demo and the app's first lists would wait for."""
        return {"extensions": _extensions(app.routes)}

    @app.get("/health", tags=["Service"], openapi_extra=EXTENSION, responses=error_responses)
    async def health() -> dict[str, str]:
        """Liveness for supervisors and load balancers; needs no credentials."""
        # async: the answer is a constant, and a plain def would cost each call a hop
        # through the thread pool (about a fifth of a keep-alive /health).
        return {"status": "ok", "version": __version__}

    @app.get(
        "/ready",
        tags=["Service"],
        openapi_extra=EXTENSION,
        responses={
            **error_responses,
            503: {"model": ErrorBody, "description": "Not ready: the database does not answer"},
        },
    )
    def ready() -> dict[str, str]:
        """Readiness for load balancers; needs no credentials. 200 while the database answers
        and its schema is this release's, 503 with the Error body otherwise (`/health` is the
        liveness check and never asks the database)."""
        problem = readiness_problem(ctx.engine)
        if problem is not None:
            raise ApiError(503, problem, headers={"Retry-After": "5"})
        return {"status": "ready", "version": __version__}

    @app.get("/openapi.json", include_in_schema=False)
    async def openapi_route(request: Request) -> Response:
        # Building the document takes seconds on a busy machine: never on the event loop.
        document = await built_aside(app.openapi, request)
        return Response(status_code=CLIENT_LEFT) if document is None else JSONResponse(document)

    @app.get("/openapi.yaml", include_in_schema=False)
    async def openapi_yaml_route(request: Request) -> Response:
        text = await built_aside(lambda: openapi_yaml(app), request)
        if text is None:
            return Response(status_code=CLIENT_LEFT)
        return Response(text, media_type="application/yaml")

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    lean_handlers(app)
    index_fixed_paths(app.router.routes)
    return app


def _extensions(routes: list[BaseRoute]) -> list[str]:
    """`METHOD path` of each documented operation marked as an extension, in document order."""
    return [
        f"{method} {route.path}"
        for route in routes
        if isinstance(route, APIRoute)
        and route.include_in_schema
        and EXTENSION.items() <= (route.openapi_extra or {}).items()
        for method in sorted(route.methods or ())
    ]
