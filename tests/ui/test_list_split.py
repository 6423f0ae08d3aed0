"""The split a user drags between a list and its detail is kept for the next start, in each
pane that shares its room through `widgets.list_split`: dragged with the mouse, the pane
closed, the settings read again from their file as a new start reads them, the pane opened
again at the same size."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.bookings.pane import BookingsPane
from freightdesk.ui.panes.documents.pane import DocumentsPane
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import TenantHandle, wait_until
from tests.ui.conftest import exposed
from tests.ui.splitter_drag import drag_handle
from tests.ui.test_columns_fit import AT_1366, AT_1920
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]

DRAG = 120  # px, towards the list

Pane = BookingsPane | DocumentsPane | ShipmentsPane
PANES: dict[str, Callable[[AppSession, QSettings], Pane]] = {
    "bookings": BookingsPane,
    "documents": DocumentsPane,
    "shipments": ShipmentsPane,
}


def closed(pane: Pane) -> None:
    pane.shutdown()
    pane.close()


@pytest.mark.parametrize("room", [AT_1366, AT_1920], ids=["1366", "1920"])
@pytest.mark.parametrize("name", list(PANES))
async def test_the_dragged_split_is_kept_for_the_next_start(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    settings: QSettings,
    name: str,
    room: tuple[int, int],
) -> None:
    session = connected[0]
    make = PANES[name]
    pane = await shown_pane(qtbot, session, lambda s: make(s, settings), room)
    await exposed(pane)
    # The app's own split, once the pane has its size.
    await wait_until(lambda: min(pane.splitter.sizes()) > 0)
    default = pane.splitter.sizes()
    drag_handle(qtbot, pane.splitter, DRAG)
    chosen = pane.splitter.sizes()
    assert chosen[0] < default[0] - DRAG + 10, (default, chosen)
    orientation = pane.splitter.orientation()
    closed(pane)
    settings.sync()

    # A new start: the settings as read from their file, a new pane.
    again_settings = QSettings(settings.fileName(), QSettings.Format.IniFormat)
    again = make(session, again_settings)
    qtbot.addWidget(again)
    again.resize(*room)
    again.show()
    await exposed(again)
    # Not the default split of a fresh start (which it shows first): the user's, kept.
    await wait_until(lambda: again.splitter.sizes() == chosen)
    assert again.splitter.orientation() == orientation
    closed(again)


@pytest.mark.parametrize("name", list(PANES))
async def test_the_apps_own_split_is_not_kept(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings, name: str
) -> None:
    """Not dragged, the split is the app's: it follows the next start's window."""
    session = connected[0]
    pane = await shown_pane(qtbot, session, lambda s: PANES[name](s, settings), AT_1920)
    await exposed(pane)
    closed(pane)
    assert settings.value(f"{name}/splitter") is None


# A window in which the pane puts the detail below its list.
NARROW: dict[str, tuple[int, int]] = {"bookings": (900, 718), "shipments": AT_1366}


@pytest.mark.parametrize("name", list(NARROW))
async def test_a_split_dragged_below_the_list_gives_way_to_the_detail_beside_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], settings: QSettings, name: str
) -> None:
    """The user's split holds within the orientation it was dragged in: dragged with the
    detail below the list, a wide window puts the detail beside the list again (the app's
    split), and a narrow one brings the user's back, in this start and the next."""
    session = connected[0]
    make, narrow = PANES[name], NARROW[name]
    pane = await shown_pane(qtbot, session, lambda s: make(s, settings), narrow)
    await exposed(pane)
    await wait_until(lambda: min(pane.splitter.sizes()) > 0)
    assert pane.splitter.orientation() == Qt.Orientation.Vertical
    drag_handle(qtbot, pane.splitter, DRAG)
    chosen = pane.splitter.sizes()

    pane.resize(*AT_1920)
    await wait_until(lambda: pane.splitter.orientation() == Qt.Orientation.Horizontal)
    wide = pane.splitter.sizes()
    assert wide[0] > wide[1] > 0, wide  # the app's: the list wide, the detail beside it
    pane.resize(*narrow)
    await wait_until(lambda: pane.splitter.orientation() == Qt.Orientation.Vertical)
    await wait_until(lambda: pane.splitter.sizes() == chosen)

    # Closed while wide, the user's split is what is kept, not the app's.
    pane.resize(*AT_1920)
    await wait_until(lambda: pane.splitter.orientation() == Qt.Orientation.Horizontal)
    closed(pane)
    settings.sync()
    again = make(session, QSettings(settings.fileName(), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    again.resize(*AT_1920)
    again.show()
    await exposed(again)
    await wait_until(lambda: again.splitter.orientation() == Qt.Orientation.Horizontal)
    await wait_until(lambda: again.splitter.sizes() == wide)
    again.resize(*narrow)
    await wait_until(lambda: again.splitter.orientation() == Qt.Orientation.Vertical)
    await wait_until(lambda: again.splitter.sizes() == chosen)
    closed(again)
