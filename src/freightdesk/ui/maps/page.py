"""The map widget: a QWebEngineView showing our Leaflet page, and the channel to and from it.

The page shell is rendered ahead by folium (see `shell`) with every asset pointed at the local
`fdmap:` scheme (folium's own CDN links and its jQuery, Bootstrap and Font Awesome are
dropped). The page is loaded once per view; Python then calls `FD.*` functions with JSON data
through `runJavaScript`, and the page calls back through a QWebChannel object (`MapBridge`).
Calls made before the page is ready wait in a queue.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QChildEvent,
    QCoreApplication,
    QEvent,
    QObject,
    QSettings,
    Qt,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import QDesktopServices, QResizeEvent
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineSettings,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QLabel, QWidget

from freightdesk import __version__
from freightdesk.ui.maps.scheme import MapSchemeHandler
from freightdesk.ui.maps.shell import PAGE_URL, SCHEME
from freightdesk.ui.maps.shell import render_page as render_page  # the shell, as before

log = logging.getLogger(__name__)

OSM_TILES = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
OSM_ATTRIBUTION = (
    '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
)
# Tile servers (OpenStreetMap's policy in particular) ask for a User-Agent naming the app.
USER_AGENT = f"FreightDesk/{__version__} (desktop freight visibility; shipment maps)"
TILE_CACHE_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class TileSettings:
    """Where map tiles come from. An empty `url` switches tiles off (outlines only)."""

    url: str = OSM_TILES
    attribution: str = OSM_ATTRIBUTION
    max_zoom: int = 19

    @classmethod
    def from_settings(cls, settings: QSettings) -> TileSettings:
        url = settings.value("maps/tileUrl", OSM_TILES)
        attribution = settings.value("maps/tileAttribution", None)
        url_text = str(url) if url is not None else OSM_TILES
        if attribution is None:
            attribution = OSM_ATTRIBUTION if url_text == OSM_TILES else ""
        try:
            max_zoom = int(str(settings.value("maps/tileMaxZoom", 19)))
        except ValueError:
            max_zoom = 19
        return cls(url_text.strip(), str(attribution), max(1, min(max_zoom, 22)))

    def store(self, settings: QSettings) -> None:
        settings.setValue("maps/tileUrl", self.url)
        settings.setValue("maps/tileAttribution", self.attribution)
        settings.setValue("maps/tileMaxZoom", self.max_zoom)


class NotePlace(StrEnum):
    """Where a map page says that it shows outlines only (its tiles fail or are switched off)."""

    CORNER = "corner"  # a box at the bottom left, over the scale
    STRIP = "strip"  # one line beside the zoom buttons, cut to the room there
    NONE = "none"  # not on the map: the view's owner says it beside the map (`tilesChanged`)


@dataclass
class MapConfig:
    """What the app sets once (`configure`): the tiles and where tiles are cached on disk."""

    tiles: TileSettings = TileSettings()
    cache_dir: Path | None = None


CONFIG = MapConfig()
_profile: QWebEngineProfile | None = None


def configure(tiles: TileSettings, cache_dir: Path | None) -> None:
    """The app's map settings; maps opened afterwards use them. A disk cache keeps tiles
    seen once available offline."""
    CONFIG.tiles = tiles
    CONFIG.cache_dir = cache_dir


def map_profile() -> QWebEngineProfile:
    """The browser profile of every map: our scheme, our User-Agent, a tile cache."""
    global _profile
    if _profile is None:
        owner = QCoreApplication.instance()
        if CONFIG.cache_dir is not None:
            profile = QWebEngineProfile("freightdesk-maps", owner)
            profile.setPersistentStoragePath(str(CONFIG.cache_dir / "storage"))
            profile.setCachePath(str(CONFIG.cache_dir / "http"))
            profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.DiskHttpCache)
            profile.setHttpCacheMaximumSize(TILE_CACHE_BYTES)
        else:
            profile = QWebEngineProfile(owner)  # off the record: nothing written to disk
        profile.setHttpUserAgent(USER_AGENT)
        profile.installUrlSchemeHandler(SCHEME.encode(), MapSchemeHandler(profile))
        _profile = profile
    return _profile


class MapBridge(QObject):
    """What the page tells Python: its slots are called from JavaScript (QWebChannel)."""

    loaded = Signal()
    painted = Signal(int)
    clicked = Signal(str)
    tilesLoaded = Signal(bool)

    @Slot(str)
    def pageReady(self, _value: str) -> None:  # noqa: N802 (the page's name)
        self.loaded.emit()

    @Slot(int)
    def rendered(self, token: int) -> None:
        self.painted.emit(int(token))

    @Slot(str)
    def itemClicked(self, key: str) -> None:  # noqa: N802
        self.clicked.emit(str(key))

    @Slot(bool)
    def tilesChanged(self, ok: bool) -> None:  # noqa: N802
        self.tilesLoaded.emit(bool(ok))


class MapPage(QWebEnginePage):
    """Keeps the map in its view: links open in the system browser; the page's console goes
    to our log (and its errors are kept, so tests can assert there were none)."""

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None) -> None:
        super().__init__(profile, parent)
        self.console_errors: list[str] = []

    def javaScriptConsoleMessage(  # noqa: N802 (Qt's name)
        self,
        level: QWebEnginePage.JavaScriptConsoleMessageLevel,
        message: str,
        line: int,
        source: str,
    ) -> None:
        if level == QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel:
            # A tile that cannot load is expected offline; anything else is our bug.
            if "Failed to load resource" not in message:
                self.console_errors.append(f"{source}:{line}: {message}")
                log.error("map page: %s (%s:%d)", message, source, line)
            return
        log.debug("map page: %s (%s:%d)", message, source, line)

    def acceptNavigationRequest(  # noqa: N802 (Qt's name)
        self, url: QUrl | str, kind: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        target = QUrl(url)
        if target.scheme() == SCHEME:
            return True
        if kind == QWebEnginePage.NavigationType.NavigationTypeLinkClicked:
            QDesktopServices.openUrl(target)  # the attribution's links
        return False


class LoadingNote(QLabel):
    """ "Loading map…" over the top of a map until it is drawn. A child of the view placed by
    hand, never a layout item: showing or hiding it changes no widget's size."""

    MARGIN = 10

    def __init__(self, view: QWebEngineView) -> None:
        super().__init__("Loading map…", view)
        self.setObjectName("mapLoading")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setStyleSheet(
            "QLabel#mapLoading { background: rgba(255, 255, 255, 235); color: #1f2937;"
            " border: 1px solid #9ca3af; border-radius: 4px; padding: 4px 10px; }"
        )
        self.adjustSize()
        self.place()

    def place(self) -> None:
        view = self.parentWidget()
        if view is not None:
            self.move(max(0, (view.width() - self.width()) // 2), self.MARGIN)
            self.raise_()


class MapView(QWebEngineView):
    """A map page; `call("name", *args)` runs `FD.name(...)` once the page is ready.

    `note` is where the page says it shows outlines only (`NotePlace`). `loading` says
    "Loading map…" over the view while the page is not ready and while a picture asked for
    with `expect(token)` is not yet drawn (the page's `rendered`)."""

    ready = Signal()
    rendered = Signal(int)
    itemClicked = Signal(str)
    tilesChanged = Signal(bool)

    def __init__(
        self,
        kind: str,
        parent: QWidget | None = None,
        *,
        tiles: TileSettings | None = None,
        note: NotePlace = NotePlace.CORNER,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.tiles = tiles or CONFIG.tiles
        self.note = note
        self.is_ready = False
        self._pending: list[str] = []
        self._token = 0
        self._page = MapPage(map_profile(), self)
        settings = self._page.settings()
        settings.setAttribute(QWebEngineSettings.WebAttribute.JavascriptCanOpenWindows, False)
        settings.setAttribute(QWebEngineSettings.WebAttribute.ShowScrollBars, False)
        self.setPage(self._page)
        self.bridge = MapBridge(self)
        self._channel = QWebChannel(self._page)
        self._channel.registerObject("bridge", self.bridge)
        self._page.setWebChannel(self._channel)
        self.bridge.loaded.connect(self._on_ready)
        self.bridge.painted.connect(self.rendered)
        self.bridge.clicked.connect(self.itemClicked)
        self.bridge.tilesLoaded.connect(self.tilesChanged)
        self._page.renderProcessTerminated.connect(self._on_crash)
        self._state: str | None = None
        self._awaited: int | None = None
        self.loading = LoadingNote(self)
        self.rendered.connect(self._drawn)
        self.load(QUrl(PAGE_URL))

    @property
    def drawn(self) -> bool:
        """The page is up and has drawn what was last asked for with `expect`."""
        return self.is_ready and self._awaited is None

    def expect(self, token: int) -> None:
        """Say "Loading map…" until the page reports it drew `token` (or a later one)."""
        self._awaited = token
        self._show_loading()

    def _drawn(self, token: int) -> None:
        if self._awaited is not None and token >= self._awaited:
            self._awaited = None
        self._show_loading()

    def _show_loading(self) -> None:
        self.loading.setVisible(not self.drawn)
        if not self.drawn:
            self.loading.place()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.loading.place()

    def childEvent(self, event: QChildEvent) -> None:  # noqa: N802 (Qt's name)
        super().childEvent(event)
        # QtWebEngine adds its render widget when the page starts: the note stays above it.
        loading: LoadingNote | None = getattr(self, "loading", None)  # None while being made
        if loading is not None and event.type() == QEvent.Type.ChildAdded:
            loading.raise_()

    @property
    def map_page(self) -> MapPage:
        return self._page

    def next_token(self) -> int:
        self._token += 1
        return self._token

    def call(self, function: str, *args: Any, state: bool = False) -> None:
        """Run `FD.function(*args)` (arguments as JSON). A `state` call sets the whole picture:
        it is kept to draw again should the page have to be loaded again (see `restore`)."""
        script = f"FD.{function}({','.join(json.dumps(a, separators=(',', ':')) for a in args)})"
        if state:
            self._state = script
        if self.is_ready:
            self._page.runJavaScript(script, 0)
        else:
            self._pending.append(script)

    def set_tiles(self, tiles: TileSettings) -> None:
        self.tiles = tiles
        if self.is_ready:
            self._configure()

    def _configure(self) -> None:
        options = {
            "kind": self.kind,
            "tileUrl": self.tiles.url,
            "attribution": self.tiles.attribution,
            "maxZoom": self.tiles.max_zoom,
            "note": str(self.note),
        }
        self._page.runJavaScript(f"FD.configure({json.dumps(options)})", 0)

    def _on_ready(self) -> None:
        self.is_ready = True
        self._show_loading()
        self._configure()
        pending, self._pending = self._pending, []
        for script in pending:
            self._page.runJavaScript(script, 0)
        self.ready.emit()

    def _on_crash(self, status: QWebEnginePage.RenderProcessTerminationStatus, code: int) -> None:
        if status == QWebEnginePage.RenderProcessTerminationStatus.NormalTerminationStatus:
            return
        log.warning("the map's render process ended (%s, %d); loading it again", status, code)
        self.is_ready = False
        self._show_loading()
        self._pending = []
        self.load(QUrl(PAGE_URL))
        self.restore()

    def restore(self) -> None:
        """Draw the picture again on a page loaded anew (after its render process ended)."""
        if self._state is not None:
            self._pending.append(self._state)

    def render_process_pid(self) -> int:
        return int(self._page.renderProcessPid())

    def dispose(self) -> None:
        """Stop sending to the page (the view is going away)."""
        self._pending.clear()
        self._state = None
        self.is_ready = False
