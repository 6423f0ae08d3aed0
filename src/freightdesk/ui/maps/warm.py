"""Warming the maps up in the idle moments after the app starts, so the first map opens at once.

A map's first opening pays for more than its page: the payload's modules (numpy) are imported,
the page shell and the basemap's outlines read, QtWebEngine starts (its profile, then a render
process), and the page loads Leaflet. Here the Python part runs on a worker
thread (the window stays responsive), then each step given (making a map's view, whose page
then loads in the background) runs on the GUI thread, one per turn of the event loop.

The app calls `warm_up_maps(detail.prepare_map)` once its window is up and its panes made,
and `prepare_window(window)` before it first makes the window (`MainWindow` does).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

from freightdesk.ui import garbage

log = logging.getLogger(__name__)

_warming: set[MapWarmUp] = set()  # kept referenced until done
HEADLESS_PLATFORMS = frozenset({"offscreen", "minimal"})


def prepare_window(window: QWidget) -> None:
    """Have `window`'s native window made, when it is first made, of the kind a map needs.

    A map's web view draws through Qt Quick into a texture that the window composes with the
    platform's graphics API (OpenGL on X11), so its window needs an OpenGL surface. Qt picks
    the surface once, when the native window is made, from the widgets in the window then; a
    window made for raster painting is destroyed and made again when the first web view joins
    it (a flicker on a real screen, and a new X window). A hidden `QRhiWidget` (of the same
    graphics API as Qt Quick's default, and which makes no graphics context while hidden)
    has the window made right from the start: call this before the window is shown.

    Not on a headless platform (offscreen, minimal: tests, screenshots): there is no screen
    to flicker on, and whether it can compose with a graphics API depends on the machine
    (where it cannot, a `QRhiWidget` only warns that it is not supported)."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QRhiWidget

    if QGuiApplication.platformName() in HEADLESS_PLATFORMS:
        return
    if window.testAttribute(Qt.WidgetAttribute.WA_WState_Created):
        log.warning("the window was made before the maps' surface was asked for")
    surface = QRhiWidget(window)
    surface.setObjectName("webViewSurface")
    surface.hide()


def import_maps() -> None:
    """What a map needs that is Python only: the payload's modules, the page shell and the
    offline basemap's outlines (both read once, then served to every page by the scheme)."""
    import freightdesk.ui.maps.payload  # noqa: F401 (numpy, the models)
    from freightdesk.ui.maps.basemap import basemap_topologies
    from freightdesk.ui.maps.shell import page_html

    page_html()
    basemap_topologies()


def import_views() -> None:
    """The map views' modules, which load QtWebEngine's libraries (on the GUI thread)."""
    import freightdesk.ui.maps.shipment_map  # noqa: F401


class MapWarmUp(QObject):
    """`import_maps` on a worker thread, then `steps` on the GUI thread, then `done`."""

    imported = Signal()  # emitted on the worker thread, received on the GUI thread

    def __init__(
        self, steps: tuple[Callable[[], object], ...], done: Callable[[], None] | None
    ) -> None:
        super().__init__()
        self._steps: list[Callable[[], object]] = [import_views, *steps]
        self._done = done
        self.finished = False
        self.imported.connect(self._next)
        self._thread = threading.Thread(target=self._work, name="maps-warm-up", daemon=True)
        self._load: garbage.BulkLoad | None = None

    def start(self) -> None:
        _warming.add(self)
        # Collections wait while the maps' modules load and the page is made: a pass then
        # walks every object imported so far (about 100,000: 50 to 90 ms on the GUI thread).
        # They live as long as the app, so they are frozen once all is done.
        self._load = garbage.bulk_load()
        self._thread.start()

    def _work(self) -> None:
        try:
            import_maps()
        except Exception:  # the map will say so when it is opened
            log.exception("warming the maps up failed")
        self.imported.emit()

    def cancel(self) -> None:
        """Run no more steps and call nobody (the window is closing): a step that made a map
        view in a window being torn down would crash QtWebEngine. Waits for the imports."""
        self._steps.clear()
        self._done = None
        self._thread.join(timeout=10)
        if self._load is not None:
            self._load.done()

    def _next(self) -> None:
        self._thread.join()
        if self._steps:
            step = self._steps.pop(0)
            try:
                step()
            except Exception:
                log.exception("warming the maps up failed")
            QTimer.singleShot(0, self._next)
            return
        self.finished = True
        _warming.discard(self)
        if self._load is not None:
            self._load.done()
        garbage.freeze()
        if self._done is not None:
            self._done()


def warm_up_maps(*steps: Callable[[], object], done: Callable[[], None] | None = None) -> MapWarmUp:
    """Start warming the maps up (see the module); `done` is called when all is done."""
    warm = MapWarmUp(steps, done)
    warm.start()
    return warm
