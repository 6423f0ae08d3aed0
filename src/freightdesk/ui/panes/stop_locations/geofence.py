"""The geofence inputs (on or off, type, units, value), used by the stop location form and by
the map picker, which draws the fence while the user edits it.

The widgets are made here and laid out by each user (the form puts an error label under each
one; the picker puts them on one line), so both offer the same choices with the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QWidget

from freightdesk.models.stop_locations import GEOFENCE_UNITS, GeofenceType

DEFAULT_UNITS = {GeofenceType.TIME: "MINUTES", GeofenceType.DISTANCE: "MILES"}
DEFAULT_VALUE = 15.0


@dataclass(frozen=True)
class FenceChoice:
    """A geofence as chosen in the inputs: the wire's `type`, `units` and `value`."""

    type: str
    units: str
    value: float


class GeofenceInputs(QObject):
    """The four inputs of a geofence; `changed` tells of every edit, programmatic or not,
    once per edit (refilling the units for another type is one change)."""

    changed = Signal()

    def __init__(self, parent: QWidget, *, use_text: str = "Use a &geofence around this location"):
        super().__init__(parent)
        self.use = QCheckBox(use_text, parent)
        self.use.setObjectName("useGeofence")
        self.type = QComboBox(parent)
        self.type.setObjectName("geofenceType")
        self.type.addItem("Travel time", GeofenceType.TIME.value)
        self.type.addItem("Distance", GeofenceType.DISTANCE.value)
        self.units = QComboBox(parent)
        self.units.setObjectName("geofenceUnits")
        self.value = QDoubleSpinBox(parent)
        self.value.setObjectName("geofenceValue")
        self.value.setRange(0, 1_000_000)
        self.value.setDecimals(2)
        self.value.setValue(DEFAULT_VALUE)
        self._filling = False
        # The unit last chosen for each type, given back when the user returns to that type.
        self._units_of: dict[GeofenceType, str] = {}
        self._units_type: GeofenceType | None = None
        self.fill_units()
        self._enable(False)
        self.type.currentIndexChanged.connect(self.fill_units)
        self.use.toggled.connect(self._enable)
        self.use.toggled.connect(self._changed)
        self.units.currentIndexChanged.connect(self._changed)
        self.value.valueChanged.connect(self._changed)

    def fill_units(self, *_args: object) -> None:
        """The units of the chosen type: the one last chosen for it, else the current unit if
        it fits the type, else the type's default."""
        kind = GeofenceType(str(self.type.currentData()))
        current = self.units.currentData()
        if self._units_type is not None and current is not None:
            self._units_of[self._units_type] = str(current)
        current = self._units_of.get(kind, current)
        self._units_type = kind
        self._filling = True
        try:
            self.units.clear()
            for unit in GEOFENCE_UNITS[kind]:
                self.units.addItem(unit.value.title(), unit.value)
            index = self.units.findData(current)
            self.units.setCurrentIndex(
                index if index >= 0 else self.units.findData(DEFAULT_UNITS[kind])
            )
        finally:
            self._filling = False
        self.changed.emit()

    def _enable(self, on: bool) -> None:
        for widget in (self.type, self.units, self.value):
            widget.setEnabled(on)

    def _changed(self, *_args: object) -> None:
        if not self._filling:
            self.changed.emit()

    def choice(self) -> FenceChoice | None:
        """The fence as chosen, or None when the location has none."""
        if not self.use.isChecked():
            return None
        return FenceChoice(
            str(self.type.currentData()), str(self.units.currentData()), self.value.value()
        )

    def set_choice(self, choice: FenceChoice | None) -> None:
        """Show `choice` (None: no fence; the other inputs keep their values)."""
        self.use.setChecked(choice is not None)
        if choice is None:
            return
        self.type.setCurrentIndex(max(0, self.type.findData(choice.type)))
        self.fill_units()
        self.units.setCurrentIndex(max(0, self.units.findData(choice.units)))
        self.value.setValue(choice.value)
