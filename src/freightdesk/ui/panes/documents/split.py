"""How the Documents pane shares its width between the list and the selected document."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtWidgets import QSplitter, QTableView

from freightdesk.ui.widgets.item_table import ColumnFit

SETTING = "documents/splitter"
# The columns a dispatcher reads in every row, Name to Added: whole beside the preview.
KEY_COLUMNS = 5
# The list's share of the pane where its key columns need no more (the preview has the rest).
LIST_SHARE = 0.6


class ListSplit(QObject):
    """The list's share of `splitter`: the user's, once moved (kept in `settings` at the
    end), else `LIST_SHARE`, widened for the key columns whenever the width or a page's rows
    change."""

    def __init__(
        self, splitter: QSplitter, table: QTableView, fit: ColumnFit, settings: QSettings
    ) -> None:
        super().__init__(splitter)
        self.splitter = splitter
        self.table = table
        self.fit = fit
        self.settings = settings
        state = settings.value(SETTING)
        self.chosen = state is not None
        if state is not None:
            splitter.restoreState(state)
        else:
            splitter.setSizes([720, 480])
        splitter.splitterMoved.connect(self._chose)
        # Once the splitter has shared out a new width by its own rule, and once a page's
        # rows are in (their texts' widths).
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.default_split)
        splitter.installEventFilter(self)
        model = table.model()
        model.modelReset.connect(self.timer.start)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.splitter and event.type() == QEvent.Type.Resize:
            self.timer.start()
        return super().eventFilter(watched, event)

    def _chose(self, _position: int, _index: int) -> None:
        self.chosen = True

    def default_split(self) -> None:
        """The list's share of the pane, unless the user chose one: `LIST_SHARE`, more where
        its key columns need it to read whole (at 1366 and 1440 px: a container's number
        and a booking's, an LTL bill of lading's and its order's), the preview keeping its
        least width."""
        if self.chosen:
            return
        total = self.splitter.width() - self.splitter.handleWidth()
        preview = self.splitter.widget(1)
        if total <= 0 or preview is None:
            return
        wanted = self.fit.wanted_width(KEY_COLUMNS) + 2 * self.table.frameWidth()
        wanted += self.table.verticalScrollBar().sizeHint().width()  # a page is longer
        spare = total - preview.minimumSizeHint().width()
        list_width = max(round(total * LIST_SHARE), min(wanted, spare))
        if self.splitter.sizes() != [list_width, total - list_width]:
            self.splitter.setSizes([list_width, total - list_width])

    def shutdown(self) -> None:
        self.timer.stop()
        if self.chosen:  # the app's own split follows the window's size
            self.settings.setValue(SETTING, self.splitter.saveState())
