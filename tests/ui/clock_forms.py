"""What the one clock's texts look like (service/clock.py), for the panes' tests: a pane that
formats a time itself (`2026-03-04 14:05`, `03-04 14:05`, no zone) fails these."""

from __future__ import annotations

import re

from PySide6.QtCore import QAbstractItemModel, Qt

DAY = r"[A-Z][a-z]{2} \d{1,2}( \d{4})?"
ZONE = r"(?:[A-Z]{2,5}|UTC[+-]\d\d(?::\d\d)?)"


def clock_text(text: str, zone: str | None = None, *, seconds: bool = False) -> bool:
    """Whether `text` is one time as the clock writes it, in `zone` when named."""
    clock = r"\d\d:\d\d:\d\d" if seconds else r"\d\d:\d\d"
    return re.fullmatch(rf"{DAY} {clock} {re.escape(zone) if zone else ZONE}", text) is not None


def holds_clock_text(text: str, zone: str | None = None) -> bool:
    """Whether `text` holds a time as the clock writes it (in a sentence, a tooltip)."""
    named = re.escape(zone) if zone else ZONE
    return re.search(rf"{DAY} \d\d:\d\d {named}\b", text) is not None


def cell(model: QAbstractItemModel, row: int, title: str) -> str:
    """The text shown in the column titled `title` of `row`."""
    for column in range(model.columnCount()):
        header = model.headerData(column, Qt.Orientation.Horizontal)
        if str(header).replace("\n", " ") == title:  # a header on two lines by its words
            return str(model.data(model.index(row, column)) or "")
    raise AssertionError(f"no column {title!r}")
