"""The Shipments list in the main window against the real local service: it holds still
through refreshes (rows updated in place, the user's sort, selection and view kept, new
shipments announced), its main columns fit a 1366 px wide window, and the user's column
widths and split are kept for the next start."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtWidgets import QAbstractSlider, QHBoxLayout, QHeaderView, QListWidget, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from freightdesk.ui.widgets.elided import is_elided
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import exposed
from tests.ui.splitter_drag import drag_handle
from tests.ui.test_panes_support import connected, shown_pane
from tests.ui.test_shipments_pane import _ltl, _put

__all__ = ["connected"]

SMALL_SCREEN = QSize(1366, 768)
NAVIGATION_WIDTH = 190  # the main window's navigation list at 1366 px
LONGER_THAN_THE_VIEW = 30  # rows: a 768 px high window shows about 20


@pytest.fixture
def window(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings
) -> Iterator[QWidget]:
    """The Shipments pane as the main window shows it at 1366x768 (beside the navigation
    list, 150 to 220 px wide), not yet connected."""
    yield from shipments_window(qtbot, connected[0], settings)


def shipments_window(qtbot: QtBot, session: AppSession, settings: QSettings) -> Iterator[QWidget]:
    """`window` for a session of the test's choosing (one through a proxy)."""
    window = QWidget()
    qtbot.addWidget(window)
    navigation = QListWidget(window)
    navigation.setFixedWidth(NAVIGATION_WIDTH)
    pane = ShipmentsPane(session, settings, window)
    pane.setObjectName("shipmentsPane")
    layout = QHBoxLayout(window)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(navigation)
    layout.addWidget(pane, 1)
    window.resize(SMALL_SCREEN)
    window.show()
    qtbot.waitExposed(window)
    yield window
    pane.shutdown()


def _pane(window: QWidget) -> ShipmentsPane:
    pane = window.findChild(ShipmentsPane, "shipmentsPane")
    assert isinstance(pane, ShipmentsPane)
    return pane


def _shown_ids(pane: ShipmentsPane) -> list[str]:
    return [r.id for r in pane.model.visible_summaries()]


def _in_view(pane: ShipmentsPane, shipment_id: str) -> bool:
    row = pane.model.row_of(shipment_id)
    if row is None:
        return False
    cell = pane.table.visualRect(pane.model.index(row, COLUMN_INDEX["primaryIdentifier"]))
    return pane.table.viewport().rect().contains(cell)


def _click_header(qtbot: QtBot, header: QHeaderView, column: int) -> None:
    section = QRect(header.sectionViewportPosition(column), 0, header.sectionSize(column), 20)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=section.center())


def _click_row(qtbot: QtBot, pane: ShipmentsPane, row: int) -> None:
    index = pane.model.index(row, COLUMN_INDEX["primaryIdentifier"])
    cell = pane.table.visualRect(index)
    assert pane.table.viewport().rect().contains(cell), f"row {row} is not in view"
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=cell.center())


