"""The two compose forms of the carrier push console: a truckload tracking update (an event
and/or readings with a position and sensors) and a parcel status update.

Each field has the interface's rule for it in words beside it (`TRUCKLOAD_RULES`,
`PARCEL_RULES` from the models, keyed by the wire path the field fills), and its problem under
it, whether the models found it before sending or the service named it in its refusal.

What a dispatcher reads is words, not the wire's: the choices say "Arrival at stop" and
"Kilometers per hour" and carry their code as item data (a code typed into an open choice is
sent as typed); the update's times are typed in the app's date and time editor, in the user's
zone, and sent in the wire's format, so no ISO 8601 is asked of anyone.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text, words
from freightdesk.models.push import FUEL_UNITS, PARCEL_RULES, TRUCKLOAD_RULES, ParcelEventType
from freightdesk.models.tracking import SpeedUnit
from freightdesk.service.carrier_push import (
    SENSOR,
    ParcelInput,
    SensorRow,
    TruckloadInput,
    problems_in_words,
)
from freightdesk.ui.panes.push.sensors import SensorTable
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors
from freightdesk.ui.widgets.time_edit import UserTimeEdit

# Truckload event types the service acts on (the vocabulary is open: others are recorded).
TRUCKLOAD_EVENTS = (
    "ARRIVAL_AT_STOP",
    "DEPARTURE_FROM_STOP",
    "PICKUP",
    "IN_TRANSIT",
    "DELIVERY",
    "CANCELLED",
)
RULE_STYLE = "color: #6b7280; font-size: 11px;"
TOO_FAR_AHEAD = "More than 5 minutes from now: enter when it happened, or choose Now"
EVENT_TIME = "truckload.shipmentEvent.dateTime"
READINGS_TIME = "truckload.readings.dateTime"
ETA = "estimatedTimeOfArrival"


_CODE = re.compile(r"\b[A-Z]+(?:_[A-Z]+)*\b")
_UNITS = ("CELSIUS", "FAHRENHEIT")  # codes without "_" that a rule names
# Said of a code whose words() would not read right.
LABELS = {"CARRIER_SCAC": "Carrier SCAC"}


def iso_text(moment: datetime) -> str:
    """A truckload update's time on the wire: ISO 8601 in UTC (`2026-11-22T14:05:00Z`)."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def java_text(moment: datetime) -> str:
    """A parcel update's time on the wire: `2026-11-22T14:05:00+0000`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def _tomorrow() -> datetime:
    """An ETA to start from: this hour tomorrow."""
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(days=1)


def shown_rule(rule: str, *, time: bool = False) -> str:
    """A rule of the models as the form says it: the codes it names as the choices say
    them ("Required for Position update"); a `time`'s without the wire's format, the form's
    business, not the user's (the editor cannot hold anything else)."""
    said = _CODE.sub(lambda m: words(m[0]) if "_" in m[0] or m[0] in _UNITS else m[0], rule)
    if not time:
        return said
    return "; ".join(
        part for part in said.split("; ") if "ISO 8601" not in part and "yyyy" not in part
    )


def code(box: QComboBox) -> str:
    """The code of what `box` shows: its item's, or the text as typed into an open choice."""
    text = box.currentText()
    index = box.findText(text)
    if index >= 0 and isinstance(data := box.itemData(index), str):
        return data
    return text


