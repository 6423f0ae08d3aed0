"""Each form the app opens fits a 1366x768 laptop's screen, its Save button in sight, centred
on the main window (`FormDialog` fits it to the screen; fields that cannot be that short
scroll above the buttons), and so does each of its other dialogs (all fit as they are)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.screens import run_on_screen


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (1093, 614), (1024, 576)])
def test_forms_fit_a_laptop_screen(tmp_path: Path, width: int, height: int) -> None:
    """Run where the offscreen screen is 1366x768, 1093x614 (the same laptop at 125 % scale:
    most forms, the new shipment's 620 px, were taller than the screen, their buttons out of
    it) and 1024x576 (1280x720 at 125 %: the new shipment, stop location and booking forms
    scroll)."""
    run_on_screen(tmp_path, Path(__file__).with_name("forms_on_laptop_screen.py"), width, height)
