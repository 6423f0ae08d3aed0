"""Carrier push intake: the durable queue every accepted push is stored in.

Intake is a group commit: each accepted push waits for the commit of the batch it is in, and
one commit carries the payloads of every request that arrived while the previous commit was
being written. A push is answered 202 only once its row is committed, so a crash of the service
(even kill -9) after the 202 cannot lose it. The worker in `push_processing` applies them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, insert
from sqlalchemy.exc import IntegrityError

from freightdesk.server.context import ServiceContext
from freightdesk.server.db import PUSHES_CHANNEL, transaction, wake_on_commit
from freightdesk.server.errors import ApiError
from freightdesk.server.tables.push import PushIngestion

log = logging.getLogger(__name__)

__all__ = ["PARCEL", "TRUCKLOAD", "IngestionQueue", "ingestion_queue"]

_INGESTIONS: Table = PushIngestion.__table__  # type: ignore[assignment]

# The kinds of push, as stored in an ingestion row.
PARCEL = "PARCEL"
TRUCKLOAD = "TRUCKLOAD"


# Rows per intake commit; a larger backlog is committed in several transactions in a row.
MAX_INTAKE_BATCH = 2000


@dataclass
class _Waiting:
    row: dict[str, Any]
    accepted: asyncio.Future[None]


class IngestionQueue:
    """Group commit of accepted pushes; lives on the service's event loop."""

    def __init__(self, context: ServiceContext) -> None:
        self._context = context
        self._waiting: list[_Waiting] = []
        self._flusher: asyncio.Task[None] | None = None
        # The worker's doorbell, rung by the wake-up of every commit of pushes (`_insert`).
        self.arrived = asyncio.Event()

    async def accept(self, row: dict[str, Any]) -> None:
        """Return once `row` is committed; raise ApiError(503) if it could not be stored."""
        loop = asyncio.get_running_loop()
        waiting = _Waiting(row, loop.create_future())
        self._waiting.append(waiting)
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush(), name="push-intake")
        await waiting.accepted

    async def _flush(self) -> None:
        try:
            while self._waiting:
                batch = self._waiting[:MAX_INTAKE_BATCH]
                del self._waiting[:MAX_INTAKE_BATCH]
                try:
                    await asyncio.to_thread(self._insert, [w.row for w in batch])
                except asyncio.CancelledError:
                    _fail(batch, _unavailable())
                    raise
                except IntegrityError:
                    # One row is at fault (an ingestion id used twice): store the others.
                    await self._insert_one_by_one(batch)
                    continue
                except Exception:
                    log.exception("could not store %d carrier pushes", len(batch))
                    _fail(batch, _unavailable())
                    continue
                _succeed(batch)
        finally:
            self._flusher = None
            if self._waiting:  # only when cancelled: the service is stopping
                _fail(self._waiting, _unavailable())
                self._waiting = []

    async def _insert_one_by_one(self, batch: Sequence[_Waiting]) -> None:
        for waiting in batch:
            try:
                await asyncio.to_thread(self._insert, [waiting.row])
            except Exception:
                log.exception("could not store carrier push %s", waiting.row.get("ingestion_id"))
                _fail([waiting], _unavailable())
            else:
                _succeed([waiting])

    def _insert(self, rows: Sequence[dict[str, Any]]) -> None:
        with transaction(self._context.sessions) as session:
            # Core insert: the ORM's per-row bookkeeping is not needed for rows never read back.
            session.execute(insert(_INGESTIONS), list(rows))
            wake_on_commit(session, PUSHES_CHANNEL)  # the workers of every instance


def _succeed(batch: Sequence[_Waiting]) -> None:
    for waiting in batch:
        if not waiting.accepted.done():
            waiting.accepted.set_result(None)


def _fail(batch: Sequence[_Waiting], error: ApiError) -> None:
    for waiting in batch:
        if not waiting.accepted.done():
            waiting.accepted.set_exception(error)


def _unavailable() -> ApiError:
    return ApiError(
        503,
        "The push could not be stored and was not accepted; send it again",
        headers={"Retry-After": "1"},
    )


def ingestion_queue(context: ServiceContext) -> IngestionQueue:
    queue = context.services.get("push_queue")
    if queue is None:
        queue = context.services.setdefault("push_queue", IngestionQueue(context))
    assert isinstance(queue, IngestionQueue)
    return queue
