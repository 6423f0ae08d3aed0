"""The fleet map pane: the latest position of every active shipment the Shipments pane shows.

It follows the Shipments pane's filter (the same rows, minus those without a position), colours
each shipment by its state or an open exception, clusters dense areas, and opens a shipment's
detail on a click. Positions are polled only while the pane is on screen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.service.session import AppSession
from freightdesk.service.tracks import FleetChange, FleetPositions
from freightdesk.ui.maps.page import CONFIG, OSM_TILES, MapView, TileSettings, configure
from freightdesk.ui.maps.payload import fleet_items
from freightdesk.ui.panes.shipments.pane import ShipmentsPane

log = logging.getLogger(__name__)

REDRAW_DEBOUNCE_MS = 120


class FleetMapPane(QWidget):
    def __init__(
        self,
        session: AppSession,
        shipments: ShipmentsPane,
        settings: QSettings,
        parent: QWidget | None = None,
        *,
        show_shipments: Callable[[], None] | None = None,
        tiles: TileSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.shipments = shipments
        self.settings = settings
        self.show_shipments = show_shipments
        self.tiles = tiles
        self.map: MapView | None = None
        self.fleet: FleetPositions | None = None
        self._unlisten: Callable[[], None] | None = None
        self.shown_count = 0
        self._making_map = False
        self._drawn_once = False

        self.title = QLabel("Where the shipments in the list are now", self)
        self.title.setObjectName("fleetTitle")
        self.count = QLabel(self)
        self.count.setObjectName("fleetCount")
        self.include_completed = QCheckBox("Include completed", self)
        self.fit_button = QPushButton("Fit all", self)
        self.tiles_button = QPushButton("Map tiles…", self)
        self.tiles_button.setToolTip("Where the map's background tiles come from")
        self.notice = QLabel(self)
        self.notice.setObjectName("fleetNotice")
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addSpacing(12)
        top.addWidget(self.count, 1)
        top.addWidget(self.include_completed)
        top.addWidget(self.fit_button)
        top.addWidget(self.tiles_button)
        self.body = QVBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addLayout(self.body, 1)

        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(REDRAW_DEBOUNCE_MS)
        self._redraw_timer.timeout.connect(self.redraw)
        shipments.model.filterApplied.connect(self._redraw_timer.start)
        self.include_completed.toggled.connect(self._redraw_timer.start)
        self.fit_button.clicked.connect(self.fit)
        self.tiles_button.clicked.connect(self.choose_tiles)
        self._unlisten_connected = session.listen_connected(self._connected)
        if session.client is not None:
            self._connected()

    # --- showing -------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._making_map:
            return  # bringing QtWebEngine up processes events, this show among them
        self.ensure_map()
        self._follow(True)
        self.redraw()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 (Qt's name)
        super().hideEvent(event)
        self._follow(False)

    def ensure_map(self) -> MapView:
        """The web view, made the first time the pane is shown."""
        if self.map is None:
            self._making_map = True
            try:
                view = MapView("fleet", self, tiles=self.tiles)
            finally:
                self._making_map = False
            view.setObjectName("fleetMap")
            view.itemClicked.connect(self._clicked)
            self.body.addWidget(view)
            self.map = view
        return self.map

    def _connected(self) -> None:
        # A new connection (or another profile): positions start afresh.
        was_following = self._unlisten is not None
        self._follow(False)
        self.fleet = FleetPositions(self.session.require_client)
        if was_following or self.isVisible():
            self._follow(True)

    def _follow(self, on: bool) -> None:
        if on and self._unlisten is None and self.fleet is not None:
            self._unlisten = self.fleet.coordinator.listen(self._on_fleet)
        elif not on and self._unlisten is not None:
            self._unlisten()  # the last listener gone: polling stops
            self._unlisten = None

    def _on_fleet(self, _change: FleetChange) -> None:
        self._redraw_timer.start()

    def redraw(self) -> int | None:
        """Send the markers for the Shipments pane's current rows; returns the render token."""
        self._redraw_timer.stop()
        if self.map is None or not self.isVisible():
            return None  # drawn when shown
        data = self.fleet.coordinator.data if self.fleet is not None else None
        if data is not None and not data.available:
            self._show_notice(
                "This service does not offer the fleet's latest positions (a FreightDesk "
                "extension); open a shipment to see its track."
            )
        else:
            self._show_notice(None)
        positions = data.positions if data is not None else {}
        rows = self.shipments.model.visible_summaries()
        items = fleet_items(rows, positions, include_completed=self.include_completed.isChecked())
        self.shown_count = len(items)
        self._show_count(len(rows), len(items), data is not None)
        token = self.map.next_token()
        if not self._drawn_once:
            self.map.expect(token)  # "Loading map…" until the first markers are drawn
            self._drawn_once = True
        self.map.call("setFleet", items, {"token": token}, state=True)
        return token

    def _show_count(self, listed: int, shown: int, loaded: bool) -> None:
        if not loaded:
            self.count.setText("Loading positions…")
            return
        missing = listed - shown
        text = f"{shown:,} shipment{'s' if shown != 1 else ''} on the map"
        if missing > 0:
            completed = self.include_completed.isChecked()
            what = "no position yet" if completed else "completed or no position yet"
            text += f" · {missing:,} of the list not shown ({what})"
        self.count.setText(text)

    def _show_notice(self, text: str | None) -> None:
        self.notice.setText(text or "")
        self.notice.setVisible(bool(text))

    def fit(self) -> None:
        if self.map is not None:
            self.map.call("fit")

    def _clicked(self, key: str) -> None:
        kind, _, shipment_id = key.partition(":")
        if kind != "shipment" or not shipment_id:
            return
        self.shipments.open_shipment(shipment_id)
        self.shipments.detail.show_map()
        if self.show_shipments is not None:
            self.show_shipments()

    # --- tiles -----------------------------------------------------------------------------------

    def choose_tiles(self) -> None:
        current = self.map.tiles if self.map is not None else (self.tiles or CONFIG.tiles)
        url, ok = QInputDialog.getText(
            self,
            "Map tiles",
            "Tile URL with {z}, {x} and {y} (empty: outlines only, no network):",
            QLineEdit.EchoMode.Normal,
            current.url,
        )
        if ok:
            self.apply_tiles(url.strip())

    def apply_tiles(self, url: str) -> None:
        """Use tiles from `url` in every open map and remember it. Another server's attribution
        is not known here; it can be set in the settings file (maps/tileAttribution)."""
        if url == OSM_TILES:
            tiles = TileSettings()
        elif url == CONFIG.tiles.url:
            tiles = CONFIG.tiles
        else:
            tiles = TileSettings(url, "", CONFIG.tiles.max_zoom)
        tiles.store(self.settings)
        configure(tiles, CONFIG.cache_dir)
        for view in (self.map, self.shipments.detail.map):
            if view is not None:
                view.set_tiles(tiles)

    # --- closing ---------------------------------------------------------------------------------

    def shutdown(self) -> None:
        self._redraw_timer.stop()
        self._follow(False)
        self._unlisten_connected()
        if self.map is not None:
            self.map.dispose()
