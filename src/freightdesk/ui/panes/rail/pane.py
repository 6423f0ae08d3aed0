"""The Rail pane: start tracking a North American rail leg, follow each leg's equipment
statuses with their history, find a leg by bill of lading or waybill, stop tracking a leg.

The list is the legs this profile started or looked up (the interface cannot list them; see
`service/rail.py`). The info and warning messages of the service's answers are shown as it
gives them (the field each names in the form's words), under the form after a send and in the
leg's detail, but for the uuids and ISO times in them: a leg is named as the form's "Same
move as" names it, by its equipment and bills of lading, and a time is said in the one clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.rail import (
    EquipmentStatus,
    EquipmentStatusUpdate,
    InfoMessage,
    MessageSeverity,
    RailPoint,
    RailShipmentIdentifier,
    RailShipmentIdentifierType,
    RailShipmentResponse,
    RailStatusResponse,
    ShipmentStop,
)
from freightdesk.service.clock import place_time, user_time
from freightdesk.service.errors import NotFound
from freightdesk.service.messages import refusal
from freightdesk.service.rail import check_leg, leg_key
from freightdesk.service.session import AppSession
from freightdesk.service.validation import problems_of
from freightdesk.ui.panes.rail.form import LegForm
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.elided import tip_elided
from freightdesk.ui.widgets.empty_state import say_when_empty
from freightdesk.ui.widgets.export import ListExport
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.item_table import ItemTable
from freightdesk.ui.widgets.list_page import ListPage
from freightdesk.ui.widgets.listing import Column, ListingModel
from freightdesk.ui.widgets.notice import Notice

ARROW = "\u2192"
WARNING_COLOR = "#b45309"
LOOKUP_TYPES = {
    RailShipmentIdentifierType.BILL_OF_LADING: "Bill of lading",
    RailShipmentIdentifierType.WAYBILL: "Waybill",
}


def status_text(update: EquipmentStatusUpdate | None) -> str:
    return update.status.value.replace("_", " ").capitalize() if update else "No status yet"


def point_text(point: RailPoint | None) -> str:
    if point is None:
        return ""
    place = ", ".join(p for p in (point.city, point.state) if p)
    return f"{point.name} ({place})" if place and place not in point.name else point.name


def _first(leg: RailStatusResponse) -> EquipmentStatus | None:
    return leg.equipment_statuses[0] if leg.equipment_statuses else None


def equipment_text(leg: RailStatusResponse) -> str:
    return ", ".join(e.value for e in leg.shipment.equipment_identifiers)


def identifiers_text(leg: RailStatusResponse) -> str:
    return ", ".join(i.value for i in leg.shipment.shipment_identifiers)


def route_text(leg: RailStatusResponse) -> str:
    status = _first(leg)
    if status is None:
        return ""
    return f"{point_text(status.origin_ramp)} {ARROW} {point_text(status.destination_ramp)}"


def ramps_text(leg: RailStatusResponse) -> str:
    """The ramps by name, short enough for the list (their places in `route_text`)."""
    status = _first(leg)
    if status is None:
        return ""
    ramps = (status.origin_ramp, status.destination_ramp)
    return f" {ARROW} ".join(ramp.name if ramp else "" for ramp in ramps)


# The request's fields a message of the service names, as the form calls them.
SOURCE_WORDS = {
    "equipmentIdentifiers": "equipment",
    "shipmentIdentifiers": "bills of lading and waybills",
    "trackingStartDateTime": "tracking",
    "masterShipmentId": "same move as",
    "shipmentStops": "stops",
}


def source_text(source: str) -> str:
    """ "equipmentIdentifiers[0].value" -> "equipment"; a source not of the form, as given."""
    return SOURCE_WORDS.get(re.split(r"[\[.]", source, maxsplit=1)[0], source)


# A leg's or a move's uuid in a message, with the words before it that say which it is.
_UUID_NAMED = re.compile(
    r"(?:\b(master shipment|leg) )?\b([0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})\b"
)
_FIELD_NAMES = re.compile(r"\b(?:" + "|".join(SOURCE_WORDS) + r")\b")
_ISO_TIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?"
)


def _leg_words(found: re.Match[str], listed: Sequence[RailStatusResponse], about: str) -> str:
    """A uuid of a message as the dispatcher knows it: the leg it is, or the move it links
    (its legs but `about`, the leg the message is about), by equipment and bill of lading."""
    named, uuid = found.group(1), found.group(2).lower()
    for leg in listed:
        if leg_key(leg).lower() == uuid and named != "master shipment":
            return move_text(leg)
    move = [
        move_text(leg)
        for leg in listed
        if str(leg.shipment.master_shipment_id).lower() == uuid and leg_key(leg) != about
    ]
    if move:
        return f"the move of {'; '.join(move)}"
    if named == "master shipment":
        return "a move not in this list"
    return "a leg not in this list"


def _time_words(found: re.Match[str]) -> str:
    try:
        return user_time(datetime.fromisoformat(found.group(0).replace("Z", "+00:00")))
    except ValueError:
        return found.group(0)


def message_words(text: str, listed: Sequence[RailStatusResponse] = (), about: str = "") -> str:
    """A message of the service with its uuids named from the legs `listed` (`about`: the
    key of the leg it is about), the request's fields as the form calls them ("No
    shipmentStops were given": stops) and its ISO times in the one clock."""
    text = _UUID_NAMED.sub(lambda found: _leg_words(found, listed, about), text)
    text = _FIELD_NAMES.sub(lambda found: SOURCE_WORDS[found.group(0)], text)
    return _ISO_TIME.sub(_time_words, text)


