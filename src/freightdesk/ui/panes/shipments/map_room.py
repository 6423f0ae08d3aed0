"""The shipment map's room. Below the list (1366 and 1440 px) the detail is wide and low: the
Map tab then puts the timeline beside the map, not under it, so that the map keeps the tab's
height. And the map opens in a window of its own (`MapWindow`), as large as the dispatcher
wants, following the shipment chosen in the list and the row chosen in its timeline; it opens
beside or over the main window's right part, then where the dispatcher last left it. The Map
tab's own map is the detail's (`DetailMap`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QObject, QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QBoxLayout,
    QSplitter,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.tracking import TrackingHistory
from freightdesk.service.session import AppSession
from freightdesk.service.shipments import DetailChange

if TYPE_CHECKING:
    from freightdesk.ui.maps.shipment_map import ShipmentMapView
    from freightdesk.ui.panes.shipments.detail import ShipmentDetailView

# Wider than this many times its height, the Map tab shows the timeline beside the map.
BESIDE_RATIO = 2.0
# The timeline's share of a wide Map tab, and its most: its events on two lines at most
# beside their time (at 1366 px too).
TIMELINE_SHARE = 0.43
TIMELINE_MOST = 520
# The map's own window at first: a map a dispatcher can read a route on.
WINDOW_SIZE = (900, 640)
# Opened over the main window, it leaves this much of the main window's top in sight (its
# menus and the list's filters).
WINDOW_BELOW_TOP = 48
# Beside the main window only with the room for a map this wide (else over the app): the
# 480 px a 1440 px wide app leaves on a 1920 px screen, less a window manager's frame.
BESIDE_LEAST_WIDTH = 440
# Where the window's geometry is kept between openings (and runs of the app). Not the key of
# the builds that opened it over the timeline ("shipments/mapWindowGeometry"): a place they
# kept was theirs, mostly, not the dispatcher's, and opening there again covered the timeline.
GEOMETRY_KEY = "shipments/mapWindowPlace"


def window_place(
    main: QRect, available: QRect, size: QSize, timeline: QRect | None = None
) -> QRect:
    """The map window's first place, inside the screen's available area (without a window
    manager, a window would otherwise open at the screen's top left, over the app's
    navigation), never over `timeline` (the Map tab's timeline it follows, on screen):
    beside the main window when the screen has the room for a map (BESIDE_LEAST_WIDTH),
    the whole app in sight; else over the app, on the side of the timeline with the room
    for the larger map (at 1366x768 left of it: over the Map tab's own map and the list's
    left part). Without a timeline in sight, as far right as the screen allows. On a small
    screen it leaves a third of the width and a sixth of the height to the app."""
    height = min(size.height(), available.height() * 5 // 6)
    right_room = available.right() - main.right()
    left_room = main.left() - available.left()
    if max(right_room, left_room) >= BESIDE_LEAST_WIDTH:
        width = min(size.width(), max(right_room, left_room))
        x = main.right() + 1 if right_room >= left_room else main.left() - width
        return QRect(x, _top(main, available, height), width, height)
    width = min(size.width(), available.width() * 2 // 3)
    if timeline is None or not timeline.intersects(available):
        x = max(available.left(), min(main.right() + 1, available.right() + 1 - width))
        return QRect(x, _top(main, available, height), width, height)
    sides = [
        # Left of the timeline, its right edge at the timeline's left.
        QRect(available.left(), available.top(), timeline.left() - available.left(), 0),
        # Right of it.
        QRect(timeline.right() + 1, available.top(), available.right() - timeline.right(), 0),
    ]
    places = []
    for side in sides:
        wide = min(width, side.width())
        x = side.right() + 1 - wide if side.left() == available.left() else side.left()
        places.append(QRect(x, _top(main, available, height), wide, height))
    # Above it, its bottom edge at the timeline's top, over the app's right part.
    high = min(height, timeline.top() - available.top())
    x = max(available.left(), min(main.right() + 1, available.right() + 1) - width)
    places.append(QRect(x, timeline.top() - high, width, high))
    best = max(places, key=lambda place: max(place.width(), 0) * max(place.height(), 0))
    if best.width() <= 0 or best.height() <= 0:  # the timeline fills the screen
        return window_place(main, available, size)
    return best


def _top(main: QRect, available: QRect, height: int) -> int:
    """Under the main window's top row of controls (its menus and the list's filters), the
    whole window on the screen."""
    return max(available.top(), min(main.top() + WINDOW_BELOW_TOP, available.bottom() + 1 - height))


class MapRoom(QObject):
    """Lays the Map tab out by its shape: in a wide, low tab the timeline goes beside the map;
    in a narrow, high one under it. The user's sizes are kept for each shape."""

    def __init__(self, tab: QWidget, splitter: QSplitter) -> None:
        super().__init__(tab)
        self._tab = tab
        self._splitter = splitter
        self._sizes: dict[Qt.Orientation, list[int]] = {}
        tab.installEventFilter(self)
        splitter.splitterMoved.connect(self._moved)

    def _moved(self, _position: int, _index: int) -> None:
        self._sizes[self._splitter.orientation()] = self._splitter.sizes()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self._tab and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.lay_out()
        return super().eventFilter(watched, event)

    def lay_out(self) -> None:
        if self._splitter.count() < 2:
            return  # the timeline is in its own tab: only the map here
        width, height = self._tab.width(), self._tab.height()
        wide = width >= BESIDE_RATIO * height
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        self._splitter.setOrientation(orientation)
        kept = self._sizes.get(orientation)
        if kept is not None:
            self._splitter.setSizes(kept)
        elif wide:
            timeline = min(round(width * TIMELINE_SHARE), TIMELINE_MOST)
            self._splitter.setSizes([width - timeline, timeline])
        else:
            self._splitter.setSizes([height * 3 // 5, height * 2 // 5])


class MapWindow(QWidget):
    """The chosen shipment's map in a window of its own, resizable, beside or over the app.
    A child window of the detail: it follows the detail's shipment, and closes with the app
    (the app quits when its main window closes; this one is never left behind)."""

    def __init__(self, detail: ShipmentDetailView) -> None:
        super().__init__(detail, Qt.WindowType.Window)
        self.setObjectName("shipmentMapWindow")
        self.setWindowTitle("Shipment map")
        self.resize(*WINDOW_SIZE)
        from freightdesk.ui.maps.shipment_map import ShipmentMapView

        self.map: ShipmentMapView = ShipmentMapView(detail.session, self)
        self.map.setObjectName("shipmentMapInWindow")
        self.map.itemClicked.connect(detail.select_in_timeline)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.map)
        if detail.history is not None:
            self.show_history(detail.history)
        self.settings: QSettings | None = None  # where its geometry is kept, when given
        # The main window's shortcuts act in its own window only: with the map's window
        # active, Ctrl+Q did nothing. It quits the app from here too; Ctrl+W closes this one.
        quit_app = QShortcut(QKeySequence("Ctrl+Q"), self)
        quit_app.activated.connect(lambda: detail.window().close())
        close = QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self)
        close.activated.connect(self.close)

    def show_history(self, history: TrackingHistory, change: DetailChange | None = None) -> None:
        identifiers = history.shipment.identifiers
        name = identifiers[0].value if identifiers else str(history.shipment.id)
        self.setWindowTitle(f"{name} — shipment map")
        self.map.show_history(history, change)

    def clear(self) -> None:
        self.setWindowTitle("Shipment map")
        self.map.clear()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        if self.settings is not None:
            self.settings.setValue(GEOMETRY_KEY, self.saveGeometry())
        # Its page goes with it: a closed window keeps no render process running.
        self.map.dispose()
        self.deleteLater()
        super().closeEvent(event)


