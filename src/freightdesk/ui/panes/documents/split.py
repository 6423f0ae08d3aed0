"""How the Documents pane shares its width between the list and the selected document."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QSplitter, QTableView

from freightdesk.ui.widgets.item_table import ColumnFit
from freightdesk.ui.widgets.list_split import ListSplit, list_wanted, share_beside

SETTING = "documents/splitter"
# The columns a dispatcher reads in every row, Name to Added: whole beside the preview.
KEY_COLUMNS = 5
# The list's share of the pane where its key columns need no more (the preview has the rest).
LIST_SHARE = 0.6


def documents_split(
    splitter: QSplitter, table: QTableView, fit: ColumnFit, settings: QSettings
) -> ListSplit:
    """The list's share of `splitter`: the user's, once moved, else `LIST_SHARE`, more where
    its key columns need it to read whole (at 1366 and 1440 px: a container's number and a
    booking's, an LTL bill of lading's and its order's), the preview keeping its least
    width; worked out again when a page's rows are in (their texts' widths)."""

    def default() -> None:
        total = splitter.width() - splitter.handleWidth()
        wanted = list_wanted(table, fit.wanted_width(KEY_COLUMNS))
        share_beside(splitter, round(total * LIST_SHARE), wanted)

    split = ListSplit(splitter, settings, SETTING, default)
    table.model().modelReset.connect(split.timer.start)
    return split