class _Form(QWidget):
    """A form whose rows carry their rule beside the field and their problem under it."""

    def __init__(
        self, rules: dict[str, str], times: tuple[str, ...], parent: QWidget | None = None
    ) -> None:
        """`times`: the paths filled by a date and time editor."""
        super().__init__(parent)
        self._rules = {p: shown_rule(r, time=p in times) for p, r in rules.items()}
        self._times = times
        self.rule_labels: dict[str, QLabel] = {}
        self.errors = FieldErrors(ErrorLabel(self))

    def row(
        self,
        form: QFormLayout,
        label: str,
        path: str,
        field: QWidget,
        *extra: QWidget,
        also: tuple[str, ...] = (),
        lead: QWidget | None = None,
    ) -> None:
        """`field` (with `extra` widgets after it, and `lead`, which the label's key goes to,
        before it) under `path`; its rule, and the rules of the paths `also` fills, beside it."""
        holder = QWidget()
        line = QHBoxLayout(holder)
        line.setContentsMargins(0, 0, 0, 0)
        if lead is not None:
            line.addWidget(lead)
        line.addWidget(field, 2)
        for widget in extra:
            line.addWidget(widget)
        rule = "; ".join(r for p in (path, *also) if (r := self._rules.get(p)))
        if rule:
            hint = QLabel(rule, holder)
            hint.setObjectName("rule")
            hint.setWordWrap(True)
            hint.setStyleSheet(RULE_STYLE)
            line.addWidget(hint, 3)
            self.rule_labels[path] = hint
            field.setToolTip(rule)
        self.errors.add_row(form, label, path, holder, focus=lead or field)

    def text_field(self, name: str, placeholder: str = "", text: str = "") -> QLineEdit:
        edit = QLineEdit(text, self)
        edit.setObjectName(name)
        edit.setPlaceholderText(placeholder)
        return edit

    def time_field(self, name: str) -> tuple[UserTimeEdit, QPushButton]:
        """A time in the app's date and time editor, now to start with, and a button that
        puts in the time now."""
        edit = UserTimeEdit(self, datetime.now(UTC))
        edit.setObjectName(name)
        button = QPushButton("Now", self)
        button.setObjectName(f"{name}Now")
        button.setToolTip("The time now")
        button.clicked.connect(lambda: edit.set_value(datetime.now(UTC)))
        return edit, button

    def sent_rows(self) -> tuple[tuple[SensorRow, ...], str | None]:
        """The sensor rows last sent (or checked) and the fuel level's unit: what a problem
        about a row's path is said of."""
        return (), None

    def show_problems(self, problems: dict[str, str]) -> None:
        """`problems` beside their fields, in words; a time too far ahead said without the
        wire's spelling of it (the models say it with the instant as ISO 8601)."""
        timely = {
            p: TOO_FAR_AHEAD if p in self._times and "future" in m else m
            for p, m in problems.items()
        }
        self.errors.show(problems_in_words(timely, *self.sent_rows()))

    def problem_label(self, path: str, widget: QWidget) -> ErrorLabel:
        """An error label of its own for a rule about a group of fields (`path`)."""
        label = ErrorLabel(self)
        self.errors.register(path, widget, label)
        return label


def _choices(parent: QWidget, name: str, codes: tuple[str, ...], *, editable: bool) -> QComboBox:
    """The codes in words, each carrying its code (`code()` reads it back)."""
    box = QComboBox(parent)
    box.setObjectName(name)
    box.setEditable(editable)
    for value in codes:
        box.addItem(LABELS.get(value) or code_text(value), value)
    return box


