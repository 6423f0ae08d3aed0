"""The Shipments list's filter widgets, declared once for the pane's mixins that read them:
`FilterBar` filters with them, `SavedViews` saves and restores them. `ShipmentsPane` makes them."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QWidget

from freightdesk.ui.panes.shipments.attention import AttentionBar


class FilterWidgets(QWidget):
    """The filters' widgets and the settings they are kept in."""

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
