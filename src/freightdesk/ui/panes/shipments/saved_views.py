"""Saved views of the Shipments list: the filters' state kept under a name in the settings,
chosen again from the views box."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QCheckBox, QComboBox, QInputDialog, QLineEdit, QPushButton, QWidget

from freightdesk.ui.panes.shipments.attention import AttentionBar, kinds_named
from freightdesk.ui.panes.shipments.model import FilterResult


class SavedViews(QWidget):
    """Saving and applying views (mixed into `ShipmentsPane`, whose filter bar they read)."""

    settings: QSettings
    search: QLineEdit
    mode: QComboBox
    state: QComboBox
    exceptions_only: QCheckBox
    attention: AttentionBar
    attribute_name: QLineEdit
    attribute_value: QLineEdit
    updated_within: QComboBox
    created_within: QComboBox
    more_button: QPushButton
    views: QComboBox

    def apply_filter(self) -> FilterResult:
        raise NotImplementedError

    def _view_state(self) -> dict[str, object]:
        return {
            "search": self.search.text(),
            "mode": self.mode.currentData(),
            "state": self.state.currentData(),
            "exceptions": self.exceptions_only.isChecked(),
            "attention": sorted(kind.name for kind in self.attention.chosen()),
            "attributeName": self.attribute_name.text(),
            "attributeValue": self.attribute_value.text(),
            "updated": self.updated_within.currentText(),
            "created": self.created_within.currentText(),
        }

    def save_view(self) -> None:
        name, ok = QInputDialog.getText(self, "Save view", "Name of this view:")
        if ok and name.strip():
            self.store_view(name.strip())

    def store_view(self, name: str) -> None:
        views = self._stored_views()
        views[name] = self._view_state()
        self.settings.setValue("shipments/views", json.dumps(views))
        self._load_views(select=name)

    def _stored_views(self) -> dict[str, dict[str, object]]:
        raw = self.settings.value("shipments/views", "{}")
        try:
            views = json.loads(str(raw))
        except ValueError:
            return {}
        return views if isinstance(views, dict) else {}

    def _load_views(self, select: str | None = None) -> None:
        self.views.blockSignals(True)
        self.views.clear()
        self.views.addItem("Views…", None)
        for name in sorted(self._stored_views()):
            self.views.addItem(name, name)
        self.views.setCurrentIndex(max(0, self.views.findData(select)))
        self.views.blockSignals(False)

    def _view_chosen(self, index: int) -> None:
        name = self.views.itemData(index)
        if name:
            self.apply_view(str(name))

    def apply_view(self, name: str) -> None:
        state = self._stored_views().get(name)
        if state is None:
            return
        self.search.setText(str(state.get("search", "")))
        self.mode.setCurrentIndex(max(0, self.mode.findData(state.get("mode"))))
        self.state.setCurrentIndex(max(0, self.state.findData(state.get("state"))))
        self.exceptions_only.setChecked(bool(state.get("exceptions")))
        self.attention.choose(kinds_named(state.get("attention")))
        self.attribute_name.setText(str(state.get("attributeName", "")))
        self.attribute_value.setText(str(state.get("attributeValue", "")))
        self.updated_within.setCurrentText(str(state.get("updated", "Any time")))
        self.created_within.setCurrentText(str(state.get("created", "Any time")))
        self.more_button.setChecked(bool(state.get("attributeName")))
        self.apply_filter()
