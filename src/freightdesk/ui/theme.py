"""Light and dark themes that follow the system unless the user picks one."""

from __future__ import annotations

from enum import StrEnum

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication


class ThemeChoice(StrEnum):
    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


def is_dark(choice: ThemeChoice) -> bool:
    if choice is ThemeChoice.DARK:
        return True
    if choice is ThemeChoice.LIGHT:
        return False
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, choice: ThemeChoice) -> None:
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if is_dark(choice) else light_palette())


def _disabled(palette: QPalette, dim: QColor) -> None:
    """Disabled controls look disabled: dim text, check box and label texts included (they use
    WindowText), and fields on the window's colour rather than an editable white."""
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, dim)
    window = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.Window)
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Base, window)


def light_palette() -> QPalette:
    palette = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#f4f5f7",
        QPalette.ColorRole.WindowText: "#1d2330",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#f0f3f8",
        QPalette.ColorRole.Text: "#1d2330",
        QPalette.ColorRole.Button: "#eceef2",
        QPalette.ColorRole.ButtonText: "#1d2330",
        QPalette.ColorRole.Highlight: "#2f6fde",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#ffffdc",
        QPalette.ColorRole.ToolTipText: "#1d2330",
        QPalette.ColorRole.PlaceholderText: "#7a8294",
        QPalette.ColorRole.Link: "#1f5cc4",
    }
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    _disabled(palette, QColor("#9aa0ab"))
    return palette


def dark_palette() -> QPalette:
    palette = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#1f2229",
        QPalette.ColorRole.WindowText: "#e3e6ec",
        QPalette.ColorRole.Base: "#181a20",
        QPalette.ColorRole.AlternateBase: "#22252d",
        QPalette.ColorRole.Text: "#e3e6ec",
        QPalette.ColorRole.Button: "#2a2e37",
        QPalette.ColorRole.ButtonText: "#e3e6ec",
        QPalette.ColorRole.Highlight: "#3d7be6",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#2a2e37",
        QPalette.ColorRole.ToolTipText: "#e3e6ec",
        QPalette.ColorRole.PlaceholderText: "#8a90a0",
        QPalette.ColorRole.Link: "#7eb0ff",
    }
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    _disabled(palette, QColor("#6b7080"))
    return palette


# Colours with a meaning, readable on both themes.
STATE_COLORS = {
    "online": "#2e9d5b",
    "degraded": "#d89b1c",
    "offline": "#d0453a",
    "connecting": "#7a8294",
}
