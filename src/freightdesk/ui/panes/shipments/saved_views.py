"""Saved views of the Shipments list: the filters' state kept under a name in the settings,
chosen again from the views box."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QPushButton

from freightdesk.service.triage import KIND_NAMES
from freightdesk.ui.panes.shipments.attention import kinds_named
from freightdesk.ui.panes.shipments.filter_widgets import FilterWidgets
from freightdesk.ui.panes.shipments.model import FilterResult
from freightdesk.ui.panes.shipments.view_names import name_problem, offered_name, ordered

if TYPE_CHECKING:
    from freightdesk.ui.dialogs.name_dialog import NameDialog
    from freightdesk.ui.panes.shipments.manage_views import ManageViewsDialog

_MANAGE = "\x00manage"


class SavedViews(FilterWidgets):
    """Saving and applying views (mixed into `ShipmentsPane`, whose filter bar they read)."""

    more_button: QPushButton
    views: QComboBox
    manage_dialog: ManageViewsDialog | None = None
    name_dialog: NameDialog | None = None

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
        """Save view…: the name asked for in a dialog opened without a nested event loop; the
        filters are read when it is saved."""
        if self.name_dialog is not None:  # asked already: that dialog again, not a second
            self.name_dialog.raise_()
            self.name_dialog.activateWindow()
            return
        # The dialogs are imported when first opened, not before the list's first paint.
        from freightdesk.ui.dialogs.name_dialog import NameDialog

        dialog = NameDialog(
            self,
            title="Save view",
            label="Name of this view:",
            offered=offered_name(self._view_parts(), self._view_names()),
            problem=name_problem,
            taken=lambda name: name in self._stored_views(),
            on_name=self.store_view,
            what="view",
        )
        self.name_dialog = dialog
        dialog.finished.connect(lambda _result: self._name_dialog_closed(dialog))
        dialog.open()

    def _name_dialog_closed(self, dialog: NameDialog) -> None:
        self.name_dialog = None
        dialog.deleteLater()

    def _view_parts(self) -> list[str]:
        """What the filters narrow the list to, in words, for the name offered."""
        parts = [
            # A choice's text without its count: "In transit", not "In transit (12)".
            re.sub(r" \([\d,]+\)$", "", combo.currentText())
            for combo in (self.mode, self.state)
            if combo.currentData() is not None
        ]
        if self.exceptions_only.isChecked():
            parts.append("Exceptions")
        parts += [KIND_NAMES[kind].capitalize() for kind in sorted(self.attention.chosen())]
        return [*parts, self.search.text()]

    def store_view(self, name: str) -> None:
        # A new view goes at the end of the user's order rather than into the sorted tail.
        order = self._view_names_with(name)
        views = self._stored_views()
        views[name] = self._view_state()
        self.settings.setValue("shipments/views", json.dumps(views))
        self.settings.setValue("shipments/viewOrder", json.dumps(order))
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
        for name in self._view_names():
            self.views.addItem(name, name)
        self.views.addItem("Manage views…", _MANAGE)
        self.views.setCurrentIndex(max(0, self.views.findData(select)))
        self.views.blockSignals(False)

    def _view_chosen(self, index: int) -> None:
        name = self.views.itemData(index)
        if name == _MANAGE:
            self.manage_views()
        elif name:
            self.apply_view(str(name))

    def _view_names(self) -> list[str]:
        raw = self.settings.value("shipments/viewOrder", "[]")
        try:
            order = json.loads(str(raw))
        except ValueError:
            order = []
        names = list(self._stored_views())
        return ordered(names, [str(n) for n in order] if isinstance(order, list) else [])

    def _view_names_with(self, name: str) -> list[str]:
        names = self._view_names()
        return names if name in names else [*names, name]

    def default_view(self) -> str | None:
        name = str(self.settings.value("shipments/defaultView", ""))
        return name if name in self._stored_views() else None

    def apply_default_view(self) -> None:
        """Applied when the pane opens, so the app starts on the user's chosen view."""
        name = self.default_view()
        if name:
            self.views.setCurrentIndex(max(0, self.views.findData(name)))
            self.apply_view(name)

    def manage_views(self) -> None:
        from freightdesk.ui.panes.shipments.manage_views import ManageViewsDialog

        self.views.setCurrentIndex(0)
        dialog = ManageViewsDialog(self._view_names(), self.default_view(), self)
        self.manage_dialog = dialog
        dialog.finished.connect(lambda result: self._views_managed(dialog, result))
        dialog.open()

    def _views_managed(self, dialog: ManageViewsDialog, result: int) -> None:
        self.manage_dialog = None
        dialog.deleteLater()
        if result != dialog.DialogCode.Accepted:
            return
        stored = self._stored_views()
        views = {new: stored[old] for new, old in dialog.origin.items() if old in stored}
        self.settings.setValue("shipments/views", json.dumps(views))
        self.settings.setValue("shipments/viewOrder", json.dumps(dialog.names))
        self.settings.setValue("shipments/defaultView", dialog.default or "")
        self._load_views()

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
