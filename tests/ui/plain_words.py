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


# An id shown as one: alone on the line under its label or right after it, the label ending
# in " id" and beginning its line or following a name's colon ("Booking id" and its Copy link
# over the uuid in a booking detail's Ids, "Your company id: …", "Acme: client id …"). Wanted
# whole, for support or a partner. A sentence's "this id" is no label: "No company has this
# id: 735a…" leaks the uuid.
NAMED_ID = re.compile(
    r"(?:^|: )(?:(?:[a-z]+ ){0,2}([a-z]+) )?id(?: Copy)?(?::? |:?\n)(" + _UUID + ")",
    re.IGNORECASE | re.MULTILINE,
)
_NOT_A_LABEL = frozenset(
    {"a", "an", "any", "by", "for", "no", "of", "that", "the", "this", "to", "which", "with"}
)


def _named(found: re.Match[str]) -> str:
    before = (found.group(1) or "").lower()
    return found.group(0) if before in _NOT_A_LABEL else found.group(0).replace(found.group(2), "")


def leaks(root: QWidget) -> list[str]:
    """The texts shown in `root` with a code, a uuid (not one shown as an id under or after
    its label, `NAMED_ID`), an ISO time, a validator's words or a unit's code."""
    return [
        t
        for t in shown_text(root)
        if CODE.search(t) or OTHER.search(NAMED_ID.sub(_named, t)) or UNIT.search(t)
    ]
