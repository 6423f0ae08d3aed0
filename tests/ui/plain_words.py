"""What a dispatcher reads in a pane (no tests here): the text of its visible labels, buttons,
boxes, fields, placeholders, choices, tables and rich texts (a QTextBrowser's), and in it what
only a programmer would say: SCREAMING_CASE codes, uuids, ISO times, the validators' own words,
units' codes ("300 LB")."""

from __future__ import annotations

import re

from PySide6.QtCore import QAbstractItemModel, QAbstractListModel, QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)

CODE = re.compile(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b")  # PURCHASE_ORDER
_UUID = r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
OTHER = re.compile(
    _UUID + r"|\buuid\b"
    r"|\d{4}-\d\d-\d\dT\d\d:\d\d"  # 2026-11-29T20:24
    r"|Input should be|must not be blank|String should have",
    re.IGNORECASE,
)
# A unit's code after its number, as the wire has it: "300 LB", "64 IN" ("300 lb" reads).
UNIT = re.compile(r"\d\s*(?:LBS?|KG|IN|CM|FT|MI|KM)\b")


def _model_text(model: QAbstractItemModel) -> list[str]:
    # A list model's columnCount is private in PySide6: it has the one column.
    columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount(QModelIndex())
    found = [str(model.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(columns)]
    for row in range(min(model.rowCount(QModelIndex()), 50)):
        for column in range(columns):
            found.append(str(model.index(row, column).data() or ""))
    return found


def shown_text(root: QWidget) -> list[str]:
    """Every text `root` shows now (hidden widgets left out)."""
    found: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisibleTo(root) and widget is not root:
            continue
        if isinstance(widget, QLabel | QAbstractButton):
            found.append(widget.text())
        elif isinstance(widget, QGroupBox):
            found.append(widget.title())
        elif isinstance(widget, QLineEdit):
            found += [widget.text(), widget.placeholderText()]
        elif isinstance(widget, QPlainTextEdit | QTextEdit):  # a QTextBrowser too
            found += [widget.toPlainText(), widget.placeholderText()]
        elif isinstance(widget, QComboBox):
            found += [widget.itemText(i) for i in range(widget.count())]
        elif isinstance(widget, QTabWidget):
            found += [widget.tabText(i) for i in range(widget.count())]
        elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
            found += _model_text(widget.model())
    return [t for t in found if t]


# An id shown as one, on the line under its name or after it ("Booking id", its Copy link):
# wanted whole, for support or a partner (a booking detail's Ids).
NAMED_ID = re.compile(r"\bid(?: Copy)?[:\s]+" + _UUID, re.IGNORECASE)


def leaks(root: QWidget) -> list[str]:
    """The texts shown in `root` with a code, a uuid (not one shown as an id under its
    name), an ISO time, a validator's words or a unit's code."""
    return [
        t
        for t in shown_text(root)
        if CODE.search(t) or OTHER.search(NAMED_ID.sub("id", t)) or UNIT.search(t)
    ]