def messages_text(
    messages: Sequence[InfoMessage],
    listed: Sequence[RailStatusResponse] = (),
    about: str = "",
) -> str:
    """The service's info and warning messages, one a line, as it gave them (but for the
    words of `message_words`), the field each names as the form calls it."""
    lines = []
    for message in messages:
        kind = "Warning" if message.severity is MessageSeverity.WARNING else "Info"
        where = f" ({source_text(message.source)})" if message.source else ""
        lines.append(f"{kind}{where}: {message_words(message.message, listed, about)}")
    return "\n".join(lines)


def stop_place(stop: ShipmentStop) -> str:
    """A stop by its name, else its address, else its coordinates."""
    address = stop.location.address if stop.location else None
    if stop.stop_name or (address and address.point_name):
        return str(stop.stop_name or (address.point_name if address else ""))
    if address is not None:
        return ", ".join(p for p in (address.city, address.state, address.country) if p)
    if stop.geo_coordinates is not None:
        return f"{stop.geo_coordinates.latitude:.4f}, {stop.geo_coordinates.longitude:.4f}"
    return "not given"


def _stop_kind(stop: ShipmentStop) -> str:
    return stop.type.value.capitalize() if stop.type else f"Stop {stop.stop_number}"


def update_line(update: EquipmentStatusUpdate) -> str:
    railroad = f", {update.railroad}" if update.railroad else ""
    load = "loaded" if update.loaded else "empty"
    return (
        f"{user_time(update.date_time)}  {status_text(update)} at "
        f"{point_text(update.location)}{railroad} ({load}): {update.description}"
    )


def move_text(leg: RailStatusResponse) -> str:
    """A leg as the form's "Same move as" offers it: "TPXU3843988 (06141415813025702)"."""
    ids = identifiers_text(leg)
    return f"{equipment_text(leg)} ({ids})" if ids else equipment_text(leg)


def moves_offered(legs: Sequence[RailStatusResponse]) -> list[tuple[str, str]]:
    """The moves of `legs` as the form's "Same move as" offers them, (text, master shipment
    id), each named by its first leg tracked: the list is newest first, so naming a move by
    the leg listed first offered a new leg as the same move as itself."""
    first: dict[str, RailStatusResponse] = {}
    # Oldest last in the list: read from the end, a leg without a time keeps its place.
    for leg in reversed(legs):
        master = str(leg.shipment.master_shipment_id)
        known = first.get(master)
        if known is None or _tracked_before(leg, known):
            first[master] = leg
    order = list(dict.fromkeys(str(leg.shipment.master_shipment_id) for leg in legs))
    return [(move_text(first[master]), master) for master in order]


def _tracked_before(leg: RailStatusResponse, other: RailStatusResponse) -> bool:
    made, other_made = leg.shipment.created_date_time, other.shipment.created_date_time
    return made is not None and other_made is not None and made < other_made


