"""The room a list and its detail share in a pane's splitter (the list first): the split the
user dragged, kept across starts under the pane's own setting, else the pane's default,
worked out again whenever the splitter's size changes."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtWidgets import QSplitter, QTableView


class ListSplit(QObject):
    """The split of `splitter`: the user's, once dragged (kept in `settings` under `key`),
    else what `default` sets, called once the splitter has its new size (`place`).

    A pane whose default turns the splitter (the detail below the list in a narrow window,
    beside it in a wide one) says by `beside` whether its default puts the detail beside
    the list (None: not laid out yet): the user's split holds within the orientation it was
    dragged in, and the default's applies while the default turns the other way (dragged in
    a narrow window, the detail goes beside the list again in a wide one, and the user's
    split comes back in a narrow one)."""

    def __init__(
        self,
        splitter: QSplitter,
        settings: QSettings,
        key: str,
        default: Callable[[], None],
        beside: Callable[[], bool | None] | None = None,
    ) -> None:
        super().__init__(splitter)
        self.splitter = splitter
        self.settings = settings
        self.key = key
        self._default = default
        self._beside = beside
        state = settings.value(key)
        # The user's split, with its orientation: what the splitter shows while `_showing`,
        # else kept to show again (from the last start, or while the default's turns).
        self._user = state if isinstance(state, QByteArray) else None
        self.chosen = self._user is not None
        self._showing = False
        if self._user is not None:
            splitter.restoreState(self._user)
        self._user_orientation = splitter.orientation()
        splitter.splitterMoved.connect(self._chose)
        # After the splitter has shared out a new size by its own rule (its sizes are the old
        # ones until then, and it would share the change out again after ours).
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.place)
        splitter.installEventFilter(self)
        if self._user is None:
            default()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        # Shown too: resized while hidden (another pane in front), a kept split waits.
        if watched is self.splitter and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.timer.start()
        return super().eventFilter(watched, event)

    def _chose(self, _position: int, _index: int) -> None:
        self.chosen = True
        self._showing = True  # what the user sees now is the user's
        self._user_orientation = self.splitter.orientation()

    def place(self) -> None:
        """The default split, unless the user chose one in the orientation the default
        would take. The user's split is restored once the splitter is shown at its real size:
        restored before, its sizes were shared out anew by the stretch factors when the
        splitter got that size."""
        if not self.chosen:
            self._default()
            return
        beside = self._beside() if self._beside is not None else None
        if beside is not None and turned(beside) != self._user_orientation:
            if self._showing:
                self._user = self.splitter.saveState()
                self._showing = False
            self._default()
        elif not self._showing and self._user is not None and self.splitter.isVisible():
            self._default()  # the stretch factors of the orientation
            self.splitter.restoreState(self._user)
            self._showing = True

    def save(self) -> None:
        # A split of the app's own is not kept: it follows the window's size.
        if self.chosen:
            state = self.splitter.saveState() if self._showing else self._user
            self.settings.setValue(self.key, state)

    def shutdown(self) -> None:
        self.timer.stop()
        self.save()


def turned(beside: bool) -> Qt.Orientation:
    """The splitter's orientation with the detail beside the list, or below it."""
    return Qt.Orientation.Horizontal if beside else Qt.Orientation.Vertical


def list_wanted(table: QTableView, columns: int) -> int:
    """The width of the list `table` showing `columns` px of its columns: its frame and the
    vertical scroll bar a longer page brings included."""
    return columns + 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width()


def share_beside(splitter: QSplitter, comfortable: int, wanted: int) -> None:
    """The list beside its detail in `splitter`: `comfortable` px, more up to `wanted` where
    the detail keeps its least width."""
    total = splitter.width() - splitter.handleWidth()
    detail = splitter.widget(1)
    if total <= 0 or detail is None:
        return
    spare = total - detail.minimumSizeHint().width()
    list_width = max(comfortable, min(wanted, spare))
    if splitter.sizes() != [list_width, total - list_width]:
        splitter.setSizes([list_width, total - list_width])
