"""Paging through a list: where a page starts in a list's params, and the row under the
table that says which items are shown ("1-25 of 31 packages") with Previous and Next.

Areas name a page in two ways: by number (`pageNumber`, from 1) or by the index of its first
item (`offset`). Panes speak of page numbers only; `Paging` turns them into the area's params.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from freightdesk.service.listing import Listing, Params

DASH = "\u2013"


@dataclass(frozen=True)
class Paging:
    size: int
    by_offset: bool = False  # the params name a page by its first item's index

    @property
    def keys(self) -> tuple[str, str]:
        return ("offset" if self.by_offset else "pageNumber", "pageSize")

    def params(self, page: int) -> Params:
        """The params of page `page` (from 1)."""
        page = max(1, page)
        if self.by_offset:
            return {"offset": (page - 1) * self.size, "pageSize": self.size}
        return {"pageNumber": page, "pageSize": self.size}

    def position(self, params: Params) -> tuple[int, int]:
        """The index of the page's first item, and the page's size."""
        size = int(params.get("pageSize", self.size))
        if self.by_offset:
            return int(params.get("offset", 0)), size
        return (int(params.get("pageNumber", 1)) - 1) * size, size

    def page(self, params: Params) -> int:
        first, size = self.position(params)
        return first // max(1, size) + 1

    def searched(self, params: Params) -> bool:
        """Whether `params` ask for some items only (a criterion besides the page is set)."""
        return any(value for key, value in params.items() if key not in self.keys)


class PageBar(QWidget):
    stepped = Signal(int)  # -1: the previous page is wanted, +1: the next one

    def __init__(self, paging: Paging, noun: str, parent: QWidget | None = None) -> None:
        """`noun`: what the list holds, in the plural ("stop locations")."""
        super().__init__(parent)
        self.paging = paging
        self.noun = noun
        self.label = QLabel(self)
        self.label.setObjectName("pageLabel")
        self.previous_button = QPushButton("◀ &Previous", self)
        self.next_button = QPushButton("Ne&xt ▶", self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addStretch(1)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        self.previous_button.clicked.connect(lambda: self.stepped.emit(-1))
        self.next_button.clicked.connect(lambda: self.stepped.emit(1))
        self.previous_button.setEnabled(False)
        self.next_button.setEnabled(False)

    def show_listing(self, listing: Listing[Any]) -> None:
        params = listing.params_dict()
        first, size = self.paging.position(params)
        if listing.total == 0:
            match = "match" if self.paging.searched(params) else "yet"
            self.label.setText(f"No {self.noun} {match}")
        else:
            last = min(first + len(listing.items), listing.total)
            self.label.setText(f"{first + 1}{DASH}{last} of {listing.total:,} {self.noun}")
        self.previous_button.setEnabled(first > 0)
        self.next_button.setEnabled(first + size < listing.total)
