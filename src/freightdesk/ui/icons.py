"""The app's icons, from the package's `resources` (the project's top-level `resources/`,
installed into the package: see `[tool.setuptools.package-data]`).

Found through `importlib.resources`, so they are where the package is: a checkout, a wheel
or the frozen bundle. Imported before the first paint: Qt and the standard library only.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

from PySide6.QtGui import QIcon

# The app icon's sizes drawn from its SVG (packaging/make_icons.py); Qt scales the nearest
# larger one for any other size.
APP_ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def resource(*parts: str) -> Traversable:
    """A file of the package's resources, e.g. `resource("freightdesk.desktop")`."""
    return files("freightdesk").joinpath("resources", *parts)


def app_icon() -> QIcon:
    """FreightDesk's icon: the window, the tray, the About box."""
    icon = QIcon()
    for size in APP_ICON_SIZES:
        icon.addFile(str(resource("icons", "hicolor", f"{size}x{size}", "apps", "freightdesk.png")))
    return icon


def pane_icon(key: str) -> QIcon:
    """The navigation's icon of the pane `key` (one set, readable on light and dark)."""
    return QIcon(str(resource("icons", "panes", f"{key}.svg")))
