"""A checkable list of the event types a push configuration can filter on.

The types come from `models.webhooks.FILTER_EVENT_TYPES`; a stored type that is not among them
(a carrier may report any type) is listed too, ticked, so an edit never drops it unseen.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from freightdesk.models.code_words import code_text
from freightdesk.models.webhooks import FILTER_EVENT_TYPES

ItemFlag = Qt.ItemFlag
CHECKABLE = ItemFlag.ItemIsUserCheckable | ItemFlag.ItemIsEnabled | ItemFlag.ItemIsSelectable
CODE = Qt.ItemDataRole.UserRole  # the type as sent; the item says it in words


class EventTypePicker(QListWidget):
    changed = Signal()  # the user ticked or unticked a type

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("eventTypes")
        self.setAccessibleName("Event types to send")
        self._filling = False
        for event_type in FILTER_EVENT_TYPES:
            self._add(event_type)
        self.setMinimumHeight(120)
        self.itemChanged.connect(self._item_changed)

    def _add(self, event_type: str) -> QListWidgetItem:
        item = QListWidgetItem(code_text(event_type), self)
        item.setData(CODE, event_type)
        item.setFlags(CHECKABLE)
        item.setCheckState(Qt.CheckState.Unchecked)
        return item

    def _item_changed(self, _item: QListWidgetItem) -> None:
        if not self._filling:
            self.changed.emit()

    def all_items(self) -> list[QListWidgetItem]:
        return [item for index in range(self.count()) if (item := self.item(index)) is not None]

    def chosen(self) -> list[str]:
        """The ticked types, in the list's order."""
        return [
            str(i.data(CODE)) for i in self.all_items() if i.checkState() == Qt.CheckState.Checked
        ]

    def set_chosen(self, event_types: Iterable[str]) -> None:
        wanted = list(dict.fromkeys(event_types))
        self._filling = True
        try:
            known = {str(item.data(CODE)): item for item in self.all_items()}
            for event_type in wanted:
                if event_type not in known:
                    item = self._add(event_type)
                    item.setToolTip("Not one of the usual types; kept as it was saved")
                    known[event_type] = item
            for text, item in known.items():
                state = Qt.CheckState.Checked if text in wanted else Qt.CheckState.Unchecked
                item.setCheckState(state)
        finally:
            self._filling = False
