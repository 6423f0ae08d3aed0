"""The bulk actions' result dialog on a 1366x768 laptop and a 1440x900 screen: in the screen,
Close in sight, each reason whole in a row of its height (rows were sized before the dialog
was shown: a two-line reason sat in a row of nine lines, most of the list out of sight)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.screens import run_on_screen


@pytest.mark.parametrize("screen", [(1366, 768), (1440, 900)], ids=["1366x768", "1440x900"])
def test_the_bulk_result_fits_the_screen(tmp_path: Path, screen: tuple[int, int]) -> None:
    run_on_screen(tmp_path, Path(__file__).with_name("bulk_result_on_screen.py"), *screen)
