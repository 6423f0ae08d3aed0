"""Someone else saved the stop location while the user edited it: both side by side, and the
user chooses to keep theirs (overwrite) or take the saved one."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.stop_locations import StopLocation, StopLocationInput
from freightdesk.service.stop_locations import StaleLocation
from freightdesk.ui.formatting import address_text
from freightdesk.ui.panes.stop_locations.text import (
    contacts_text,
    coordinates_text,
    geofence_text,
    hours_text,
    special_text,
)

_DIFFERENT = QBrush(QColor(255, 196, 0, 70))


def _rows(location: StopLocation | StopLocationInput) -> list[tuple[str, str]]:
    address = location.address
    shown = StopLocation.model_validate(
        {
            **location.wire(exclude_none=True),
            "address": {k: v for k, v in address.wire(exclude_none=True).items()},
        }
    )
    return [
        ("Name", shown.name),
        ("Supplied id", shown.supplied_id or ""),
        ("Address", address_text(shown.address)),
        ("Coordinates", coordinates_text(shown.coordinates)),
        ("Opening hours", hours_text(shown.opening_hours)),
        ("Special hours", special_text(shown.special_opening_hours)),
        ("Geofence", geofence_text(shown.geofence)),
        ("Contacts", contacts_text(shown.contacts)),
    ]


class StopLocationConflictDialog(QDialog):
    keepMine = Signal()
    takeTheirs = Signal()

    def __init__(self, stale: StaleLocation, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictDialog")
        self.setWindowTitle("Saved by someone else meanwhile")
        self.setMinimumSize(760, 380)
        theirs = stale.theirs
        intro = QLabel(
            f"While you edited <b>{stale.mine.name}</b>, someone else saved version "
            f"{theirs.version}. Compare the two and choose which one to keep.",
            self,
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, 3, self)
        self.table.setObjectName("comparison")
        self.table.setHorizontalHeaderLabels(
            ["", "Your version", f"Saved version {theirs.version}"]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.differences: list[str] = []
        bold = QFont(self.font())
        bold.setBold(True)
        for (label, mine), (_label, saved) in zip(_rows(stale.mine), _rows(theirs), strict=True):
            row = self.table.rowCount()
            self.table.insertRow(row)
            items = [QTableWidgetItem(label), QTableWidgetItem(mine), QTableWidgetItem(saved)]
            for column, item in enumerate(items):
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                if mine != saved:
                    item.setBackground(_DIFFERENT)
                    if column == 0:
                        item.setFont(bold)
                self.table.setItem(row, column, item)
            if mine != saved:
                self.differences.append(label)
        self.table.resizeRowsToContents()
        self.buttons = QDialogButtonBox(self)
        self.keep_button = self.buttons.addButton(
            "&Keep mine and overwrite", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.take_button = self.buttons.addButton(
            "&Take theirs", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.back_button = self.buttons.addButton(
            "&Back to editing", QDialogButtonBox.ButtonRole.RejectRole
        )
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.keep_button.clicked.connect(self._keep)
        self.take_button.clicked.connect(self._take)
        self.back_button.clicked.connect(self.reject)

    def _keep(self) -> None:
        self.accept()
        self.keepMine.emit()

    def _take(self) -> None:
        self.accept()
        self.takeTheirs.emit()
