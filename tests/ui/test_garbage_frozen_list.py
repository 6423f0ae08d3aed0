"""Python's collections on the GUI thread leave the shipment list alone (issue 18).

A full collection walks every object it tracks; the list's rows are named tuples, which
CPython tracks for good, so with 100,000 rows loaded each full pass held the window for 0.3 to
0.6 s on a loaded machine. Once a list is in, its rows are frozen (`gc.freeze`): these tests
look at which objects a collection would walk, not at times, so they hold on a loaded machine.
"""

from __future__ import annotations

import gc
import uuid
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from PySide6.QtCore import QSettings, QTimer
from pytestqt.qtbot import QtBot

from freightdesk.service.cache import Cache
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.service.summary_rows import SUMMARIES, row_json
from freightdesk.ui import garbage
from freightdesk.ui.garbage import GuiThreadGarbageCollector
from freightdesk.ui.maps.warm import warm_up_maps
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import close_session
from tests.ui.test_maps import WEBENGINE_STARTUP
from tests.ui.test_panes_support import connected
from tests.ui.test_shipment_model import row
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected"]

COUNT = garbage.FREEZE_AFTER + 1_000


async def test_a_list_once_shown_is_left_out_of_collections(
    qtbot: QtBot,
    paths: AppPaths,
    profiles: ProfileStore,
    session: AppSession,
    settings: QSettings,
) -> None:
    # A dispatcher of a team server (unreachable now) whose cache holds a large list: the
    # pane reads and indexes it in worker threads, as after a start or a switch of profile.
    profile = profiles.save(
        Profile(
            id="",
            name="Team server",
            kind=ProfileKind.REMOTE,
            base_url="http://127.0.0.1:9",
            client_id="someone",
            poll_interval=3600,
        ),
        secret="secret",
    )
    profiles.activate(profile.id)
    cache = Cache(paths.cache_file(profile.id))
    cache.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in map(row, range(COUNT))])
    cache.close()
    pane = ShipmentsPane(session, settings)
    qtbot.addWidget(pane)
    pane.resize(1300, 700)
    pane.show()
    await pane.cached_list_shown()

    rows = pane.model.visible_summaries()
    assert len(rows) == COUNT
    assert all(gc.is_tracked(row) for row in rows)  # CPython never untracks named tuples
    # Frozen: in no generation a collection walks (gc.get_objects leaves the frozen out).
    walked = {id(o) for o in gc.get_objects()}
    assert [row.id for row in rows if id(row) in walked] == []
    assert gc.get_freeze_count() >= COUNT
    await close_session(session)


def test_collections_wait_while_a_list_is_loaded() -> None:
    class Node:
        pass

    def cycle() -> weakref.ref[Node]:
        node = Node()
        node.itself = node  # type: ignore[attr-defined]
        return weakref.ref(node)

    collector = GuiThreadGarbageCollector()
    try:
        gc.collect()
        load = garbage.bulk_load()
        garbage_cycle = cycle()
        alive = [[n] for n in range(2_000)]  # enough made for a collection to be due
        collector.check()
        assert garbage_cycle() is not None  # the rows being made would all have been walked
        load.done(0)
        collector.check()
        assert garbage_cycle() is None  # collected again once the load is in
        assert alive
    finally:
        collector.stop()


class Node:
    """An object in a reference cycle: freed only by a collection."""

    def __init__(self) -> None:
        self.itself = self


def cycle() -> weakref.ref[Node]:
    return weakref.ref(Node())


@contextmanager
def passes(during: Callable[[], bool] = lambda: True) -> Iterator[list[int]]:
    """The generation of each collection run meanwhile (while `during()` is true)."""
    seen: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and during():
            seen.append(info["generation"])

    gc.callbacks.append(record)
    try:
        yield seen
    finally:
        gc.callbacks.remove(record)


def assert_collected_again(collector: GuiThreadGarbageCollector) -> None:
    """The collector collects a cycle once enough is made for a pass to be due."""
    later = cycle()
    alive = [[n] for n in range(2_000)]
    collector.check()
    assert later() is None
    assert alive


@pytest.mark.qt_log_ignore(*WEBENGINE_STARTUP)
async def test_what_the_maps_warm_up_makes_is_left_out_of_collections() -> None:
    # The warm-up imports the maps' modules (about 100,000 objects) and makes the map's view
    # two to four seconds into the start: a collection due meanwhile would walk all of it.
    collector = GuiThreadGarbageCollector()
    made: list[list[int]] = []
    cycles: list[weakref.ref[Node]] = []

    def step() -> None:  # a step on the GUI thread that makes long-lived objects
        cycles.append(cycle())
        made.extend([n] for n in range(2_000))  # enough made for a collection to be due
        collector.check()

    try:
        gc.collect()
        with passes() as seen:
            warm = warm_up_maps(step)
            await wait_until(lambda: warm.finished, 30)
        assert seen == []  # held while the warm-up made its objects
        assert cycles[0]() is not None
        # Then frozen: a collection no longer walks what it made.
        walked = {id(o) for o in gc.get_objects()}
        assert [o for o in made if id(o) in walked] == []
        assert_collected_again(collector)  # what is made after
    finally:
        collector.stop()


async def test_a_first_sync_is_not_collected_while_its_rows_are_made(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> None:
    # A dispatcher's first connection: the whole list comes page by page, its rows made on the
    # GUI thread between pages. A collection then would walk every row made so far (20,000:
    # 40 ms), all of them alive.
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    for n in range(60):
        _put(tenant, _ltl(f"G{n:03d}{tag}"))
    pane = ShipmentsPane(session, settings)
    qtbot.addWidget(pane)
    pane.show()
    service = session.shipments
    assert service is not None
    service.page_size = 10  # six pages: the GUI runs between them
    collector = GuiThreadGarbageCollector()
    often = QTimer()
    often.setInterval(1)  # the collector asked at every turn of the event loop
    often.timeout.connect(collector.check)
    try:
        often.start()
        with passes(during=lambda: service.coordinator.status.fetching) as seen:
            await session.connect()
            await wait_until(lambda: pane.model.rowCount() == 60)
        often.stop()
        assert service.requests_last_sync == 6
        assert seen == []  # none while the sync ran
        assert_collected_again(collector)  # once the list is in
    finally:
        often.stop()
        collector.stop()
        pane.shutdown()
