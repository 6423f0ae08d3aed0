"""Choosing a table's row from the code (a page shown, a search done, an item opened)."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QAbstractItemView


def select_only(view: QAbstractItemView, row: int, *, scroll: bool = True) -> None:
    """Make `row` the current row and the only one selected.

    Not `selectRow` or `setCurrentIndex`: they read the keys held down at that moment, so a
    page arriving while the user holds Ctrl (Ctrl+R, Ctrl+F) would toggle the row instead,
    and with Shift extend the selection."""
    model = view.model()
    selection = view.selectionModel()
    if model is None or selection is None or not 0 <= row < model.rowCount():
        return
    index = model.index(row, 0)
    selection.setCurrentIndex(
        index,
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    if scroll:
        view.scrollTo(index)
