"""The OpenAPI document's warm-up waits while a first run's demo is being written: its build
takes 1 to 2 s of CPU, which the demo's first shipments (what the app's list waits for) would
share with it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import event, update

from freightdesk.server import app as service_app
from freightdesk.server.app import build_context
from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.demo.progress import Stage, begin_demo
from freightdesk.server.settings import ServerSettings
from freightdesk.server.tables.demo import DemoSeeding
from tests.support import wait_until


def _join_warm_ups() -> None:
    for thread in threading.enumerate():
        if thread.name == "openapi-warmup":
            thread.join(timeout=30)


@contextmanager
def _demo_reads(context: ServiceContext) -> Iterator[list[str]]:
    """The statements reading the demo's progress from now on, as they begin: the warm-up's
    polls, whose next one begins only after it took the one before as still writing."""
    reads: list[str] = []

    def record(*args: Any) -> None:
        if DemoSeeding.__tablename__ in str(args[2]):
            reads.append(str(args[2]))

    event.listen(context.engine, "before_cursor_execute", record)
    try:
        yield reads
    finally:
        event.remove(context.engine, "before_cursor_execute", record)


@pytest.fixture
def context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServiceContext]:
    """A service whose demo has begun being written, its warm-up due at once."""
    context = build_context(ServerSettings.from_options(data_dir=tmp_path, host="127.0.0.1"))
    assert begin_demo(context) is not None
    monkeypatch.setattr(service_app, "OPENAPI_WARMUP_DELAY_SECONDS", 0.0)
    try:
        yield context
    finally:
        context.engine.dispose()


def test_the_openapi_warm_up_waits_for_the_demo_then_builds(context: ServiceContext) -> None:
    app = FastAPI()  # a small document: what is measured is when it is built

    async def scenario() -> None:
        stopping = asyncio.Event()
        with _demo_reads(context) as reads:
            warm = asyncio.create_task(service_app._warm_openapi(app, context, stopping))
            # A fourth poll begun: three answered "being written" and were waited past.
            await wait_until(lambda: len(reads) >= 4 or warm.done())
        assert not warm.done()
        assert [t for t in threading.enumerate() if t.name == "openapi-warmup"] == []
        assert app.openapi_schema is None
        with transaction(context.sessions) as session:
            session.execute(update(DemoSeeding).values(stage=Stage.READY.value))
        await asyncio.wait_for(warm, timeout=30)

    asyncio.run(scenario())
    _join_warm_ups()
    assert app.openapi_schema is not None


def test_a_stop_while_the_demo_is_written_builds_nothing(context: ServiceContext) -> None:
    app = FastAPI()

    async def scenario() -> None:
        stopping = asyncio.Event()
        with _demo_reads(context) as reads:
            warm = asyncio.create_task(service_app._warm_openapi(app, context, stopping))
            await wait_until(lambda: len(reads) >= 2 or warm.done())  # between two polls
        stopping.set()
        await asyncio.wait_for(warm, timeout=30)

    asyncio.run(scenario())
    _join_warm_ups()
    assert app.openapi_schema is None
