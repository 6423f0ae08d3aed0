"""A line edit where a dispatcher types a carrier: by its name or its SCAC, the carriers the
app knows offered as 'Blue Mesa Logistics (BMLG)' while typing (any word of the name finds
it). What is typed becomes a code by the one rule, `service.carrier_codes`."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QLineEdit

from freightdesk.service.carrier_names import CARRIER_NAMES, carrier_text
from freightdesk.ui.widgets.completion import ClickThrough

POPUP_WIDTH = 320  # a long name beside its code, whole


class CarrierCompleter(QCompleter):
    """The known carriers; with `many`, it completes the last of a list separated by commas
    and keeps the ones before."""

    def __init__(self, edit: QLineEdit, *, many: bool = False) -> None:
        self.names = QStringListModel(edit)
        super().__init__(self.names, edit)
        self.many = many
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterMode(Qt.MatchFlag.MatchContains)
        popup = self.popup()
        if popup is not None:
            popup.setMinimumWidth(POPUP_WIDTH)
        self.fill()
        unlisten = CARRIER_NAMES.listen(lambda _codes: self.fill())
        self.destroyed.connect(lambda _gone: unlisten())  # never told once gone

    def fill(self) -> None:
        self.names.setStringList(sorted(carrier_text(c) for c in CARRIER_NAMES.as_dict()))

    def splitPath(self, path: str) -> list[str]:  # noqa: N802 (Qt's name)
        return [path.rsplit(",", 1)[-1].strip()] if self.many else [path]

    def pathFromIndex(self, index: QModelIndex | QPersistentModelIndex) -> str:  # noqa: N802
        picked = str(index.data(self.completionRole()))
        edit = self.widget()
        if not self.many or not isinstance(edit, QLineEdit) or "," not in edit.text():
            return picked
        return f"{edit.text().rsplit(',', 1)[0]}, {picked}"


def complete_carriers(edit: QLineEdit, *, many: bool = False) -> QCompleter:
    """Offer the known carriers in `edit` (with `many`, in a list separated by commas)."""
    completer = CarrierCompleter(edit, many=many)
    edit.setCompleter(completer)
    if not many:
        ClickThrough(completer)  # a click on the form's button while it is open is not lost
    return completer
