"""The detail's Overview tab: what a dispatcher reads first (state and where, the next stop
against its appointment, carrier, equipment, weight, pieces, the last position and its age,
the open exceptions), then the identifiers and the editable attributes.

The facts come from `service.overview`; this module only words them, with the app's one clock
(`service.clock`: a stop's times in its own zone, named).
"""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text
from freightdesk.models.common import CustomAttribute
from freightdesk.models.tracking import MAX_ATTRIBUTES, TrackedShipmentInput, TrackingHistory
from freightdesk.service.carrier_names import carrier_text
from freightdesk.service.clock import place_time, user_time
from freightdesk.service.overview import Overview, Place, overview_of
from freightdesk.service.session import AppSession
from freightdesk.service.shipments import with_attributes
from freightdesk.service.triage import Attention, TriageSettings
from freightdesk.ui.formatting import free_code_text, state_text
from freightdesk.ui.panes.shipments.attention import SYMBOLS, attention_color
from freightdesk.ui.panes.shipments.tables import fill, fit_rows, make_table, show_all_rows
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.form_dialog import ask
from freightdesk.ui.widgets.forms import ErrorLabel
from freightdesk.ui.widgets.notice import ERROR_COLOR, OK_COLOR

# The age of the last position is said again this often while the tab shows it.
AGE_REFRESH_MS = 30_000
NOT_KNOWN = "Not known"
# Where an attribute row keeps the name the service has, which the table shows in words.
_STORED_NAME = Qt.ItemDataRole.UserRole


def _explain(error: BaseException) -> str:
    from freightdesk.service.messages import explain

    return explain(error)


def _stored_name(item: QTableWidgetItem | None) -> str:
    """The attribute name a row of the table stands for: the service's own name while the
    row still shows it in words (`free_code_text`), else what the user typed."""
    if item is None:
        return ""
    typed = item.text().strip()
    stored = item.data(_STORED_NAME)
    if isinstance(stored, str) and typed == free_code_text(stored).strip():
        return stored
    return typed


def _place(place: Place) -> str:
    return f"{place.name} (stop {place.number})"


def where_text(overview: Overview) -> str:
    state = state_text(overview.state) if overview.state else "No state yet"
    if overview.where is None:
        return f"{state} · not at a stop yet"
    word = "at" if overview.at_stop else "last at"
    return f"{state} · {word} {_place(overview.where)}"


def window_text(overview: Overview) -> str:
    stop = overview.next_stop
    if stop is None or (stop.window_start is None and stop.window_end is None):
        return "No appointment"
    zone = stop.place.zone
    start = place_time(stop.window_start, zone) if stop.window_start else "…"
    end = place_time(stop.window_end, zone) if stop.window_end else "…"
    return f"{start} to {end}"


def eta_text(overview: Overview) -> str:
    """The next stop's ETA against its appointment window, without the word ETA: the row's
    label says it (Overview's "Next stop ETA", the public preview's "ETA")."""
    stop = overview.next_stop
    if stop is None or stop.eta is None:
        return "No ETA yet"
    text = place_time(stop.eta, stop.place.zone)
    if stop.late:
        return f"{SYMBOLS[Attention.LATE]} {text}, {stop.difference}"
    if stop.at_risk:
        return f"{SYMBOLS[Attention.AT_RISK]} {text}, {stop.difference}"
    return f"{text}, {stop.difference}" if stop.difference else text


def latest_eta_text(overview: Overview) -> str:
    """The list's Latest ETA with the stop it is for, when it is not the next stop's ETA (a
    later stop's, calculated since); empty when it is, so one estimate is said once."""
    latest, stop = overview.latest_eta, overview.next_stop
    if latest is None:
        return ""
    place = overview.latest_eta_place
    if stop is not None and stop.eta == latest and stop.place == place:
        return ""
    when = place_time(latest, overview.latest_eta_zone)
    return f"{when} at {_place(place)}" if place is not None else when


def coordinates_text(overview: Overview) -> str:
    if overview.last_position is None:
        return ""
    latitude, longitude = overview.last_position
    return f"{latitude:.4f}, {longitude:.4f}"


