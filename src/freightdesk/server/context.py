"""What every request handler of the local service can reach: settings, database, stores."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from freightdesk.server.settings import ServerSettings

T = TypeVar("T")


@dataclass
class ServiceContext:
    settings: ServerSettings
    engine: Engine
    sessions: sessionmaker[Session]
    # Long-lived helpers keyed by area (token store, push worker, ...), set up by the app factory.
    services: dict[str, Any] = field(default_factory=dict)


async def get_context(request: Request) -> ServiceContext:
    # async: a plain def dependency would cost every request a hop through the thread pool.
    context: ServiceContext = request.app.state.context
    return context


async def get_session(
    context: Annotated[ServiceContext, Depends(get_context)],
) -> AsyncIterator[Session]:
    # async: a plain def generator costs every request two hops through the thread pool (to
    # open the session and to close it), more than a small list's query. Opening one does no
    # I/O; closing one that has read rolls its transaction back, which is a local call on
    # SQLite but a round trip to a server otherwise, so only that goes to the thread pool.
    session = context.sessions()
    try:
        yield session
    finally:
        if session.in_transaction() and context.engine.dialect.name != "sqlite":
            await run_in_threadpool(session.close)
        else:
            session.close()


async def cheap_read(session: Session, read: Callable[[], T]) -> T:
    """`read()`, a small indexed read of `session`, on the event loop with SQLite, where it
    is a local call cheaper than the hop to the thread pool a plain def handler takes (about
    0.15 ms a request, issue 18); in the thread pool for a server database, whose round trip
    must not hold up the loop."""
    if session.get_bind().dialect.name == "sqlite":
        return read()
    return await run_in_threadpool(read)


ContextDep = Annotated[ServiceContext, Depends(get_context)]
SessionDep = Annotated[Session, Depends(get_session)]
