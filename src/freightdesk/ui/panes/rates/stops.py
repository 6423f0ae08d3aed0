"""One stop of a rate request: a saved stop location, or an address typed and validated."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
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

from freightdesk.models.addresses import AddressInput
from freightdesk.models.common import Address, GeoCoordinates
from freightdesk.models.rating import RateStop
from freightdesk.models.stop_locations import StopLocation
from freightdesk.service.errors import BadRequest
from freightdesk.service.messages import explain
from freightdesk.service.rating import RatingService
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.address_check import address_checked
from freightdesk.ui.widgets.forms import FieldErrors

SEARCH_DEBOUNCE_MS = 300
TYPED = ""  # the combo entry meaning "an address typed here"


class StopEditor(QGroupBox):
    """Registers its fields with `errors` under `<path>.name`, `<path>.address.city`, ...,
    where `path` is the stop's location path in the request."""

    changed = Signal()

    def __init__(
        self,
        title: str,
        path: str,
        errors: FieldErrors,
        service: RatingService | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(title, parent)
        self.path = path
        self.service = service
        self.location: StopLocation | None = None  # the saved location picked, if any
        # Where the stop is exactly, when known (a saved location's, or an earlier request's);
        # dropped as soon as the address is changed by hand.
        self.coordinates: GeoCoordinates | None = None
        self.suggested: Address | None = None
        self._filling = False

        self.finder = QLineEdit(self)
        self.finder.setPlaceholderText("Find a saved location: name, city or postal code")
        self.finder.setClearButtonEnabled(True)
        self.saved = QComboBox(self)
        self.saved.setObjectName("savedLocation")
        self.saved.addItem("Type an address below", TYPED)
        self.saved.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.saved.setMinimumContentsLength(20)
        # The search above the list it fills, both as wide as the address fields.
        picker = QVBoxLayout()
        picker.setContentsMargins(0, 0, 0, 0)
        picker.setSpacing(4)
        picker.addWidget(self.finder)
        picker.addWidget(self.saved)
        holder = QWidget(self)
        holder.setLayout(picker)

        self.name = QLineEdit(self)
        self.name.setPlaceholderText("e.g. Chicago DC (optional)")
        self.street = QLineEdit(self)
        self.street.setPlaceholderText("Street and number (optional)")
        self.city = QLineEdit(self)
        self.state = QLineEdit(self)
        self.state.setPlaceholderText("e.g. IL, ON, Jalisco")
        self.postal_code = QLineEdit(self)
        self.country = QLineEdit("US", self)
        self.country.setPlaceholderText("ISO code such as US, CA, MX")
        self.validate_button = QPushButton("&Validate address", self)
        self.validation = QLabel(self)
        self.validation.setWordWrap(True)
        self.use_button = QPushButton("Use the suggested address", self)
        self.use_button.setVisible(False)
        check = QHBoxLayout()
        check.setContentsMargins(0, 0, 0, 0)
        check.addWidget(self.validate_button)
        check.addWidget(self.validation, 1)
        check.addWidget(self.use_button)
        checker = QWidget(self)
        checker.setLayout(check)

        form = QFormLayout(self)
        self.error_labels = [
            errors.add_row(form, "Saved location", path, holder),
            errors.add_row(form, "Name", f"{path}.name", self.name),
            errors.add_row(form, "Street", f"{path}.address.addressLines", self.street),
            errors.add_row(form, "City", f"{path}.address.city", self.city),
            errors.add_row(form, "State", f"{path}.address.state", self.state),
            errors.add_row(form, "Postal code", f"{path}.address.postalCode", self.postal_code),
            errors.add_row(form, "Country", f"{path}.address.country", self.country),
        ]
        self.city_error = self.error_labels[3]
        form.addRow(checker)
        errors.register(f"{path}.address", self.city, self.city_error)
        self.errors = errors

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._timer.timeout.connect(self.search)
        self.finder.textEdited.connect(lambda _t: self._timer.start())
        # Return searches; it must not reach the dialog, whose default button sends the form.
        self.finder.installEventFilter(self)
        self.saved.activated.connect(self._picked)
        for edit in (self.street, self.city, self.state, self.postal_code, self.country):
            edit.textEdited.connect(self._address_typed)
        self.name.textEdited.connect(lambda _t: self.changed.emit())
        self.validate_button.clicked.connect(self.validate)
        self.use_button.clicked.connect(self.use_suggestion)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if (
            watched is self.finder
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            self.search()
            return True
        return super().eventFilter(watched, event)

    # --- saved locations -------------------------------------------------------------------

    def search(self) -> None:
        self._timer.stop()
        if self.service is None:
            return
        query = self.finder.text().strip()
        spawn(
            self.service.saved_locations(query),
            on_done=self.show_locations,
            on_error=lambda error: self.validation.setText(explain(error)),
            name="saved-locations",
            owner=self,
        )

    def show_locations(self, locations: list[StopLocation]) -> None:
        chosen = self.location
        self.saved.blockSignals(True)
        self.saved.clear()
        self.saved.addItem("Type an address below", TYPED)
        for location in locations:
            place = ", ".join(p for p in (location.address.city, location.address.state) if p)
            self.saved.addItem(f"{location.name} — {place}" if place else location.name, location)
        if chosen is not None:
            index = next(
                (i for i in range(1, self.saved.count()) if self.saved.itemData(i) == chosen), -1
            )
            if index < 0:
                self.saved.addItem(chosen.name, chosen)
                index = self.saved.count() - 1
            self.saved.setCurrentIndex(index)
        self.saved.blockSignals(False)

    def _picked(self, index: int) -> None:
        data = self.saved.itemData(index)
        self.pick(data if isinstance(data, StopLocation) else None)

    def pick(self, location: StopLocation | None) -> None:
        """Fill the stop from a saved location (None: keep the typed address)."""
        self.location = location
        if location is not None:
            self._clear_errors()
            self.coordinates = location.coordinates
            self._filling = True
            self.name.setText(location.name)
            self._fill_address(location.address)
            self._filling = False
            self.validation.setText(f"From the saved location {location.name}.")
            self.use_button.setVisible(False)
        self.changed.emit()

    def _address_typed(self, _text: str) -> None:
        if self._filling:
            return
        self.coordinates = None  # they would no longer match the address
        self._clear_errors()
        if self.location is not None:
            self.location = None
            self.saved.setCurrentIndex(0)
            self.validation.clear()
        self.changed.emit()

    def _clear_errors(self) -> None:
        """The stop's problems were about what it held before; the next check says anew."""
        for label in self.error_labels:
            label.show_message(None)

    def _fill_address(self, address: Address) -> None:
        self.street.setText(", ".join(address.address_lines))
        self.city.setText(address.city or "")
        self.state.setText(address.state or "")
        self.postal_code.setText(address.postal_code or "")
        self.country.setText(address.country or "US")

    # --- validation ------------------------------------------------------------------------

    def address_wire(self) -> dict[str, Any]:
        street = self.street.text().strip()
        return {
            "addressLines": [street] if street else [],
            "city": self.city.text().strip() or None,
            "state": self.state.text().strip() or None,
            "postalCode": self.postal_code.text().strip() or None,
            "country": self.country.text().strip() or "US",
        }

    def validate(self) -> None:
        if self.service is None:
            self.validation.setText("Validating needs a connection to the service.")
            return
        try:
            address = AddressInput.model_validate(self.address_wire())
        except ValueError as exc:
            self.validation.setText(str(exc))
            return
        self.validate_button.setEnabled(False)
        self.validation.setText("Checking…")
        self.use_button.setVisible(False)

        def done(normal: Address) -> None:
            self.validate_button.setEnabled(True)
            text, self.suggested = address_checked(normal, self.address_wire())
            self.validation.setText(text)
            self.use_button.setVisible(self.suggested is not None)

        def failed(error: BaseException) -> None:
            self.validate_button.setEnabled(True)
            if isinstance(error, BadRequest):
                self.validation.setText("The address cannot be valid as entered.")
                self.errors.show(
                    {f"{self.path}.address.{k}": v for k, v in error.field_errors().items()}
                )
            else:
                self.validation.setText(explain(error))

        spawn(
            self.service.validate_address(address),
            on_done=done,
            on_error=failed,
            name="validate-stop",
            owner=self,
        )

    def use_suggestion(self) -> None:
        if self.suggested is None:
            return
        self._filling = True
        self._fill_address(self.suggested)
        self._filling = False
        self.location = None
        self.coordinates = None
        self.use_button.setVisible(False)
        self.validation.setText("✓ Using the suggested address.")
        self.changed.emit()

    # --- the wire --------------------------------------------------------------------------

    def location_wire(self) -> dict[str, Any]:
        """The stop's `location` as the request sends it."""
        wire: dict[str, Any] = {"address": self.address_wire()}
        name = self.name.text().strip()
        if name:
            wire["name"] = name
        if self.coordinates is not None:
            wire["coordinates"] = self.coordinates.wire()
        return wire

    def load(self, stop: RateStop | None) -> None:
        """Fill from a stop of an earlier request (to ask again), or clear."""
        self.location = None
        self.saved.setCurrentIndex(0)
        self._filling = True
        location = stop.location if stop else None
        self.coordinates = location.coordinates if location else None
        self.name.setText(location.name or "" if location else "")
        self._fill_address(location.address if location and location.address else Address())
        self._filling = False
        self.validation.clear()
        self.use_button.setVisible(False)
