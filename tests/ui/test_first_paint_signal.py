"""The start measured from outside the process: with FREIGHTDESK_EXIT_AFTER_FIRST_PAINT set,
`python -m freightdesk` (and the frozen bundle alike, bench/bench_frozen.py) says when the
shipment list was painted and quits as a user would, leaving its window settings saved."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from freightdesk.service.paths import AppPaths
from freightdesk.ui.launch import EXIT_AFTER_FIRST_PAINT


def test_the_app_says_when_it_first_painted_and_quits(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "FREIGHTDESK_HOME": str(tmp_path),
        EXIT_AFTER_FIRST_PAINT: "1",
    }
    # A fresh home: no profile, no cache, nothing started yet.
    done = subprocess.run(
        [sys.executable, "-m", "freightdesk"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.fullmatch(r"first paint \d+ ms\n", done.stdout), done.stdout
    paths = AppPaths.under(tmp_path)
    settings = (paths.config_dir / "freightdesk.ini").read_text(encoding="utf-8")
    assert "pane=shipments" in settings  # closed as the window's close button closes it
    log = paths.log_file.read_text(encoding="utf-8")
    assert "closed while starting" in log  # the rest of the app was never started
