"""A booking's parent shipment, chosen by an identifier a dispatcher knows (a PRO, a bill of
lading, a container or a tracking number) from the shipments the app lists, its id sent: the
form asked for the id (a uuid) and answered a wrong one in the validator's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QHBoxLayout, QLabel, QLineEdit, QWidget

from freightdesk.models.code_words import code_text
from freightdesk.service.shipment_lookup import Found, ListedIndex, ShipmentIndex, as_shipment_id
from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.widgets.completion import ClickThrough

if TYPE_CHECKING:
    from freightdesk.service.shipments import ShipmentList

SEP = " \u00b7 "  # a middle dot, as the Bookings list names a booking
UNKNOWN = (
    "No shipment the app lists has this identifier: type the shipment's PRO, bill of lading, "
    "container or tracking number and choose it from the list."
)
SEVERAL = "Several shipments have this identifier: choose one from the list."


def shipment_text(row: SummaryRow, found: Found | None = None) -> str:
    """The shipment as a completion offers it, "PRO1234 · LTL · Chicago, IL → Dallas, TX";
    the identifier typed after it when the shipment is better known by another."""
    name = row.primary_identifier or (row.identifiers[0][1] if row.identifiers else "")
    parts = [name or "A shipment without identifiers"]
    if row.mode:
        parts.append(code_text(row.mode))
    if row.origin_name or row.destination_name:
        parts.append(f"{row.origin_name or '?'} \u2192 {row.destination_name or '?'}")
    if found is not None and found.value != name:
        parts.append(f"{code_text(found.kind)} {found.value}")
    return SEP.join(parts)


class ShipmentChoice(QWidget):
    """A line edit completing identifiers over `listed()` (the session's shipment list, as it
    is at each key typed: see `ListedIndex`), and beside it the shipment chosen in words."""

    def __init__(
        self, listed: Callable[[], ShipmentList | None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._listed = ListedIndex(listed)
        self._offered: dict[str, str] = {}  # a completion's text: its shipment's id
        self.edit = QLineEdit(self)
        self.edit.setObjectName("shipmentId")
        self.edit.setPlaceholderText("Its PRO, bill of lading, container or tracking number")
        self.edit.setClearButtonEnabled(True)
        self.shown = QLabel(self)
        self.shown.setObjectName("shipmentChosen")
        self.shown.setEnabled(False)  # greyed: it says what was chosen, it is not a field
        self.shown.setVisible(False)
        self.completions = QStringListModel(self)
        self.completer = QCompleter(self.completions, self.edit)
        # The list offers what holds the typed text anywhere in any of a shipment's
        # identifiers, worked out here: Qt's own filter sees only the text shown.
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setMaxVisibleItems(12)
        self.edit.setCompleter(self.completer)
        # The edit takes a completion only while it has the focus (Qt joins them in its
        # focusInEvent): a window not active (another one's in front) kept what was typed.
        self.completer.activated.connect(self.edit.setText)
        ClickThrough(self.completer)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.shown)
        self.setFocusProxy(self.edit)
        self.edit.textEdited.connect(self._typed)
        self.edit.textChanged.connect(self._say_chosen)

    def choosing(self) -> bool:
        """Whether the list of completions is open (the user is still choosing)."""
        popup = self.completer.popup()
        return popup is not None and popup.isVisible()

    def index(self) -> ShipmentIndex:
        return self._listed.index()

    def _typed(self, text: str) -> None:
        found = self.index().find(text)
        self._offered = {shipment_text(f.row, f): f.row.id for f in found}
        self.completions.setStringList(list(self._offered))
        if found:
            self.completer.complete()

    def _say_chosen(self, _text: str) -> None:
        chosen, _problem = self.chosen()
        row = self.listed_row(chosen)
        # A completion's own text says it already.
        completed = self.edit.text() in self._offered
        self.shown.setText(shipment_text(row) if row is not None and not completed else "")
        self.shown.setVisible(bool(self.shown.text()))  # empty, it took the field's room

    def listed_row(self, shipment_id: str | None) -> SummaryRow | None:
        return self._listed.row(shipment_id) if shipment_id is not None else None

    def chosen(self) -> tuple[str | None, str]:
        """The id of the shipment chosen, else None and why (blank: '')."""
        text = self.edit.text().strip()
        if not text:
            return None, ""
        offered = self._offered.get(text)
        if offered is not None:
            return offered, ""
        named = self.index().named(text)
        if len(named) == 1:
            return named[0].row.id, ""
        if named:
            return None, SEVERAL
        shipment_id = as_shipment_id(text)  # pasted from another system: sent as it is
        return (shipment_id, "") if shipment_id else (None, UNKNOWN)

    def set_shipment(self, shipment_id: str) -> None:
        """Show `shipment_id`'s shipment by its name when the app lists it, else the id."""
        row = self.listed_row(shipment_id) if shipment_id else None
        if row is None:
            self.edit.setText(shipment_id)
            return
        text = shipment_text(row)
        self._offered = {text: row.id}
        self.edit.setText(text)
