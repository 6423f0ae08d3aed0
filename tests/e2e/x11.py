"""What the X11 tests share: the programs they need and the environment of the programs
they start on their own Xvfb (see the `display` fixture in conftest.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.support import missing

SCREEN = "1920x1080x24"


def required(tool: str) -> str:
    """The path of a program the X11 tests need (a skip without it; a failure in CI)."""
    found = shutil.which(tool)
    if found is None:
        missing(f"{tool} is not installed (Debian packages xvfb and xdotool have them)")
    return found


def x11_env(display: str, home: Path) -> dict[str, str]:
    """The environment of a program of the test on `display`, with `home` as its home."""
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "DISPLAY": display,
        "QT_QPA_PLATFORM": "xcb",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    if os.geteuid() == 0:
        env["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
    return env
