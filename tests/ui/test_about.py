"""The app's icon on the window and in Help > About, with the version from the package's
metadata and the licences of what FreightDesk bundles."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMenu, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.paths import AppPaths
from freightdesk.service.session import AppSession
from freightdesk.ui.main_window import MainWindow
from freightdesk.ui.panes.setup import add_panes


def open_about(window: MainWindow) -> QMessageBox:
    """Help > About, chosen from the menu bar as the user does: the box it opens."""
    help_menu = next(
        action.menu()
        for action in window.menuBar().actions()
        if action.text().replace("&", "") == "Help"
    )
    assert isinstance(help_menu, QMenu)
    about = next(a for a in help_menu.actions() if a.text().replace("&", "").startswith("About"))
    about.trigger()
    box = window.findChild(QMessageBox, "aboutBox")
    assert box is not None
    return box


def test_about_shows_the_icon_the_version_and_the_licences(
    qtbot: QtBot, session: AppSession, settings: QSettings, paths: AppPaths
) -> None:
    window = MainWindow(session, settings, paths)
    qtbot.addWidget(window)
    add_panes(window)
    # The app's own icon, drawn for the sizes a desktop asks for, on the window and every
    # pane of the navigation (none left blank).
    sizes = {size.width() for size in window.windowIcon().availableSizes()}
    assert {16, 32, 48, 256, 512} <= sizes
    panes = [window.nav.item(row) for row in range(window.nav.count())]
    panes = [item for item in panes if item.data(Qt.ItemDataRole.UserRole)]  # not headings
    assert len(panes) >= 11
    for item in panes:
        assert not item.icon().pixmap(20, 20).toImage().isNull(), item.text()

    window.show()
    qtbot.waitExposed(window)
    box = open_about(window)
    qtbot.waitExposed(box)
    assert f"FreightDesk {version('freightdesk')}" in box.text()
    assert not box.iconPixmap().isNull()
    licences = box.detailedText()
    for notice in (
        "GNU Lesser General Public License, version 3",  # Qt, PySide6
        "Leaflet 1.9.3: BSD 2-Clause License",
        "OpenStreetMap contributors",
        "folium 0.20",
    ):
        assert notice in licences
    box.accept()


# As in an install without the maps-build extra: folium neither importable nor its metadata
# there. The licence names the folium that rendered the map page, which the page says.
WITHOUT_FOLIUM = """
import importlib.metadata, sys
sys.modules["folium"] = None  # import folium: ImportError
installed = importlib.metadata.version

def version(name):
    if name.lower() == "folium":
        raise importlib.metadata.PackageNotFoundError(name)
    return installed(name)

importlib.metadata.version = version
from freightdesk.ui.dialogs.about import licences_text
print(licences_text())
"""


def test_the_licences_name_the_folium_that_rendered_the_map_page_without_folium() -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_FOLIUM], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "folium 0.20.0: MIT License. Copyright (c) 2013, Rob Story." in result.stdout
    assert "BSD 3-Clause License, copyright (c) 2012, Michael Bostock" in result.stdout