async def test_twenty_refreshes_keep_the_order_the_selection_and_the_view(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    ids = [_put(tenant, _ltl(f"M{n:03d}{tag}")) for n in range(60)]
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == 60)

    # The dispatcher sorts by shipment with a click on its header: the indicator shows it.
    header = pane.table.horizontalHeader()
    column = COLUMN_INDEX["primaryIdentifier"]
    _click_header(qtbot, header, column)
    assert header.isSortIndicatorShown()
    assert header.sortIndicatorSection() == column
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert _shown_ids(pane) == ids

    # ... scrolls down a page and picks a shipment in the middle of the view.
    pane.table.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderPageStepAdd)
    first = pane.table.rowAt(0)
    assert first > 0
    _click_row(qtbot, pane, first + 4)
    target = ids[first + 4]
    assert pane.selected_ids() == [target]

    order = _shown_ids(pane)
    added: list[str] = []
    removed: set[str] = set()
    for turn in range(20):
        # Meanwhile shipments change: one renamed so it would sort first, one new that would
        # too, now and then one stops being tracked; the row shown at the top changes too.
        renamed = order[(turn * 7) % 50]
        if renamed not in removed:
            _put(tenant, {"id": renamed, **_ltl(f"A{turn:03d}{tag}")})
        new_id = _put(tenant, _ltl(f"A{turn:03d}N{tag}"))
        added.append(new_id)
        if turn % 5 == 4:
            gone = order[turn]  # above the view: the rows below it move up by one
            if gone != target and gone not in removed:
                tenant.http.delete(f"/api/v4/shipments/{gone}/tracking").raise_for_status()
                removed.add(gone)
        assert session.shipments is not None
        await session.shipments.coordinator.fetch_now()  # a poll
        await wait_until(lambda i=new_id: pane.model.summary_of(i) is not None)  # type: ignore[misc]
        await wait_until(lambda: all(pane.model.summary_of(g) is None for g in removed))

        # The rows shown stay where they were; new ones are below them, announced.
        kept = [key for key in order if key not in removed]
        shown = _shown_ids(pane)
        moved = [n for n, key in enumerate(kept) if n >= len(shown) or shown[n] != key]
        assert not moved, f"refresh {turn + 1} moved the rows {moved[:5]}"
        assert shown[len(kept) :] == added, f"refresh {turn + 1}: not {len(added)} new below"
        assert pane.news.isVisible()
        assert pane.news_label.text().startswith(f"{turn + 1} new below"), turn
        assert pane.selected_ids() == [target], f"refresh {turn + 1} lost the selection"
        assert _in_view(pane, target), f"refresh {turn + 1} took the selection out of view"
        assert header.sortIndicatorSection() == column
        summary = pane.model.summary_of(renamed)
        assert renamed in removed or (summary is not None and summary.primary_identifier)

        # Between refreshes the dispatcher works: scrolls a line, picks another row.
        if turn % 3 == 1:
            pane.table.verticalScrollBar().triggerAction(
                QAbstractSlider.SliderAction.SliderSingleStepAdd
            )
            if not _in_view(pane, target):
                _click_row(qtbot, pane, pane.table.rowAt(0) + 2)
                target = pane.selected_ids()[0]
        if turn % 4 == 2:
            _click_row(qtbot, pane, pane.table.rowAt(0) + 3)
            target = pane.selected_ids()[0]
        order = _shown_ids(pane)
        added = []  # now part of the rows shown (at the bottom), and still counted as new

    # Asked to, the list takes the user's order again: the selection stays chosen and in view.
    qtbot.mouseClick(pane.sort_now_button, Qt.MouseButton.LeftButton)
    names = [s.primary_identifier or "" for s in pane.model.visible_summaries()]
    assert names == sorted(names, key=str.casefold)
    assert names[0].startswith("A000")
    assert not pane.news.isVisible()
    assert pane.selected_ids() == [target]
    assert _in_view(pane, target)


async def test_a_list_nobody_works_in_takes_new_shipments_in_their_places(
    qtbot: QtBot, window: QWidget, connected: tuple[AppSession, TenantHandle]
) -> None:
    # As on the first run, while the demo arrives: no row chosen, the view at the top. There is
    # nothing to keep still, so new shipments are sorted in, not piled up as "new below", and
    # the view stays at the top, however long the list (more rows than the window shows).
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    for n in range(LONGER_THAN_THE_VIEW):
        _put(tenant, _ltl(f"M{n:03d}{tag}"))
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == LONGER_THAN_THE_VIEW)
    _click_header(qtbot, pane.table.horizontalHeader(), COLUMN_INDEX["primaryIdentifier"])
    assert not pane.table.selectionModel().hasSelection()
    assert pane.table.verticalScrollBar().maximum() > 0, "the list should need scrolling"
    assert session.shipments is not None
    for letter in "AB":
        for n in range(3):
            _put(tenant, _ltl(f"{letter}{n:03d}{tag}"))
        expected = pane.model.rowCount() + 3
        await session.shipments.coordinator.fetch_now()
        await wait_until(lambda expected=expected: pane.model.rowCount() == expected)
        names = [s.primary_identifier or "" for s in pane.model.visible_summaries()]
        assert names == sorted(names, key=str.casefold) and names[0].startswith("A000")
        assert pane.table.verticalScrollBar().value() == 0, "the view left the top"
        assert not pane.news.isVisible()


