"""The split a user drags between a list and its detail is kept for the next start, in each
pane that shares its room through `widgets.list_split`: dragged with the mouse, the pane
closed, the settings read again from their file as a new start reads them, the pane opened
again at the same size."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QSettings
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
