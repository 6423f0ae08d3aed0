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


def context_of(request: Request) -> ServiceContext:
    """The context of the app `request` came to: for a dependency that has the request
    anyway, cheaper than depending on `get_context` (FastAPI solves each dependency of each
    request anew, some 10 microseconds apiece)."""
    context: ServiceContext = request.app.state.context
    return context


async def get_context(request: Request) -> ServiceContext:
    # async: a plain def dependency would cost every request a hop through the thread pool.
    return context_of(request)


async def get_session(
    context: Annotated[ServiceContext, Depends(get_context)],
) -> AsyncIterator[Session]:
    # async: a plain def generator costs every request two hops through the thread pool (to
    # open the session and to close it), more than a small list's query. Opening one does no
    # I/O; closing one that has read rolls its transaction back, a call to the database.
    session = context.sessions()
    try:
        yield session
    finally:
        await on_loop_when_cheap(
            session.close, reads=context.engine if session.in_transaction() else None
        )


async def on_loop_when_cheap(work: Callable[[], T], *, reads: Engine | None) -> T:
    """`work()` on the event loop when it is cheap, otherwise in the thread pool.

    Cheap is work that reads no database (`reads` None: a bearer token the cache trusts, a
    hash lookup) or a little of a SQLite one (an indexed read, a local call): either costs
    less than the hop to the thread pool and back (about 0.15 ms a request, issue 18). A
    server database's round trip must not hold up the loop, so work that reads one goes to
    the thread pool. Slow work whatever the database (a password hash) is not for this."""
    if reads is None or reads.dialect.name == "sqlite":
        return work()
    return await run_in_threadpool(work)


ContextDep = Annotated[ServiceContext, Depends(get_context)]
SessionDep = Annotated[Session, Depends(get_session)]