async def test_the_column_layout_and_sort_are_kept_for_the_next_start(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
) -> None:
    session, tenant = connected
    tag = uuid.uuid4().hex[:4].upper()
    for n in range(3):
        _put(tenant, _ltl(f"K{n}{tag}", city=["Peoria", "Aurora", "Joliet"][n]))
    pane = await shown_pane(qtbot, session, lambda s: ShipmentsPane(s, settings), (1300, 700))
    await wait_until(lambda: pane.model.rowCount() == 3)
    header = pane.table.horizontalHeader()
    origin = COLUMN_INDEX["origin"]
    _click_header(qtbot, header, origin)
    header.resizeSection(origin, 211)
    header.moveSection(header.visualIndex(COLUMN_INDEX["carrier"]), 0)
    pane.table.setColumnHidden(COLUMN_INDEX["mode"], True)
    pane.shutdown()

    again = ShipmentsPane(None, settings)
    qtbot.addWidget(again)
    header = again.table.horizontalHeader()
    assert header.sectionSize(origin) == 211
    assert header.logicalIndex(0) == COLUMN_INDEX["carrier"]
    assert again.table.isColumnHidden(COLUMN_INDEX["mode"])
    assert header.sortIndicatorSection() == origin
    assert again.model.sort_name() == "origin asc"
    again.attach(session)
    await again.cached_list_shown()
    assert [s.origin_name for s in again.model.visible_summaries()] == [
        "Aurora DC",
        "Joliet DC",
        "Peoria DC",
    ]
    again.shutdown()


async def test_places_take_the_room_of_a_wide_window_until_the_user_sizes_them(
    qtbot: QtBot,
    window: QWidget,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
) -> None:
    session, tenant = connected
    long_place = "Alder & Finch Savannah Import"  # "... DC": about 190 px
    _put(tenant, _ltl(f"W{uuid.uuid4().hex[:6].upper()}", city=long_place))
    pane = _pane(window)
    await session.connect()
    await wait_until(lambda: pane.model.rowCount() == 1, seconds=30)
    header = pane.table.horizontalHeader()
    origin, destination = COLUMN_INDEX["origin"], COLUMN_INDEX["destination"]
    cell = pane.model.index(0, origin)
    # In a window narrower than a laptop's (the detail below the list) the places get what
    # the other key columns leave: the long name is cut.
    window.resize(1000, 768)
    await wait_until(lambda: header.sectionSize(origin) < 130)
    assert is_elided(pane.table, cell)

    window.resize(1920, 1080)
    await wait_until(lambda: header.sectionSize(origin) > 200)
    assert header.sectionSize(destination) == header.sectionSize(origin)
    assert not is_elided(pane.table, cell)
    carrier = COLUMN_INDEX["carrier"]
    right = header.sectionViewportPosition(carrier) + header.sectionSize(carrier)
    bar = pane.table.verticalScrollBar().sizeHint().width()
    assert right <= pane.table.viewport().width() - bar  # all key columns still in view

    # The user drags Origin's right edge: from then on its width is the user's.
    edge = QPoint(header.sectionViewportPosition(origin) + header.sectionSize(origin) - 1, 5)
    qtbot.mousePress(header.viewport(), Qt.MouseButton.LeftButton, pos=edge)
    qtbot.mouseMove(header.viewport(), edge - QPoint(40, 0))
    qtbot.mouseRelease(header.viewport(), Qt.MouseButton.LeftButton, pos=edge - QPoint(40, 0))
    chosen = header.sectionSize(origin)
    assert chosen < header.sectionSize(destination)
    window.resize(1000, 768)
    await wait_until(lambda: pane.table.viewport().width() < 900)
    assert header.sectionSize(origin) == chosen
    pane.shutdown()

    again = ShipmentsPane(None, settings)
    qtbot.addWidget(again)
    again.resize(1800, 900)
    again.show()
    await exposed(again)
    assert again.table.horizontalHeader().sectionSize(origin) == chosen
    again.shutdown()


async def test_the_split_the_user_chose_is_kept_for_the_next_start(
    qtbot: QtBot, window: QWidget, settings: QSettings
) -> None:
    pane = _pane(window)
    await exposed(window)
    default = pane.splitter.sizes()[0]
    # The user drags the handle between the list and the detail 120 px towards the list (up:
    # at 1366 px the detail is below the list).
    drag_handle(qtbot, pane.splitter, 120)
    chosen = pane.splitter.sizes()[0]
    assert chosen < default - 100, (default, chosen)
    size = pane.size()
    pane.shutdown()

    again = ShipmentsPane(None, settings)
    qtbot.addWidget(again)
    again.resize(size)
    again.show()
    await exposed(again)
    # Not the default split of a fresh start: the user's, kept.
    await wait_until(lambda: again.splitter.sizes()[0] == chosen)
    again.shutdown()
