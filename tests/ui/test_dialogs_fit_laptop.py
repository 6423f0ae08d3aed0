"""Dialogs taller than a 1366x768 laptop's screen leaves room for (the title bar and a
taskbar) open shorter there, their buttons in sight (`screen_fit`)."""

from __future__ import annotations

from pathlib import Path

from tests.ui.screens import run_on_screen


def test_tall_dialogs_fit_a_laptop_screen(tmp_path: Path) -> None:
    """The stop location picker was 720 px tall: on 768 px less a title bar and a taskbar its
    OK and Cancel were off the screen. Run where the offscreen screen is 1366x768."""
    run_on_screen(tmp_path, Path(__file__).with_name("tall_dialogs_on_screen.py"), 1366, 768)
