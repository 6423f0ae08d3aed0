"""The Local sandbox's demo as it fills in: what the status bar says, how often the list polls.

On a first run the local service answers at once and writes its demo data meanwhile (about
300 shipments, in batches). While it does, `DemoProgress` reads how far it got twice a second,
tells its listeners what to show ("Preparing demo data: 120 of 302 shipments"), has the
shipment list fetch as soon as more shipments are stored (so that they appear then, not up to
a poll later), and poll every second meanwhile; once the demo is complete the list polls at
its own interval again, after one last fetch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from freightdesk.api.errors import FreightDeskError
from freightdesk.service.coordinator import Coordinator

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient
    from freightdesk.api.demo import DemoStatus

log = logging.getLogger(__name__)

# While the demo is being prepared: how often its progress is read, and the list polled.
PREPARING_INTERVAL = 0.5
LIST_INTERVAL = 1.0


async def demo_status(client: ApiClient) -> DemoStatus | None:
    """How far the local service's demo preparation got; None from a service without it."""
    from freightdesk.api.demo import DemoApi  # the demo's own models, loaded when asked

    return await DemoApi(client).status()


@dataclass(frozen=True)
class DemoPreparation:
    ready: int = 0
    total: int = 0  # 0 while the service has not counted them yet

    @property
    def message(self) -> str:
        if not self.total:
            return "Preparing demo data"
        return f"Preparing demo data: {self.ready} of {self.total} shipments"


class DemoProgress:
    """Follows the demo's preparation while one is under way; listeners get the status
    bar's message, or None once there is nothing to say."""

    def __init__(
        self, client: Callable[[], ApiClient], *, interval: float = PREPARING_INTERVAL
    ) -> None:
        self._client = client
        self.interval = interval
        self.list_interval = max(interval, LIST_INTERVAL)
        self.preparation: DemoPreparation | None = None
        self._listeners: list[Callable[[str | None], None]] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def message(self) -> str | None:
        return self.preparation.message if self.preparation is not None else None

    def listen(self, listener: Callable[[str | None], None]) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def expect(self) -> None:
        """A demo is being begun (the service said so as it started): say so before its
        first progress is read."""
        if self.preparation is None:
            self._set(DemoPreparation())

    def forget(self) -> None:
        """Say nothing more of a preparation that will not be followed (no connection)."""
        self._set(None)

    def follow(self, shipments: Coordinator[Any, Any] | None) -> None:
        """Read the progress until the demo is complete (nothing when there is none),
        polling `shipments` every `list_interval` meanwhile, and at once when more shipments
        are stored."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._follow(shipments), name="demo-progress"
            )

    async def _follow(self, shipments: Coordinator[Any, Any] | None) -> None:
        client = self._client()
        usual = shipments.interval if shipments is not None else 0.0
        quickened = False
        stored = 0
        try:
            while True:
                try:
                    status = await demo_status(client)
                except FreightDeskError as exc:  # keep what we knew; ask again
                    log.info("demo progress: %s", exc)
                    await asyncio.sleep(self.interval)
                    continue
                if status is None or status.state != "preparing":
                    return
                self._set(DemoPreparation(status.shipments_ready, status.shipments_total))
                if shipments is not None:
                    if not quickened:
                        shipments.interval = min(usual, self.list_interval)
                        shipments.poke()  # its current wait was of the usual length
                        quickened = True
                    elif status.shipments_ready > stored:
                        shipments.poke()  # the new shipments now, not a poll later
                    stored = status.shipments_ready
                await asyncio.sleep(self.interval)
        finally:
            if self.preparation is not None:
                self._set(None)
            if shipments is not None and quickened:
                shipments.interval = usual
                shipments.poke()  # the last shipments now, not an interval later

    def _set(self, preparation: DemoPreparation | None) -> None:
        if preparation == self.preparation:
            return
        self.preparation = preparation
        for listener in list(self._listeners):
            try:
                listener(self.message)
            except Exception:
                log.exception("a demo progress listener failed")

    async def stop(self) -> None:
        """Stop following (the session closes); listeners stay for the next connection."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