def leg_detail(
    leg: RailStatusResponse,
    partners: Sequence[str] = (),
    listed: Sequence[RailStatusResponse] = (),
) -> str:
    """Everything known of a leg: its identifiers, the legs of the same move (`partners`, as
    `move_text` says them: not the uuids that link them), stops, each equipment's status and
    history, and the service's messages (the legs they name, from those `listed`)."""
    shipment = leg.shipment
    lines = [
        f"Equipment {equipment_text(leg)}"
        + (
            f"; shipment identifiers {identifiers_text(leg)}"
            if shipment.shipment_identifiers
            else ""
        ),
    ]
    if partners:
        lines.append(f"Same move as {'; '.join(partners)}")
    if shipment.tracking_start_date_time is not None:
        lines.append(f"Tracking from {user_time(shipment.tracking_start_date_time)}")
    for stop in shipment.shipment_stops:
        window = stop.appointment_window
        zone = window.local_time_zone_identifier if window else None
        when = ""
        if window is not None and window.start_date_time is not None:
            end = place_time(window.end_date_time, zone)
            when = f", appointment {place_time(window.start_date_time, zone)}"
            when += f" to {end}" if end else ""
        lines.append(f"{_stop_kind(stop)}: {stop_place(stop)}{when}")
    for status in leg.equipment_statuses:
        lines.append("")
        lines.append(
            f"{status.equipment_identifier.value}: {status_text(status.current_status)}"
            + (f" at {point_text(status.current_status.location)}" if status.current_status else "")
        )
        lines.append(
            f"  Ramps {point_text(status.origin_ramp)} {ARROW} "
            f"{point_text(status.destination_ramp)}; arrival expected "
            f"{user_time(status.estimated_arrival_date_time) or 'not known'}"
        )
        history = status.status_updates or []
        lines.append(f"  History ({len(history)} status{'es' if len(history) != 1 else ''}):")
        lines.extend(f"    {update_line(update)}" for update in history)
    if leg.info_messages:
        lines.extend(["", messages_text(leg.info_messages, listed, leg_key(leg))])
    return "\n".join(lines)


def current_text(leg: RailStatusResponse) -> str:
    status = _first(leg)
    return status_text(status.current_status if status else None)


def where_text(leg: RailStatusResponse) -> str:
    status = _first(leg)
    return point_text(status.current_status.location) if status and status.current_status else ""


def arrival_time(leg: RailStatusResponse) -> datetime | None:
    status = _first(leg)
    return status.estimated_arrival_date_time if status else None


def arrival_text(leg: RailStatusResponse) -> str:
    status = _first(leg)
    return user_time(status.estimated_arrival_date_time) if status else ""


# The list takes the pane's whole width (the form is below it). Each column fits its text
# (from its least width, to its most), the key ones first, left to right: the bill of lading
# and waybill people look a leg up by, its status, where it is (the demo's "CPKC Monterrey
# (San Nicolas de los Garza, NL)" whole at 1366 px), when it arrives. The ramps take the room
# left, elided in the middle if short of it, their places and whole names in the tooltip.
COLUMNS: list[Column[RailStatusResponse]] = [
    Column("Equipment", equipment_text, 95),
    Column("BOL / waybill", identifiers_text, 150),
    Column("Status", current_text, 90),
    Column("Where", where_text, 180, most=420),
    Column("Arrival expected", arrival_text, 125, value=arrival_time),
    Column("Ramps", ramps_text, 200, tooltip=route_text),
]


