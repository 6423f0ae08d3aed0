"""About FreightDesk: versions of what it runs on, and where its log is."""

from __future__ import annotations

import platform

import PySide6
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QMessageBox, QWidget

from freightdesk import __version__


def versions_text() -> str:
    import pydantic

    return (
        f"FreightDesk {__version__}\n"
        f"Python {platform.python_version()} on {platform.system()} {platform.release()}\n"
        f"Qt {qVersion()}, PySide6 {PySide6.__version__}\n"
        f"pydantic {pydantic.VERSION}\n"
        f"Interface version 4.0.0"
    )


def show_about(parent: QWidget, log_file: str) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle("About FreightDesk")
    box.setIcon(QMessageBox.Icon.Information)
    box.setText(
        "<b>FreightDesk</b><br>Freight visibility for dispatchers: shipments, maps, documents, "
        "bookings, stop locations and webhooks."
    )
    box.setInformativeText(versions_text() + f"\n\nLog file: {log_file}")
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()
    return box