class MapWindowOpener:
    """The Map tab's "Map in window" button (in the tab bar's corner while the Map tab is
    open) and the one window it opens, kept in step with the detail: its shipment, and the row
    chosen in its timeline (or on its map). `settings`, when given, keep the window's
    geometry between openings."""

    def __init__(self, detail: ShipmentDetailView) -> None:
        self._detail = detail
        self.window: MapWindow | None = None
        self.settings: QSettings | None = None
        self._key: str | None = None  # the row chosen: `stop:<id>`, `event:<id>`, ...
        self.button = QToolButton(detail.tabs)
        self.button.setObjectName("mapInWindow")
        self.button.setText("Map in window")
        self.button.setToolTip("Open this shipment's map in a window of its own")
        self.button.setAutoRaise(True)
        self.button.clicked.connect(self.open)
        detail.tabs.setCornerWidget(self.button, Qt.Corner.TopRightCorner)
        self.button.setVisible(False)
        detail.tabs.currentChanged.connect(self._tab_changed)

    def _tab_changed(self, _index: int) -> None:
        self.button.setVisible(self._detail.tabs.currentWidget() is self._detail.map_tab)

    def open(self) -> MapWindow:
        window = self.window
        place: QRect | None = None
        if window is None:
            window = MapWindow(self._detail)
            window.destroyed.connect(self._gone)
            window.map.itemClicked.connect(self._chosen_in_window)
            window.map.rendered.connect(self._drawn_in_window)
            place = self._place(window)
            self.window = window
        window.show()
        if place is not None:
            # The frame's size is known once shown: the frame, not the map, goes in place.
            extra = window.frameGeometry().size() - window.geometry().size()
            if not extra.isNull():
                window.resize(place.size() - extra)
                window.move(place.topLeft())  # a window's pos is its frame's
        window.raise_()
        window.activateWindow()
        return window

    def _place(self, window: MapWindow) -> QRect | None:
        """Put `window` where it was left, else in its first place, whose frame's rectangle
        is returned."""
        settings = self.settings
        window.settings = settings
        kept = settings.value(GEOMETRY_KEY) if settings is not None else None
        if isinstance(kept, QByteArray) and window.restoreGeometry(kept):
            return None  # where the dispatcher left it (Qt keeps it on a screen)
        main = self._detail.window()
        screen = main.screen()
        available = screen.availableGeometry() if screen is not None else main.frameGeometry()
        timeline = self._detail.timeline
        in_sight = None
        if timeline.isVisible():
            in_sight = QRect(timeline.mapToGlobal(QPoint(0, 0)), timeline.size())
        place = window_place(main.frameGeometry(), available, QSize(*WINDOW_SIZE), in_sight)
        window.setGeometry(place)
        return place

    def _gone(self) -> None:
        self.window = None

    def highlight(self, key: str | None) -> None:
        """The row chosen in the timeline (or on the Map tab's map), shown on the window's
        map too; kept for a window opened later."""
        self._key = key
        if self.window is not None:
            self.window.map.highlight(key)

    def _drawn_in_window(self, _token: int) -> None:
        # Once its shipment is drawn (and fitted, which closes a popup opened before), the
        # window shows the row chosen before it opened.
        window = self.window
        if window is None:
            return
        window.map.rendered.disconnect(self._drawn_in_window)
        if self._key is not None:
            window.map.highlight(self._key)

    def _chosen_in_window(self, key: str) -> None:
        # The timeline selects the row (MapWindow's own connection); the Map tab's map too.
        self._key = key
        if self._detail.map is not None:
            self._detail.map.highlight(key)

    def show_history(self, history: TrackingHistory, change: DetailChange | None) -> None:
        if self.window is not None:
            self.window.show_history(history, change)

    def clear(self) -> None:
        if self.window is not None:
            self.window.clear()

    def close(self) -> None:
        if self.window is not None:
            self.window.close()


