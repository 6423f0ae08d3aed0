"""Showing a service-layer list (`ListService`) in a pane.

`ListBinding` loads the cached list at once, listens to the list's coordinator only while
the pane is visible (so nothing polls for a pane nobody looks at), and turns changes and
fetch failures into signals; it binds any source with a coordinator and a cache (`Polled`):
a `ListService`, or the rate requests the app follows. `ListingModel` is the thin table
model over the items.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QAbstractItemView, QWidget

from freightdesk.service.coordinator import Coordinator, CoordinatorStatus
from freightdesk.service.listing import ListChange
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.export import EXPORT_ROLE

T = TypeVar("T")
Index = QModelIndex | QPersistentModelIndex


class Polled(Protocol):
    """A source of data a pane shows: polled by its coordinator, kept in the profile's cache."""

    @property
    def coordinator(self) -> Coordinator[Any, Any]: ...

    async def load_cached(self) -> object: ...


S = TypeVar("S", bound=Polled)


class ListBinding(QObject, Generic[S]):
    changed = Signal(object)  # the coordinator's change (ListChange for a ListService)
    statusChanged = Signal(str)  # "" when fine, else why the list may be out of date

    def __init__(
        self,
        pane: QWidget,
        session: AppSession,
        service_of: Callable[[AppSession], S | None],
    ) -> None:
        super().__init__(pane)
        self.pane = pane
        self.session = session
        self._service_of = service_of
        self._service: S | None = None
        self._unlisten: list[Callable[[], None]] = []
        self._listening = False
        self._seen: object = None  # the data when the pane stopped listening
        pane.installEventFilter(self)
        self._unconnected = session.listen_connected(self._connected)
        self.attach()

    @property
    def service(self) -> S | None:
        return self._service

    @property
    def data(self) -> Any:
        """The coordinator's data (a `Listing` for a `ListService`); None before any."""
        return self._service.coordinator.data if self._service else None

    def attach(self) -> None:
        """Show the cached list at once, before (or without) any network."""
        self.session.open_cache(self.session.profiles.active)
        service = self._service_of(self.session)
        if service is None or service is self._service:
            return
        self.stop()
        self._service = service

        def loaded(_result: object) -> None:
            if self._service is service and service.coordinator.data is not None:
                self.changed.emit(ListChange(full=True))

        spawn(service.load_cached(), on_done=loaded, name=f"load-cached-{service.coordinator.name}")

    def _connected(self) -> None:
        self.attach()
        if self.pane.isVisible():
            self.start()

    def start(self) -> None:
        service = self._service
        if service is None or self._listening or self.session.client is None:
            return
        self._listening = True
        self._unlisten = [
            service.coordinator.listen(self.changed.emit),
            service.coordinator.listen_status(self._status),
        ]
        if service.coordinator.data is not None and service.coordinator.data is not self._seen:
            # Written while the pane was hidden (a booking made from a quote, a location
            # saved from another pane): in the data, not yet on screen.
            self.changed.emit(ListChange(full=True))

    def stop(self) -> None:
        for unlisten in self._unlisten:
            unlisten()
        self._unlisten = []
        if self._listening and self._service is not None:
            self._seen = self._service.coordinator.data
        self._listening = False

    def refresh(self) -> None:
        service = self._service
        if service is not None and self.session.client is not None:
            spawn(service.coordinator.refresh(), name=f"refresh-{service.coordinator.name}")

    def _status(self, status: CoordinatorStatus) -> None:
        if status.fetching:
            return
        if status.last_error is None:
            self.statusChanged.emit("")
            return
        age = ""
        if status.last_success is not None:
            minutes = int((time.time() - status.last_success) // 60)
            age = " (last updated just now)" if minutes < 1 else f" (from {minutes} min ago)"
        self.statusChanged.emit(f"Showing the last known list{age}: {explain(status.last_error)}")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.pane:
            if event.type() == QEvent.Type.Show:
                self.start()
            elif event.type() == QEvent.Type.Hide:
                self.stop()
        return False

    def shutdown(self) -> None:
        self.stop()
        self._unconnected()


@dataclass(frozen=True)
class Column(Generic[T]):
    title: str
    text: Callable[[T], str]
    width: int = 120  # in a table that fits its columns: the least width
    tooltip: Callable[[T], str] | None = None
    # In a table that fits its columns: the most it takes for its text (a longer one elided).
    most: int = 400
    header_tip: str | None = None  # what the column holds, told over its header
    # The value exported where it is not the text: a time (written as ISO 8601 with offset).
    value: Callable[[T], object] | None = None


class ListingModel(QAbstractTableModel, Generic[T]):
    """Rows of items with columns of text; reset as a whole (lists here are a page)."""

    def __init__(self, columns: Sequence[Column[T]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = list(columns)
        self.items: list[T] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.items):
            return None
        item = self.items[index.row()]
        column = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(item)
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip is not None:
            return column.tooltip(item)
        if role == EXPORT_ROLE and column.value is not None:
            return column.value(item)
        return None

    def headerData(  # noqa: N802 (Qt's name)
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.columns)
        ):
            return self.columns[section].title
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.ToolTipRole
            and 0 <= section < len(self.columns)
        ):
            return self.columns[section].header_tip
        return None

    def set_items(self, items: Sequence[T]) -> None:
        self.beginResetModel()
        self.items = list(items)
        self.endResetModel()

    def item_at(self, row: int) -> T | None:
        return self.items[row] if 0 <= row < len(self.items) else None


def current_row(view: QAbstractItemView) -> int:
    index = view.currentIndex()
    return index.row() if index.isValid() else -1
