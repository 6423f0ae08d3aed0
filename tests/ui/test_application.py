"""The app's start: the window opens without loading what only other panes or the network
need (each costs a visible part of the start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

START = textwrap.dedent(
    """
    import asyncio, json, os, sys
    from pathlib import Path
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from freightdesk.ui import application
    application.prepare_qt_environment()
    import qasync
    from PySide6.QtWidgets import QApplication
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.secrets import MemorySecretStore
    app = QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    controller = application.AppController(
        AppPaths.under(Path(sys.argv[1])), secrets=MemorySecretStore()
    )
    controller.window.show()
    heavy = [
        "freightdesk.api.client",
        "freightdesk.service.local_service",
        "freightdesk.service.bookings",
        "freightdesk.ui.maps.page",
        "freightdesk.ui.maps.fleet_map",
        "freightdesk.ui.panes.documents.pane",
        "freightdesk.ui.panes.bookings.pane",
        "freightdesk.ui.panes.webhooks.pane",
        "PySide6.QtWebEngineWidgets",
        "folium",
        "pandas",
        "openpyxl",
    ]
    made = [key for key in ("map", "documents", "webhooks") if controller.window.is_made(key)]
    print(json.dumps({"loaded": [m for m in heavy if m in sys.modules], "made": made}))
    """
)


def test_the_window_opens_without_the_client_maps_or_other_panes(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", START, str(tmp_path / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"loaded": [], "made": []}
