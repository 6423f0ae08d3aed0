"""The app as `freightdesk` runs it (`launch.run`), watched from inside for a new native
window (run under X11 by the window surface test, on a home its first argument names).

From the first paint on, every time the main window's native window is made or destroyed
(QEvent.PlatformSurface) or its id changes (QEvent.WinIdChange) is counted. Once the maps
are warmed up (the shipment map's page loaded in its hidden tab: a web view, which draws
through Qt Quick, is in the window) and a moment has passed, one JSON line says what was
seen, and the app is closed as Quit would close it.

    python -m tests.e2e.window_probe <home>
"""

from __future__ import annotations

import json
import os
import sys
import time

WARM_SECONDS = 240  # QtWebEngine's first start on a loaded machine
SETTLE_MS = 1000  # after the page is loaded: what follows it in the event loop has run


def main() -> int:
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtGui import QPlatformSurfaceEvent
    from PySide6.QtWidgets import QApplication

    from freightdesk.ui import launch
    from freightdesk.ui.main_window import MainWindow
    from freightdesk.ui.panes.shipments.pane import ShipmentsPane

    seen: list[str] = []

    class Watch(QObject):
        def eventFilter(self, _watched: QObject, event: QEvent) -> bool:  # noqa: N802
            if event.type() == QEvent.Type.WinIdChange:
                seen.append("WinIdChange")
            elif isinstance(event, QPlatformSurfaceEvent):
                seen.append(event.surfaceEventType().name)
            return False

    watch = Watch()

    def window() -> MainWindow:
        return next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))

    def painted() -> None:
        main = window()
        main.installEventFilter(watch)
        first_id = int(main.winId())
        handle = main.windowHandle()
        surface = handle.surfaceType().name if handle is not None else None
        deadline = time.monotonic() + WARM_SECONDS

        def report() -> None:
            handle = main.windowHandle()
            print(
                json.dumps(
                    {
                        "first_id": first_id,
                        "last_id": int(main.winId()),
                        "first_surface": surface,
                        "last_surface": handle.surfaceType().name if handle else None,
                        "seen": seen,
                        "map_ready": map_ready(),
                    }
                ),
                flush=True,
            )
            main.close_without_asking()

        def map_ready() -> bool:
            pane = main.pane("shipments")
            if not isinstance(pane, ShipmentsPane) or not pane.is_attached():
                return False
            view = pane.detail.map
            return view is not None and view.is_ready

        def poll() -> None:
            if map_ready() or time.monotonic() > deadline:
                QTimer.singleShot(SETTLE_MS, report)
            else:
                QTimer.singleShot(100, poll)

        poll()

    return launch.run([], on_first_paint=painted)


if __name__ == "__main__":
    raise SystemExit(main())