class TruckloadForm(_Form):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(TRUCKLOAD_RULES, (EVENT_TIME, READINGS_TIME), parent)
        self.customer = self.text_field("customerAccountNumber", "e.g. the customer's company id")
        self.bill_of_lading = self.text_field("billOfLadingNumber", "e.g. 06141412837092581")
        self.order = self.text_field("orderNumber", "e.g. 4533964024")
        top = QFormLayout()
        self.row(top, "C&ustomer account", "customerAccountNumber", self.customer)
        self.row(top, "&Bill of lading", "truckload.identifiers", self.bill_of_lading)
        self.row(top, "&Order number", "truckload.identifiers.orderNumber", self.order)

        self.event_box = QGroupBox("Shipment eve&nt", self)
        self.event_box.setCheckable(True)
        event_form = QFormLayout(self.event_box)
        self.event_type = _choices(self, "eventType", TRUCKLOAD_EVENTS, editable=True)
        self.event_time, event_now = self.time_field("eventDateTime")
        self.stop_number = self.text_field("stopNumber", "e.g. 1")
        self.row(event_form, "T&ype", "truckload.shipmentEvent.type", self.event_type)
        self.row(event_form, "&When", EVENT_TIME, self.event_time, event_now)
        self.row(event_form, "Stop number", "truckload.shipmentEvent.stopNumber", self.stop_number)

        self.readings_box = QGroupBox("&Readings", self)
        self.readings_box.setCheckable(True)
        self.readings_box.setChecked(False)
        readings = QFormLayout(self.readings_box)
        self.readings_time, readings_now = self.time_field("readingsDateTime")
        self.latitude = self.text_field("latitude", "e.g. 41.88")
        self.longitude = self.text_field("longitude", "e.g. -87.63")
        self.speed = self.text_field("speed")
        self.speed_unit = _choices(self, "speedUnit", tuple(SpeedUnit), editable=False)
        self.heading = self.text_field("heading")
        self.ignition = _choices(self, "ignitionStatus", ("", "ON", "OFF"), editable=True)
        self.temperature = self.text_field("temperature", "e.g. 4.5")
        self.temperature_unit = _choices(
            self, "temperatureUnit", ("CELSIUS", "FAHRENHEIT"), editable=True
        )
        self.fuel = self.text_field("fuelLevel", "e.g. 62")
        self.fuel_unit = _choices(self, "fuelUnit", FUEL_UNITS, editable=True)
        # Made in its holder, after the fuel's fields: the order Tab takes (made in the form,
        # then moved into the holder, the table came before the reading time, and Tab went
        # round the readings without end).
        sensors_holder = QWidget(self)
        self.sensors = SensorTable(sensors_holder)
        self._sent: tuple[tuple[SensorRow, ...], str | None] = ((), None)
        self.row(
            readings,
            "Re&ading time",
            READINGS_TIME,
            self.readings_time,
            readings_now,
        )
        self.row(readings, "&Latitude", "truckload.readings.position.latitude", self.latitude)
        self.row(readings, "Lo&ngitude", "truckload.readings.position.longitude", self.longitude)
        self.row(
            readings,
            "S&peed",
            "truckload.readings.position.speed",
            self.speed,
            self.speed_unit,
            also=("truckload.readings.position.speedUnit",),
        )
        self.row(readings, "Heading", "truckload.readings.position.heading", self.heading)
        self.row(readings, "Ignition", "truckload.readings.sensor.ignitionStatus", self.ignition)
        self.row(
            readings,
            "Temperature",
            "truckload.readings.sensor.ambientTemperature",
            self.temperature,
            self.temperature_unit,
        )
        self.row(
            readings, "Fuel level", "truckload.readings.sensor.fuel", self.fuel, self.fuel_unit
        )
        self._sensor_row(readings, sensors_holder)
        # Position or sensor: a rule of the readings as a whole, said at the top of the box.
        whole = QLabel(TRUCKLOAD_RULES["truckload.readings"], self.readings_box)
        whole.setObjectName("rule")
        whole.setStyleSheet(RULE_STYLE)
        readings.insertRow(0, whole)
        readings.insertRow(1, self.problem_label("truckload.readings", self.latitude))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        both = QLabel(TRUCKLOAD_RULES["truckload"], self)
        both.setObjectName("rule")
        both.setStyleSheet(RULE_STYLE)
        layout.addWidget(both)
        layout.addWidget(self.problem_label("truckload", self.event_box))
        layout.addWidget(self.event_box)
        layout.addWidget(self.readings_box)
        layout.addWidget(self.errors.general)
        layout.addStretch(1)

    def _sensor_row(self, form: QFormLayout, holder: QWidget) -> None:
        """The table of other readings, its rule above it: beside it, the table would have
        half the room its columns need."""
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        hint = QLabel(self._rules[SENSOR], holder)
        hint.setObjectName("rule")
        hint.setWordWrap(True)
        hint.setStyleSheet(RULE_STYLE)
        self.rule_labels[SENSOR] = hint
        column.addWidget(hint)
        column.addWidget(self.sensors)
        self.errors.add_row(form, "More sensors", SENSOR, holder, focus=self.sensors.table)

    def sent_rows(self) -> tuple[tuple[SensorRow, ...], str | None]:
        return self._sent

    def typed(self) -> TruckloadInput:
        level = self.fuel.text().strip()
        self._sent = (self.sensors.readings(), code(self.fuel_unit) if level else None)
        return TruckloadInput(
            customer_account_number=self.customer.text(),
            bill_of_lading_number=self.bill_of_lading.text(),
            order_number=self.order.text(),
            with_event=self.event_box.isChecked(),
            event_type=code(self.event_type),
            event_date_time=iso_text(self.event_time.value()),
            stop_number=self.stop_number.text(),
            with_readings=self.readings_box.isChecked(),
            readings_date_time=iso_text(self.readings_time.value()),
            latitude=self.latitude.text(),
            longitude=self.longitude.text(),
            speed=self.speed.text(),
            heading=self.heading.text(),
            speed_unit=code(self.speed_unit),
            ignition_status=code(self.ignition),
            temperature=self.temperature.text(),
            temperature_unit=code(self.temperature_unit),
            fuel_level=self.fuel.text(),
            fuel_unit=code(self.fuel_unit),
            sensors=self._sent[0],
        )


