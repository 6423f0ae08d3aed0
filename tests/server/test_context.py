"""Where the service runs a request's work: on the event loop when cheap, else the thread pool."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from sqlalchemy import create_engine

from freightdesk.server.context import on_loop_when_cheap
from freightdesk.server.db import make_engine


def test_cheap_work_runs_on_the_loop_a_server_databases_in_the_thread_pool(
    tmp_path: Path,
) -> None:
    sqlite = make_engine(f"sqlite:///{tmp_path / 'local.sqlite3'}")
    # Never connected: only its dialect decides where the work runs.
    server = create_engine("postgresql+psycopg://nobody@127.0.0.1:9/none")

    async def threads() -> tuple[int, int, int, int]:
        return (
            threading.get_ident(),
            await on_loop_when_cheap(threading.get_ident, reads=None),
            await on_loop_when_cheap(threading.get_ident, reads=sqlite),
            await on_loop_when_cheap(threading.get_ident, reads=server),
        )

    try:
        loop, no_database, local, remote = asyncio.run(threads())
    finally:
        sqlite.dispose()
        server.dispose()
    assert no_database == loop
    assert local == loop
    assert remote != loop
