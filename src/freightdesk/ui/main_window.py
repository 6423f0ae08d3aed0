"""The main window: navigation between panes, menus and shortcuts, the status bar.

The window is made before the session, so the cached list can be painted before the
session's modules are imported, and is attached to it right after (`attach`). A pane is
added as a widget or as a factory. A factory's pane is made the first time it is shown (or
asked for with `pane()`), once the window is attached, so the window opens without importing
or building panes nobody looks at; `warm=True` makes it instead in the first idle moments
after the window shows (`warm_up()`), for a pane that does work in the background whichever
pane is shown.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QFont,
    QFontMetrics,
    QIcon,
    QKeySequence,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QStyle,
    QWidget,
)

from freightdesk.service.connection import ConnectionStatus
from freightdesk.service.paths import AppPaths
from freightdesk.ui.bridge import SessionBridge
from freightdesk.ui.icons import app_icon
from freightdesk.ui.maps.warm import prepare_window
from freightdesk.ui.theme import ThemeChoice, apply_theme
from freightdesk.ui.widgets.status import ConnectionIndicator
from freightdesk.ui.zone_menu import zone_actions

if TYPE_CHECKING:
    from freightdesk.service.session import AppSession
    from freightdesk.ui.dialogs.client_applications import ClientApplicationsDialog
    from freightdesk.ui.dialogs.connections import ConnectionsDialog
    from freightdesk.ui.dialogs.log_file import LogFileDialog

log = logging.getLogger(__name__)

PaneFactory = Callable[[], QWidget]

# Below this available width the first window fills the screen; above it, 1440x900 at most.
SMALL_SCREEN_WIDTH = 1600


@dataclass
class PaneEntry:
    key: str
    title: str
    item: QListWidgetItem
    slot: QWidget  # what the stack holds: the pane, or a placeholder until it is made
    widget: QWidget | None = None
    factory: PaneFactory | None = None
    warm: bool = False


class MainWindow(QMainWindow):
    """Panes are added with `add_pane`; a pane may offer `focus_search()`, `refresh()`,
    `new_item()`, `export_view()` and `shutdown()`, which the window's menus call."""

    closing = Signal()
    profileSwitchRequested = Signal(str)

    def __init__(self, session: AppSession | None, settings: QSettings, paths: AppPaths) -> None:
        super().__init__()
        # First: opening maximized on a laptop's screen (`_restore_geometry`) makes the native
        # window, which must be made with the surface a map needs (no new window later).
        prepare_window(self)
        self._session: AppSession | None = None
        self.bridge: SessionBridge | None = None
        self.settings = settings
        self.paths = paths
        self.setWindowTitle("FreightDesk")
        self.setWindowIcon(app_icon())  # and so the tray's and the dialogs'
        self.setMinimumSize(QSize(760, 480))
        self._panes: list[PaneEntry] = []
        self._last_group: str | None = None
        self._closed = False
        self._asked_to_close = False  # set by close_without_asking (SIGTERM: nobody to ask)
        self.exception_alerts: object | None = None

        self.nav = QListWidget(self)
        self.nav.setObjectName("navigation")
        self.nav.setIconSize(QSize(20, 20))
        self.nav.setMaximumWidth(220)
        self.nav.setMinimumWidth(150)
        self.stack = QStackedWidget(self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.nav)
        self.splitter.addWidget(self.stack)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(1, False)
        self.setCentralWidget(self.splitter)
        self.nav.currentRowChanged.connect(self._show_row)

        # What the Local sandbox's first run is doing ("Preparing demo data: 120 of 302
        # shipments loaded"), beside the connection's state; hidden otherwise.
        self.demo_progress = QLabel(self)
        self.demo_progress.setObjectName("demoProgress")
        self.demo_progress.setVisible(False)
        self.statusBar().addPermanentWidget(self.demo_progress)
        self.indicator = ConnectionIndicator(self)
        self.statusBar().addPermanentWidget(self.indicator)

        self._build_menus()
        self._restore_geometry()
        if session is not None:
            self.attach(session)

    @property
    def session(self) -> AppSession:
        if self._session is None:
            raise RuntimeError("the window is not attached to a session yet")
        return self._session

    def is_attached(self) -> bool:
        return self._session is not None

    def is_closed(self) -> bool:
        return self._closed

    def attach(self, session: AppSession) -> None:
        """Follow `session`: its status in the status bar; panes can be made from now on
        (the one shown meanwhile is made now)."""
        self._session = session
        self.bridge = SessionBridge(session, self)
        self.bridge.statusChanged.connect(self._on_status)
        self.indicator.show_status(session.status)
        session.demo.listen(self._show_demo_progress)
        self._show_demo_progress(session.demo.message)
        entry = self._entry_at(self.nav.currentRow())
        if entry is not None and entry.widget is None:
            self._show_row(self.nav.currentRow())

    # --- panes -----------------------------------------------------------------------------

    def add_pane(
        self,
        key: str,
        title: str,
        widget: QWidget | PaneFactory,
        icon: QStyle.StandardPixmap | QIcon,
        *,
        warm: bool = False,
        group: str | None = None,
    ) -> None:
        """Add a pane (a widget, or a factory that makes it when first needed). Adding a
        widget under the key of a pane whose factory has not run yet supplies that pane (a
        factory may make several related panes at once). A pane of another `group` than the
        one before it starts that group under a heading in the navigation."""
        existing = self._entry(key)
        if existing is not None:
            if existing.widget is not None or not isinstance(widget, QWidget):
                raise ValueError(f"the window has a pane {key!r} already")
            existing.factory = None
            self._install(existing, widget)
            return
        qicon = icon if isinstance(icon, QIcon) else self.style().standardIcon(icon)
        item = QListWidgetItem(qicon, title)
        item.setData(Qt.ItemDataRole.UserRole, key)
        if isinstance(widget, QWidget):
            entry = PaneEntry(key, title, item, slot=widget, widget=widget)
        else:
            placeholder = EmptyPane(f"Opening {title}…", self.stack)
            entry = PaneEntry(key, title, item, slot=placeholder, factory=widget, warm=warm)
        if group is not None and group != self._last_group:
            self.nav.addItem(_group_heading(group, self.nav))
        self._last_group = group
        self._panes.append(entry)
        self.stack.addWidget(entry.slot)
        self.nav.addItem(item)
        index = len(self._panes)
        if index <= 9:
            action = QAction(f"&{index} {title}", self)
            action.setShortcut(QKeySequence(f"Ctrl+{index}"))
            action.triggered.connect(lambda _checked=False, k=key: self.show_pane(k))
            self.view_menu.insertAction(self._view_separator, action)
            self.addAction(action)
        if self.nav.currentItem() is None:
            self.nav.setCurrentItem(item)

    def _entry(self, key: str) -> PaneEntry | None:
        return next((p for p in self._panes if p.key == key), None)

    def _entry_at(self, row: int) -> PaneEntry | None:
        """The pane of a row of the navigation (None for a group's heading)."""
        item = self.nav.item(row)
        key = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return self._entry(key) if isinstance(key, str) else None

    def pane(self, key: str) -> QWidget:
        """The pane of `key`, made now if it was not yet."""
        entry = self._entry(key)
        if entry is None:
            raise KeyError(key)
        return self._made(entry)

    def is_made(self, key: str) -> bool:
        entry = self._entry(key)
        return entry is not None and entry.widget is not None

    def _made(self, entry: PaneEntry) -> QWidget:
        if entry.widget is None:
            factory = entry.factory
            assert factory is not None
            entry.factory = None  # a factory asking for its own pane fails instead of looping
            try:
                # A pane made after the session connected is told of that connection as if
                # it had been there (panes start following their data when told).
                widget = self.session.catching_up(factory)
            except BaseException:
                entry.factory = factory
                raise
            if entry.widget is None:  # the factory may have supplied it through add_pane
                self._install(entry, widget)
        assert entry.widget is not None
        return entry.widget

    def _install(self, entry: PaneEntry, widget: QWidget) -> None:
        placeholder = entry.slot
        index = self.stack.indexOf(placeholder)
        current = self.stack.currentIndex()
        entry.widget = entry.slot = widget
        self.stack.insertWidget(index, widget)
        self.stack.removeWidget(placeholder)
        placeholder.deleteLater()
        self.stack.setCurrentIndex(current)

    def _show_row(self, row: int) -> None:
        entry = self._entry_at(row)
        if entry is None:
            return
        index = self._panes.index(entry)  # the stack holds the panes in their order
        if entry.widget is None and self._session is None:
            self.stack.setCurrentIndex(index)  # its placeholder; made once attached
            return
        if entry.widget is None and self.isVisible():
            # Show the placeholder before the pane is made (a map takes a moment).
            self.stack.setCurrentIndex(index)
            self.repaint()
        try:
            self._made(entry)
        except Exception as exc:
            log.exception("the %s pane could not be made", entry.key)
            if isinstance(entry.slot, QLabel):
                entry.slot.setText(f"{entry.title} could not be opened: {exc}")
        self.stack.setCurrentIndex(index)

    def warm_up(self, done: Callable[[], None] | None = None) -> None:
        """Make the panes added with `warm=True`, one per turn of the event loop, so the
        window stays responsive meanwhile; then call `done`."""
        waiting = deque(p for p in self._panes if p.warm and p.widget is None)

        def next_one() -> None:
            while waiting and waiting[0].widget is not None:
                waiting.popleft()
            if self._closed:
                return
            if waiting:
                self._made(waiting.popleft())
                QTimer.singleShot(0, next_one)
            elif done is not None:
                done()

        QTimer.singleShot(0, next_one)

    def show_pane(self, key: str) -> None:
        entry = self._entry(key)
        if entry is not None:
            self.nav.setCurrentItem(entry.item)

    def current_pane(self) -> QWidget | None:
        entry = self._entry_at(self.nav.currentRow())
        return entry.widget if entry is not None else None

    def set_badge(self, key: str, count: int) -> None:
        """A count after the pane's name (for example new exceptions)."""
        for entry in self._panes:
            if entry.key == key:
                entry.item.setText(f"{entry.title}  ({count})" if count else entry.title)

    def _call_pane(self, method: str) -> None:
        pane = self.current_pane()
        handler = getattr(pane, method, None)
        if callable(handler):
            handler()
        else:
            self.statusBar().showMessage("Not available in this pane", 3000)

    # --- menus -----------------------------------------------------------------------------

    def _action(
        self,
        text: str,
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None,
        slot: Callable[[], object],
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            # Shortcuts must work with the menu closed, whichever pane has the focus.
            self.addAction(action)
        action.triggered.connect(slot)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self._action("&Connections…", "Ctrl+Shift+K", self.open_connections))
        file_menu.addAction(
            self._action("Client &applications…", "Ctrl+Shift+A", self.open_client_applications)
        )
        self.export_action = self._action(
            "&Export view…", "Ctrl+E", lambda: self._call_pane("export_view")
        )
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        quit_action = self._action("&Quit", "Ctrl+Q", self.close)
        file_menu.addAction(quit_action)

        edit_menu = bar.addMenu("&Edit")
        edit_menu.addAction(
            self._action(
                "&Find…", QKeySequence.StandardKey.Find, lambda: self._call_pane("focus_search")
            )
        )
        edit_menu.addAction(
            self._action("&New…", QKeySequence.StandardKey.New, lambda: self._call_pane("new_item"))
        )

        self.view_menu = bar.addMenu("&View")
        self._view_separator = self.view_menu.addSeparator()
        self.view_menu.addAction(
            self._action(
                "&Refresh", QKeySequence.StandardKey.Refresh, lambda: self._call_pane("refresh")
            )
        )
        theme_menu = self.view_menu.addMenu("&Theme")
        current = ThemeChoice(str(self.settings.value("theme", ThemeChoice.SYSTEM.value)))
        for choice, label in (
            (ThemeChoice.SYSTEM, "Follow the &system"),
            (ThemeChoice.LIGHT, "&Light"),
            (ThemeChoice.DARK, "&Dark"),
        ):
            action = QAction(label, self, checkable=True)
            action.setChecked(choice is current)
            action.setData(choice.value)
            action.triggered.connect(lambda _checked=False, c=choice: self.set_theme(c))
            theme_menu.addAction(action)
        self._theme_actions = theme_menu.actions()
        # Where times without a place read (the one clock, service/clock.py).
        zone_menu = self.view_menu.addMenu("Times &without a place")
        zone_menu.addActions(zone_actions(self.settings, self, self._times_changed))

        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("Open &log file", None, self.open_log))
        # Checked and followed by the app once it runs (ui/watchdog.py's WatchdogSwitch).
        self.watchdog_action = QAction("Log when the window &hangs", self, checkable=True)
        self.watchdog_action.setEnabled(False)
        help_menu.addAction(self.watchdog_action)
        help_menu.addAction(self._action("&About FreightDesk", None, self.about))

    def _times_changed(self) -> None:
        """The user's zone changed: tables redraw now (their text is made as they paint); an
        open pane rewrites its other texts (`times_changed()`, else it refreshes)."""
        for view in self.findChildren(QAbstractItemView):
            view.viewport().update()
        # Imported here: the time fields' module is not needed before the list's first paint.
        from freightdesk.ui.widgets.time_edit import follow_user_zone

        follow_user_zone()
        for entry in self._panes:
            pane = entry.widget
            handler = getattr(pane, "times_changed", None) or getattr(pane, "refresh", None)
            if pane is not None and callable(handler):
                handler()

    def set_theme(self, choice: ThemeChoice) -> None:
        self.settings.setValue("theme", choice.value)
        for action in self._theme_actions:
            action.setChecked(action.data() == choice.value)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, choice)

    def open_connections(self) -> ConnectionsDialog:
        from freightdesk.ui.dialogs.connections import ConnectionsDialog

        dialog = ConnectionsDialog(self.session.profiles, self)
        dialog.profileActivated.connect(self.profileSwitchRequested)
        dialog.open()
        return dialog

    def open_client_applications(self) -> ClientApplicationsDialog | None:
        """The tenant's client applications (needs a connection: they live in the service)."""
        from freightdesk.service.client_applications import ClientApplications
        from freightdesk.ui.dialogs.client_applications import ClientApplicationsDialog

        service = ClientApplications.of_session(self.session)
        if service is None:
            self.statusBar().showMessage("Client applications: not connected yet", 5000)
            return None
        dialog = ClientApplicationsDialog(service, self)
        dialog.open()
        return dialog

    def open_log(self) -> LogFileDialog | None:
        """Open the log file in the desktop's viewer; when there is none, show where the
        file is (the dialog, returned)."""
        path = self.paths.log_file
        if not path.exists():
            self.statusBar().showMessage(f"No log file yet at {path}", 5000)
            return None
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            return None
        from freightdesk.ui.dialogs.log_file import LogFileDialog

        dialog = LogFileDialog(path, self)
        dialog.open()
        return dialog

    def about(self) -> None:
        from freightdesk.ui.dialogs.about import show_about

        show_about(self, str(self.paths.log_file), self.session)

    # --- status ----------------------------------------------------------------------------

    def _on_status(self, status: ConnectionStatus) -> None:
        self.indicator.show_status(status)
        if self._session is not None and self._session.demo.preparation is not None:
            self._show_demo_progress(None)  # a fetch ended: the list may hold more of it

    def _show_demo_progress(self, _message: str | None) -> None:
        """The demo's preparation as the list has it: the shipments in the list of those
        being written, the count the list shows too (the service's own count runs ahead of
        the list's last fetch), and the activity bar filling with them until it is over."""
        preparation = self.session.demo.preparation
        if preparation is None:
            self.demo_progress.setVisible(False)
            self.indicator.end_progress()
            return
        total = preparation.total
        shipments = self.session.shipments
        data = shipments.coordinator.data if shipments is not None else None
        loaded = min(len(data.summaries) if data is not None else 0, total)
        text = "Preparing demo data"
        if total:
            text += f": {loaded:,} of {total:,} shipments loaded"
        elif data is not None and data.summaries:  # not counted yet
            text += f": {len(data.summaries):,} shipments loaded"
        self.demo_progress.setText(text)
        self.demo_progress.setVisible(True)
        self.indicator.show_progress(loaded, total)

    def show_error(self, message: str) -> None:
        self.statusBar().showMessage(message, 15000)

    # --- geometry and closing --------------------------------------------------------------

    def _restore_geometry(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            screen = self.screen().availableGeometry()
            if screen.width() < SMALL_SCREEN_WIDTH:
                # A laptop screen: the list's key columns and the detail need all of it.
                self.setGeometry(screen)
                self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)
            else:
                self.resize(
                    min(1440, screen.width() * 9 // 10), min(900, screen.height() * 9 // 10)
                )
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        splitter = self.settings.value("window/splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)
        else:
            self.splitter.setSizes([180, 1100])

    def restore_pane(self) -> None:
        key = self.settings.value("window/pane")
        if isinstance(key, str):
            self.show_pane(key)

    def unsaved_edits(self) -> list[str]:
        """What the user typed into the panes' own forms and has not saved (a pane says so
        with `unsaved_changes()`; forms in dialogs ask for themselves)."""
        found: list[str] = []
        for entry in self._panes:
            ask = getattr(entry.widget, "unsaved_changes", None)
            what = ask() if callable(ask) else None
            if isinstance(what, str) and what:
                found.append(f"{entry.title}: {what}")
        return found

    def close_without_asking(self) -> None:
        self._asked_to_close = True
        self.close()

    def _may_close(self) -> bool:
        edits = self.unsaved_edits()
        if not edits or self._asked_to_close:
            return True
        box = QMessageBox(QMessageBox.Icon.Question, "Quit FreightDesk?", "", parent=self)
        box.setObjectName("unsavedEdits")
        box.setText("Some of what you typed is not saved:\n\n" + "\n".join(edits))
        quit_button = box.addButton("&Discard and quit", QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton("&Keep editing", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.exec()
        return box.clickedButton() is quit_button

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        if self._closed:
            event.accept()
            return
        if not self._may_close():
            event.ignore()
            return
        self._closed = True
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("window/splitter", self.splitter.saveState())
        shown = self._entry_at(self.nav.currentRow())
        if shown is not None:
            self.settings.setValue("window/pane", shown.key)
        # Gone from the screen at once; what follows (the panes' shutdown, the service's stop)
        # is the app's business, not the user's.
        self.hide()
        self.indicator.stop()
        for entry in self._panes:  # the panes that were made
            shutdown = getattr(entry.widget, "shutdown", None)
            if callable(shutdown):
                shutdown()
        if self.bridge is not None:
            self.bridge.detach()
        event.accept()
        self.closing.emit()

    def switch_profile(self, profile_id: str) -> None:
        from freightdesk.ui.tasks import spawn  # asyncio, imported after the first paint

        spawn(self.session.switch(profile_id), on_error=lambda e: self.show_error(str(e)))


class EmptyPane(QLabel):
    """Shown while a pane's data is loading for the first time."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)


def _group_heading(title: str, nav: QListWidget) -> QListWidgetItem:
    """A heading over a group of panes: not a pane, so neither selectable nor focusable (the
    arrow keys pass over it)."""
    item = QListWidgetItem(title.upper())
    item.setFlags(Qt.ItemFlag.NoItemFlags)
    font = QFont(nav.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 0.85)
    item.setFont(font)
    # The placeholder colour reads as a caption in light and dark themes alike, where a
    # disabled item's grey can vanish.
    item.setForeground(nav.palette().brush(QPalette.ColorRole.PlaceholderText))
    item.setSizeHint(QSize(0, QFontMetrics(font).height() + 14))
    item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
    return item
