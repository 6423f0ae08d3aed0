"""The Shipments list keeps up with the demo as the Local sandbox writes it (the walkthrough of
session 18, 40 s into a first run: the list said "178 shipments" while 242 were written).

A real service whose demo was begun is continued here, batch by batch, by the seeding the
Local sandbox's worker runs (`seed.continue_demo`, in a thread), while a session follows the
preparation as the app does. Each time the service has more shipments stored, the list must
show them within `CATCH_UP` seconds."""

from __future__ import annotations

import asyncio
import threading
import time

from PySide6.QtWidgets import QWidget

from freightdesk.server.demo.progress import DemoState, demo_status
from freightdesk.service.session import AppSession
from tests.support import LiveService, wait_until
from tests.ui.test_shipments_empty_while_preparing import demo_session, preparing, window
from tests.ui.test_shipments_list import _pane

__all__ = ["demo_session", "preparing", "window"]

# "Within a couple of seconds": the progress is read twice a second and a fetch follows each
# batch stored at once; the rest is the fetch and the table's indexing (on 2 loaded cores).
CATCH_UP = 3.0
SECONDS = 120.0


async def test_the_list_shows_the_demo_shipments_as_they_are_written(
    preparing: tuple[LiveService, str, str], demo_session: AppSession, window: QWidget
) -> None:
    from freightdesk.server.demo.seed import continue_demo

    live = preparing[0]
    pane = _pane(window)
    demo_session.demo.expect()
    await demo_session.connect()
    assert demo_session.shipments is not None
    demo_session.demo.follow(demo_session.shipments.coordinator)
    await wait_until(lambda: demo_session.demo.preparation is not None, SECONDS)

    # (when, the shipments the service has stored, the shipments the list shows)
    seen: list[tuple[float, int, int]] = []
    halt = threading.Event()
    writer = threading.Thread(target=continue_demo, args=(live.context, halt), name="demo")
    writer.start()
    try:
        while True:
            status = await asyncio.to_thread(demo_status, live.context)
            seen.append((time.monotonic(), status.shipments_ready, pane.model.total))
            if status.state is DemoState.READY and pane.model.total >= status.shipments_ready:
                break
            assert time.monotonic() - seen[0][0] < SECONDS, seen[-1]
            await asyncio.sleep(0.1)
    finally:
        halt.set()
        await asyncio.to_thread(writer.join, 60)
    lags = [_caught_up(seen, n) - when for n, (when, stored, _shown) in enumerate(seen) if stored]
    # (seconds in, stored, shown) of every sample, to see where the list fell behind.
    samples = [(round(when - seen[0][0], 1), stored, shown) for when, stored, shown in seen]
    assert max(lags) <= CATCH_UP, (max(lags), samples)


def _caught_up(seen: list[tuple[float, int, int]], n: int) -> float:
    """When the list first showed as many shipments as the service had stored at sample n."""
    stored = seen[n][1]
    return next(when for when, _stored, shown in seen[n:] if shown >= stored)
