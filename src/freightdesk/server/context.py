"""What every request handler of the local service can reach: settings, database, stores."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from freightdesk.server.settings import ServerSettings


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


def get_session(context: Annotated[ServiceContext, Depends(get_context)]) -> Iterator[Session]:
    with context.sessions() as session:
        yield session


ContextDep = Annotated[ServiceContext, Depends(get_context)]
SessionDep = Annotated[Session, Depends(get_session)]