class RailPane(ListExport, QWidget):
    export_noun = "rail legs"

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model: ListingModel[RailStatusResponse] = ListingModel(COLUMNS, self)

        self.form = LegForm(self)
        self.model.modelReset.connect(self._offer_moves)
        self.errors = self.form.errors
        self.track_button = QPushButton("&Track leg", self)
        self.track_button.setObjectName("trackButton")
        self.track_button.setDefault(True)
        self.messages = QLabel(self)
        self.messages.setObjectName("railMessages")
        self.messages.setWordWrap(True)
        self.messages.setTextFormat(Qt.TextFormat.PlainText)
        self.messages.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        # The form scrolls down, never sideways: its column is as wide as its widest row.
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._form_width = (
            self.form.minimumSizeHint().width()
            + scroll.verticalScrollBar().sizeHint().width()
            + 2 * scroll.frameWidth()
        )
        form_box = QGroupBox(self)
        box_layout = QVBoxLayout(form_box)
        box_layout.setContentsMargins(0, 0, 0, 0)
        box_layout.addWidget(scroll, 1)
        # Under the scrolling form, not in it: the button stays in sight at 1366x768.
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 4, 8, 0)
        buttons.addStretch(1)
        buttons.addWidget(self.track_button)
        box_layout.addLayout(buttons)
        box_layout.addWidget(self.messages)
        form_box.setFlat(True)

        # Look a leg up by bill of lading or waybill.
        lookup = QWidget(self)
        lookup_form = QFormLayout(lookup)
        lookup_form.setContentsMargins(0, 0, 0, 0)
        self.lookup_type = QComboBox(lookup)
        self.lookup_type.setObjectName("lookupType")
        for value, text in LOOKUP_TYPES.items():
            self.lookup_type.addItem(text, value.value)
        self.lookup_value = QLineEdit(lookup)
        self.lookup_value.setObjectName("lookupValue")
        self.lookup_value.setPlaceholderText("the number on the bill of lading or waybill")
        self.lookup_value.setClearButtonEnabled(True)
        self.lookup_button = QPushButton("&Look up", lookup)
        row = QWidget(lookup)
        row_layout = QHBoxLayout(row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        row_layout.addWidget(self.lookup_type)
        row_layout.addWidget(self.lookup_value, 1)
        row_layout.addWidget(self.lookup_button)
        self.lookup_errors = FieldErrors(ErrorLabel(lookup))
        self.lookup_errors.add_row(
            lookup_form, "Find a le&g", "shipmentIdentifier.value", row, focus=self.lookup_value
        )
        self.lookup_errors.register("value", self.lookup_value, self.lookup_errors.general)
        lookup_form.addRow(self.lookup_errors.general)

        self.notice = Notice(self)
        self.table = ItemTable(
            self.model, leg_key, self, name="legsTable", stretch=len(COLUMNS) - 1, fit=True
        )
        # A place's start and its state both tell it: cut in the middle, not at the end.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        tip_elided(self.table)
        self.empty = say_when_empty(
            self.table,
            "The rail legs you track appear here: fill in the form on the left and choose "
            "Track leg, or find one by its bill of lading above.",
        )
        self.detail = QPlainTextEdit(self)
        self.detail.setObjectName("legDetail")
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText("Pick a leg to see its equipment's statuses and history")
        self.delete_button = QPushButton("&Delete leg", self)
        self.delete_button.setObjectName("deleteLeg")
        self.refresh_button = QPushButton("&Refresh", self)
        actions = QWidget(self)
        actions_layout = QHBoxLayout(actions)
        actions_layout.setContentsMargins(0, 0, 0, 0)
        actions_layout.addStretch(1)
        actions_layout.addWidget(self.delete_button)

        self.page = ListPage(self, session, lambda s: s.rail, self.table, self.notice, name="rail")
        self._lay_out(form_box, lookup, actions)

        self.track_button.clicked.connect(self.track)
        self.lookup_button.clicked.connect(self.look_up)
        self.lookup_value.returnPressed.connect(self.look_up)
        # What was said of the number before goes once it is changed (it stayed, under a
        # number it was not about, and kept the legs pushed down).
        self.lookup_value.textEdited.connect(lambda _text: self.lookup_errors.clear())
        self.form.equipment.returnPressed.connect(self.track)
        self.refresh_button.clicked.connect(self.refresh)
        self.table.selectedChanged.connect(self._selection_changed)
        self.table.on_delete(
            self.delete_selected, "Stop tracking the leg", button=self.delete_button
        )

    def _lay_out(self, form_box: QGroupBox, lookup: QWidget, actions: QWidget) -> None:
        """The look-up on top; the legs across the pane's width, and under them the form
        beside the chosen leg's detail. Beside the form (about 445 px) the legs' columns
        were cut at 1366 px: their bills of lading and waybills, where they are, the ramps."""
        # No wider than the form needs: the detail's lines want the room more.
        form_box.setFixedWidth(self._form_width)
        top = QHBoxLayout()
        top.addWidget(lookup, 1)
        top.addWidget(self.refresh_button, 0, Qt.AlignmentFlag.AlignTop)
        below = QWidget(self)
        below_layout = QHBoxLayout(below)
        below_layout.setContentsMargins(0, 0, 0, 0)
        below_layout.addWidget(form_box)
        detail = QVBoxLayout()
        detail.addWidget(self.detail, 1)
        detail.addWidget(actions)
        below_layout.addLayout(detail, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("railSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(below)
        # The form keeps the larger share: its Track leg button in sight at 1366x768.
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([2, 3])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 4)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.splitter, 1)

    # --- showing ---------------------------------------------------------------------------

    def _offer_moves(self) -> None:
        self.form.set_moves(moves_offered(self.model.items))

    def _selection_changed(self) -> None:
        leg = self.table.selected()
        if leg is None:
            self.detail.setPlainText("")
            return
        master = leg.shipment.master_shipment_id
        partners = [
            move_text(other)
            for other in self.model.items
            if other.shipment.master_shipment_id == master and leg_key(other) != leg_key(leg)
        ]
        self.detail.setPlainText(leg_detail(leg, partners, self.model.items))

    def _show_messages(self, messages: Sequence[InfoMessage], about: str = "") -> None:
        """`messages` under the form; `about`: the key of the leg they are about."""
        warned = any(m.severity is MessageSeverity.WARNING for m in messages)
        self.messages.setStyleSheet(f"color: {WARNING_COLOR};" if warned else "")
        self.messages.setText(messages_text(messages, self.model.items, about))

    def _busy(self, busy: bool) -> None:
        self.track_button.setEnabled(not busy)

    # --- tracking a new leg ----------------------------------------------------------------

    def track(self) -> None:
        """Send the form as typed; problems go beside their fields and the form stays."""
        service = self.session.rail
        body, problems = check_leg(self.form.wire())
        if body is None:
            self.form.show_problems(problems)
            return
        if service is None or self.session.client is None:
            self.form.show_problems({}, general="Not connected to a freight service yet")
            return
        self.errors.clear()
        self._show_messages(())
        self._busy(True)

        def done(answer: tuple[RailShipmentResponse, RailStatusResponse]) -> None:
            self._busy(False)
            created, leg = answer
            self._show_messages(created.info_messages, leg_key(leg))
            self.notice.show_info(f"Tracking {equipment_text(leg)}")
            self.table.select_when_listed(leg_key(leg))

        def failed(error: BaseException) -> None:
            self._busy(False)
            self.form.show_problems(*refusal(error))

        spawn(service.create(body), on_done=done, on_error=failed, name="rail-create", owner=self)

    # --- looking a leg up ------------------------------------------------------------------

    def look_up(self) -> None:
        service = self.session.rail
        if not self.lookup_value.text().strip():
            # In words, not the model's "String should have at least 1 character".
            what = LOOKUP_TYPES[RailShipmentIdentifierType(self.lookup_type.currentData())]
            self.lookup_errors.show(
                {"shipmentIdentifier.value": f"Enter the {what.lower()} number to look up"}
            )
            return
        try:
            identifier = RailShipmentIdentifier(
                type=RailShipmentIdentifierType(self.lookup_type.currentData()),
                value=self.lookup_value.text(),
            )
        except ValidationError as exc:
            self.lookup_errors.show(
                {f"shipmentIdentifier.{k}": v for k, v in problems_of(exc).items()}
            )
            return
        if service is None or self.session.client is None:
            self.lookup_errors.show({}, general="Not connected to a freight service yet")
            return
        self.lookup_errors.clear()
        self.lookup_button.setEnabled(False)

        def done(leg: RailStatusResponse) -> None:
            self.lookup_button.setEnabled(True)
            what = LOOKUP_TYPES[identifier.type].lower()
            self.notice.show_info(f"The {what} {identifier.value} is on {equipment_text(leg)}")
            self.table.select_when_listed(leg_key(leg))
            self._selection_changed()

        def failed(error: BaseException) -> None:
            self.lookup_button.setEnabled(True)
            fields, general = refusal(error)
            if isinstance(error, NotFound):
                what = LOOKUP_TYPES[identifier.type].lower()
                general = f"No rail leg of this account carries {what} {identifier.value!r}"
            self.lookup_errors.show(fields, general=general)

        spawn(
            service.look_up(identifier),
            on_done=done,
            on_error=failed,
            name="rail-lookup",
            owner=self,
        )

    # --- deleting --------------------------------------------------------------------------

    def delete_selected(self) -> None:
        leg = self.table.selected()
        service = self.session.rail
        if leg is None or service is None:
            return
        key = leg_key(leg)

        def yes() -> None:
            self.page.run(
                service.delete(key),
                "rail-delete",
                on_done=lambda _none: self.notice.show_info(
                    f"Stopped tracking {equipment_text(leg)} (leg {key})"
                ),
            )

        self.page.ask_delete(
            "rail leg",
            f"{equipment_text(leg)} ({key})",
            yes,
            informative="The railroad's statuses of this leg are no longer followed.",
        )

    # --- pane actions ----------------------------------------------------------------------

    def focus_search(self) -> None:
        self.lookup_value.setFocus()
        self.lookup_value.selectAll()

    def refresh(self) -> None:
        self.page.refresh()

    def shutdown(self) -> None:
        self.page.shutdown()