def position_text(overview: Overview) -> str:
    """Where the shipment was last seen, by the stop of its own it is near ("12 km from
    Dallas DC (stop 2)"), else by its coordinates; and how long ago."""
    if overview.last_position is None:
        return "No position yet"
    near = overview.last_position_near
    if near is None:
        where = coordinates_text(overview)
    elif near.km < 1:
        where = f"less than 1 km from {_place(near.place)}"
    else:
        where = f"{near.km:.0f} km from {_place(near.place)}"
    return f"{where} · {overview.last_position_age}"


def exceptions_text(overview: Overview) -> str:
    if not overview.exceptions:
        return "None open"
    return "\n".join(
        f"{x.text} (since {place_time(x.since, x.zone)})" if x.since else x.text
        for x in overview.exceptions
    )


class OverviewTab(QWidget):
    attributesSaved = Signal()

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.history: TrackingHistory | None = None
        # The user's triage margin decides "at risk"; the pane sets it when it knows it.
        self.triage_settings = TriageSettings()
        self.overview: Overview | None = None
        self.loaded_attributes: list[CustomAttribute] = []
        self.question: QMessageBox | None = None

        self.facts = QFormLayout()
        self.facts.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.labels: dict[str, QLabel] = {}
        for key, title in (
            ("state", "State"),
            ("next_stop", "Next stop"),
            ("appointment", "Appointment"),
            ("eta", "Next stop ETA"),
            ("latest_eta", "Latest ETA"),
            ("carrier", "Carrier"),
            ("equipment", "Equipment"),
            ("weight", "Weight"),
            ("pieces", "Pieces"),
            ("position", "Last position"),
            ("exceptions", "Open exceptions"),
        ):
            label = QLabel(self)
            label.setObjectName(f"overview_{key}")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.labels[key] = label
            self.facts.addRow(f"{title}:", label)

        self.identifiers = make_table(
            ["Type", "Value"], self, "No identifiers — Edit… adds a bill of lading, PRO, …"
        )
        self.attributes = make_table(
            ["Name", "Value"], self, "No attributes — Add attribute labels this shipment"
        )
        self.attributes.setObjectName("attributes")
        self.add_attribute = QPushButton("Add attribute", self)
        self.remove_attribute = QPushButton("Remove", self)
        self.save_attributes = QPushButton("Save attributes", self)
        self.attribute_error = ErrorLabel(self)

        layout = QVBoxLayout(self)
        layout.addLayout(self.facts)
        layout.addSpacing(8)  # the facts first, the reference tables apart
        # Both tables show all their rows: the Overview's scroll bar is the only one.
        for table in (self.identifiers, self.attributes):
            show_all_rows(table)
        layout.addWidget(QLabel("Identifiers", self))
        layout.addWidget(self.identifiers)
        layout.addWidget(QLabel(f"Attributes (at most {MAX_ATTRIBUTES})", self))
        layout.addWidget(self.attributes)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_attribute)
        buttons.addWidget(self.remove_attribute)
        buttons.addStretch(1)
        buttons.addWidget(self.save_attributes)
        layout.addLayout(buttons)
        layout.addWidget(self.attribute_error)
        layout.addStretch(1)  # a short Overview keeps its tables at the top

        # "12 m ago" grows old on screen: said again while the tab is shown (and on showing).
        self._ages = QTimer(self)
        self._ages.setInterval(AGE_REFRESH_MS)
        self._ages.timeout.connect(self._tick)
        self.add_attribute.clicked.connect(self.add_attribute_row)
        self.remove_attribute.clicked.connect(self.remove_attribute_row)
        self.save_attributes.clicked.connect(self.save_attribute_edits)

    # --- showing -----------------------------------------------------------------------------

    def show_history(self, history: TrackingHistory) -> None:
        """Show `history`; keeps the user's unsaved attribute edits."""
        editing = self.history is not None and self.attributes_dirty()
        self.history = history
        shipment = history.shipment
        self._show_facts()
        fill(self.identifiers, [[code_text(i.type), i.value] for i in shipment.identifiers])
        if not editing:
            # What the user's edits begin from: a save first checks nobody changed it since.
            self.loaded_attributes = list(shipment.attributes)
            # A carrier's key (CARRIER_LOAD_NUMBER) reads in words, as the booking says it;
            # the name saved is still the one the service has unless the user retypes it.
            fill(
                self.attributes,
                [
                    [free_code_text(a.name), ", ".join(a.values) if a.values else (a.value or "")]
                    for a in shipment.attributes
                ],
                editable=True,
            )
            for row, attribute in enumerate(shipment.attributes):
                item = self.attributes.item(row, 0)
                if item is not None:
                    item.setData(_STORED_NAME, attribute.name)

    def _show_facts(self) -> None:
        if self.history is None:
            return
        found = overview_of(self.history, datetime.now(UTC), self.triage_settings)
        self.overview = found
        labels = self.labels
        labels["state"].setText(where_text(found))
        labels["next_stop"].setText(
            _place(found.next_stop.place) if found.next_stop else "No stop ahead"
        )
        labels["appointment"].setText(window_text(found))
        labels["eta"].setText(eta_text(found))
        kind = (
            Attention.LATE
            if found.next_stop and found.next_stop.late
            else Attention.AT_RISK
            if found.next_stop and found.next_stop.at_risk
            else None
        )
        color = attention_color(kind) if kind is not None else None
        labels["eta"].setStyleSheet(f"color: {color.name()};" if color is not None else "")
        labels["carrier"].setText(carrier_text(found.carrier) or NOT_KNOWN)
        # The latest ETA only when it is another estimate than the next stop's; equipment,
        # weight and pieces only where known: most shipments say none of them.
        for key, value in (
            ("latest_eta", latest_eta_text(found)),
            ("equipment", found.equipment),
            ("weight", found.weight),
            ("pieces", found.pieces),
        ):
            labels[key].setText(value or "")
            self.facts.setRowVisible(labels[key], bool(value))
        labels["position"].setText(position_text(found))
        # The coordinates stay at hand where the text names a stop instead.
        labels["position"].setToolTip(
            " · ".join(
                t
                for t in (
                    coordinates_text(found) if found.last_position_near else "",
                    user_time(found.last_position_at) if found.last_position_at else "",
                )
                if t
            )
        )
        labels["exceptions"].setText(exceptions_text(found))
        exception_color = attention_color(Attention.EXCEPTION)
        labels["exceptions"].setStyleSheet(
            f"color: {exception_color.name()};" if found.exceptions and exception_color else ""
        )
        if found.last_position is not None and not self._ages.isActive():
            self._ages.start()
        elif found.last_position is None:
            self._ages.stop()

    def follow_triage(self, settings: TriageSettings, changed: SignalInstance) -> None:
        """Judge "at risk" by the user's margin (`settings`), and again when `changed`
        brings new settings, as the list's Attention column does."""
        self.triage_settings = settings
        changed.connect(self.set_triage_settings)
        self._show_facts()

    def set_triage_settings(self, settings: TriageSettings) -> None:
        self.triage_settings = settings
        self._show_facts()

    def _tick(self) -> None:
        if self.isVisible():
            self._show_facts()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._show_facts()  # the age as of now, not as of the last tick

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        # Narrower, a long value may need the table's sideways scroll bar (or no longer).
        for table in (self.identifiers, self.attributes):
            fit_rows(table)

    def stop(self) -> None:
        """Nothing shown (another shipment comes): the age is no longer said again, and the
        next shipment's attributes are its own, not edits left from this one."""
        self._ages.stop()
        self.history = None
        self.save_attributes.setProperty("dirty", False)

    def clear(self) -> None:
        """Nothing of the last shipment left: its facts, identifiers and attributes."""
        for label in self.labels.values():
            label.clear()
            label.setStyleSheet("")
        self.loaded_attributes = []
        fill(self.identifiers, [])
        fill(self.attributes, [], editable=True)

    # --- the attributes ----------------------------------------------------------------------

    def attributes_dirty(self) -> bool:
        return self.save_attributes.property("dirty") is True

    def add_attribute_row(self) -> None:
        if self.attributes.rowCount() >= MAX_ATTRIBUTES:
            self.attribute_error.show_message(
                f"A shipment can have at most {MAX_ATTRIBUTES} attributes."
            )
            return
        row = self.attributes.rowCount()
        self.attributes.insertRow(row)
        name = QTableWidgetItem("")
        self.attributes.setItem(row, 0, name)
        self.attributes.setItem(row, 1, QTableWidgetItem(""))
        fit_rows(self.attributes)
        self.save_attributes.setProperty("dirty", True)
        self.attributes.setCurrentItem(name)
        if self.attributes.isVisible():
            self.attributes.editItem(name)

    def remove_attribute_row(self) -> None:
        row = self.attributes.currentRow()
        if row >= 0:
            self.attributes.removeRow(row)
            fit_rows(self.attributes)
            self.save_attributes.setProperty("dirty", True)

    def edited_attributes(self) -> list[CustomAttribute]:
        found: list[CustomAttribute] = []
        for row in range(self.attributes.rowCount()):
            name_item = self.attributes.item(row, 0)
            value_item = self.attributes.item(row, 1)
            name = _stored_name(name_item)
            value = value_item.text().strip() if value_item else ""
            if not name and not value:
                continue
            values = [v.strip() for v in value.split(",") if v.strip()]
            found.append(
                CustomAttribute(
                    name=name or " ", value=values[0] if len(values) == 1 else None, values=values
                )
            )
        return found

    def save_attribute_edits(self) -> None:
        service = self.session.shipments
        if self.history is None or service is None:
            return
        try:
            attributes = self.edited_attributes()
        except ValueError as exc:
            self.attribute_error.show_message(str(exc))
            return
        if any(not a.name.strip() for a in attributes):
            self.attribute_error.show_message("Every attribute needs a name.")
            return
        if len(attributes) > MAX_ATTRIBUTES:
            self.attribute_error.show_message(
                f"A shipment can have at most {MAX_ATTRIBUTES} attributes."
            )
            return
        shipment = self.history.shipment
        body = with_attributes(shipment, attributes)
        self.save_attributes.setEnabled(False)
        self.attribute_error.show_message(None)

        def checked(theirs: dict[str, list[str]] | None) -> None:
            if theirs is None:
                self._put(body)
                return
            # Someone else changed them since the user began: theirs are said, and the
            # user's edits stay in the table whatever the answer.
            self.save_attributes.setEnabled(True)
            now = "; ".join(f"{k} = {', '.join(v)}" for k, v in theirs.items()) or "none"
            self._say(f"Changed meanwhile on the service: {now}", ok=False)
            self.question = ask(
                self,
                "Attributes changed meanwhile",
                "Someone changed this shipment's attributes since you began editing.",
                lambda: self._put(body),
                name="confirmAttributesChanged",
                informative=f"Now on the service: {now}.\nSave yours over them?",
                answers=("&Save mine", "&Not now"),
            )

        spawn(
            service.attributes_changed(shipment.id, self.loaded_attributes),
            on_done=checked,
            on_error=self._failed,
            name="check-attributes",
            owner=self,
        )

    def _say(self, message: str, *, ok: bool) -> None:
        self.attribute_error.setStyleSheet(f"color: {OK_COLOR if ok else ERROR_COLOR};")
        self.attribute_error.show_message(message)

    def _failed(self, error: BaseException) -> None:
        # The user's edits stay in the table; the message says what to fix.
        self.save_attributes.setEnabled(True)
        self._say(_explain(error), ok=False)

    def _put(self, body: TrackedShipmentInput) -> None:
        service = self.session.shipments
        if service is None:
            return
        self.save_attributes.setEnabled(False)
        attributes = list(body.attributes)

        def saved(_result: object) -> None:
            self.save_attributes.setEnabled(True)
            self.save_attributes.setProperty("dirty", False)
            self.loaded_attributes = attributes
            self._say("Attributes saved", ok=True)
            self.attributesSaved.emit()

        spawn(
            service.save(body),
            on_done=saved,
            on_error=self._failed,
            name="save-attributes",
            owner=self,
        )