class DetailMap(QWidget):
    """The detail's Map tab: the shipment's map (its web view made once, on first use or in an
    idle moment after the start) with the timeline, which moves there while the tab is open
    (mixed into `ShipmentDetailView`, which makes the tab)."""

    session: AppSession
    history: TrackingHistory | None
    tabs: QTabWidget
    timeline: QTreeWidget
    timeline_tab: QWidget
    map_tab: QWidget
    map_splitter: QSplitter
    map_room: MapRoom
    map: ShipmentMapView | None
    before_first_map: Callable[[], None] | None
    select_in_timeline: Callable[[str], None]
    map_window: MapWindowOpener

    def _tab_changed(self, index: int) -> None:
        page = self.tabs.widget(index)
        if page is self.map_tab:
            self.show_map()
        elif page is self.timeline_tab and self.timeline.parent() is not self.timeline_tab:
            layout = self.timeline_tab.layout()
            assert isinstance(layout, QBoxLayout)
            # Back above the export buttons: added last, it put them over the events.
            layout.insertWidget(0, self.timeline, 1)

    def prepare_map(self) -> ShipmentMapView:
        """The map's web view, made once and kept for every shipment. Its page loads while the
        Map tab is not shown: the app makes it in an idle moment after it starts (see
        `maps.warm`), so that the first shipment's map opens at once."""
        if self.map is None:
            if self.before_first_map is not None:
                prepare, self.before_first_map = self.before_first_map, None
                prepare()
            from freightdesk.ui.maps.shipment_map import ShipmentMapView

            view = ShipmentMapView(self.session, self.map_splitter)
            view.setObjectName("shipmentMap")
            view.itemClicked.connect(self.select_in_timeline)
            view.itemClicked.connect(self.map_window.highlight)  # the map's window follows
            self.map_splitter.insertWidget(0, view)
            if self.map is not None:
                # Bringing QtWebEngine up processes events; one of them made the map already.
                view.deleteLater()
                return self.map
            self.map = view
            if self.history is not None:
                view.show_history(self.history)
        return self.map

    def show_map(self) -> ShipmentMapView:
        """The map (made on first use) above the timeline, in the Map tab."""
        view = self.prepare_map()
        if self.timeline.parent() is not self.map_splitter:
            self.map_splitter.addWidget(self.timeline)
            self.map_splitter.setStretchFactor(0, 3)
            self.map_splitter.setStretchFactor(1, 2)
            self.map_splitter.setCollapsible(0, False)
            self.map_room.lay_out()  # beside the map in a wide, low tab; else under it
        if self.tabs.currentWidget() is not self.map_tab:
            self.tabs.setCurrentWidget(self.map_tab)
        return view
