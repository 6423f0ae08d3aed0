"""The app's cache cannot be opened (a read-only or full disk, something else where its file
should be): the shipment list still attaches and shows the Local sandbox's shipments, kept in
memory, and the session says why in words (the app puts them in its status bar). Here a
folder stands where the cache file should be: the tests run as root on some machines, and
root writes whatever a file's mode says."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QStyle
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.conftest import close_session

START_SECONDS = 300.0  # the Local sandbox's start with its demo data, at a load of 10


@pytest.mark.timeout(600)
async def test_the_list_works_without_its_cache_and_the_session_says_why(
    qtbot: QtBot,
    session: AppSession,
    settings: QSettings,
    paths: AppPaths,
    profiles: ProfileStore,
) -> None:
    in_the_way = paths.cache_file(profiles.active.id)
    (in_the_way / "not a cache").mkdir(parents=True)
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    pane = ShipmentsPane(session, settings, window)  # opens the cache, as the app's start does
    window.add_pane("shipments", "Shipments", pane, QStyle.StandardPixmap.SP_FileIcon)
    window.show()
    try:
        assert session.cache_problem == (
            f"FreightDesk cannot keep its saved data in {paths.cache_dir} (unable to open "
            "database file). It works, but lists are fetched anew at each start and cannot "
            "be shown offline."
        )
        await session.connect()
        await wait_until(
            lambda: (
                window.indicator.state_label.text().startswith("Online")
                and pane.model.rowCount() > 0
            ),
            seconds=START_SECONDS,
        )
        assert [p.name for p in in_the_way.iterdir()] == ["not a cache"]
    finally:
        pane.shutdown()
        await close_session(session)
