"""A dialog's height within its screen: its buttons stay in sight on a 1366x768 laptop."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

ROOM_AROUND = 80  # of the screen's available height, left to the title bar and a taskbar


def fitting_height(window: QWidget, wanted: int) -> int:
    """`wanted`, or less where the screen of `window` leaves no room for it and its title bar
    and a taskbar (availableGeometry leaves out a taskbar only when the window manager says)."""
    screen = window.screen()
    if screen is None:
        return wanted
    return min(wanted, screen.availableGeometry().height() - ROOM_AROUND)


def resize_to_fit(window: QWidget, width: int, height: int) -> None:
    """Resize `window` to `width` by `height`, or shorter to fit its screen (see above)."""
    window.resize(width, fitting_height(window, height))
