"""A test module run in a process of its own whose offscreen screen is a real one's size (the
suite's is 800x800): `FREIGHTDESK_TEST_SCREEN` tells it which (no tests here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run_on_screen(tmp_path: Path, module: Path, width: int, height: int) -> None:
    """Run the tests of `module` on a `width` x `height` offscreen screen; all must pass."""
    config = tmp_path / "screen.json"
    screen = {
        "name": "laptop",
        "x": 0,
        "y": 0,
        "width": width,
        "height": height,
        "logicalDpi": 96,
        "logicalBaseDpi": 96,
        "dpr": 1,
    }
    config.write_text(json.dumps({"screens": [screen]}))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(module), "-q", "-s", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
            "FREIGHTDESK_TEST_SCREEN": f"{width}x{height}",
        },
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout, result.stdout[-2000:]