class ParcelForm(_Form):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(PARCEL_RULES, ("timestamp", ETA), parent)
        self.carrier_type = _choices(self, "carrierType", ("SCAC", "CARRIER_SCAC"), editable=True)
        self.carrier = self.text_field("carrierValue", "e.g. UPSN")
        self.tracking = self.text_field("trackingNumbers", "e.g. 1Z999AA10123456784")
        self.event_type = _choices(self, "parcelEventType", tuple(ParcelEventType), editable=False)
        self.timestamp, stamp_now = self.time_field("timestamp")
        self.description = self.text_field("description")
        self.eta_given = QCheckBox("Send one", self)
        self.eta_given.setObjectName("etaGiven")
        self.eta = UserTimeEdit(self, _tomorrow())
        self.eta.setObjectName(ETA)
        self.eta.setEnabled(False)
        self.eta_given.toggled.connect(self.eta.setEnabled)
        # An ETA event needs one: choosing it ticks the box (unticking it is then refused).
        self.event_type.currentIndexChanged.connect(
            lambda _i: self.eta_given.setChecked(True) if code(self.event_type) == "ETA" else None
        )
        self.latitude = self.text_field("parcelLatitude", "e.g. 33.75")
        self.longitude = self.text_field("parcelLongitude", "e.g. -84.39")
        self.city = self.text_field("city")
        self.state = self.text_field("state")
        self.postal_code = self.text_field("postalCode")
        self.country = self.text_field("country", "US")
        self.customer = self.text_field("parcelCustomerAccountNumber")
        form = QFormLayout()
        self.row(form, "Ca&rrier", "carrierIdentifier", self.carrier, self.carrier_type)
        self.row(form, "&Tracking numbers", "shipmentIdentifiers", self.tracking)
        self.row(form, "Eve&nt", "eventType", self.event_type)
        self.row(form, "&When", "timestamp", self.timestamp, stamp_now)
        self.row(form, "Description", "description", self.description)
        self.row(form, "ET&A", ETA, self.eta, lead=self.eta_given)
        self.row(form, "&Latitude", "location.geoCoordinates.latitude", self.latitude)
        self.row(form, "Lo&ngitude", "location.geoCoordinates.longitude", self.longitude)
        self.row(form, "City, state", "location", self.city, self.state)
        self.row(form, "Postal code, country", "location.address", self.postal_code, self.country)
        self.row(form, "C&ustomer account", "customerAccountNumber", self.customer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(self.errors.general)
        layout.addStretch(1)

    def typed(self) -> ParcelInput:
        return ParcelInput(
            carrier_type=code(self.carrier_type),
            carrier_value=self.carrier.text(),
            tracking_numbers=self.tracking.text(),
            event_type=code(self.event_type),
            timestamp=java_text(self.timestamp.value()),
            description=self.description.text(),
            estimated_time_of_arrival=java_text(self.eta.value())
            if self.eta_given.isChecked()
            else "",
            latitude=self.latitude.text(),
            longitude=self.longitude.text(),
            city=self.city.text(),
            state=self.state.text(),
            postal_code=self.postal_code.text(),
            country=self.country.text(),
            customer_account_number=self.customer.text(),
        )
