"""The sensor's other readings of a truckload update (a reefer's, a tire's, a zone's), one a
row: the reading chosen in words, the zone or tire it is of, its value and its unit, so that
no one writes the wire's JSON. The rows go on the wire by `service.carrier_push.sensor_wire`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QTableWidgetItem, QWidget

from freightdesk.models.code_words import code_text
from freightdesk.models.push import SENSOR_READINGS
from freightdesk.service.carrier_push import SensorRow
from freightdesk.ui.widgets.code_combo import add_codes, choose_code
from freightdesk.ui.widgets.row_table import RowTable

READING, OF, VALUE, UNIT = range(4)
HEADERS = ("Reading", "Zone or tire", "Value", "Unit")
FIRST = next(iter(SENSOR_READINGS))


def reading_text(key: str) -> str:
    """A reading as the table says it ("Zone humidity"); any other code in words."""
    reading = SENSOR_READINGS.get(key)
    return reading.words if reading is not None else code_text(key)


class SensorTable(RowTable):
    """Readings one a row; the unit cell follows the reading: a choice of units (a zone's
    temperatures, the fuel's capacity), the one unit it is read in ("psi"), or none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            HEADERS,
            "reading",
            parent,
            choices={READING: tuple(SENSOR_READINGS)},
            defaults={READING: FIRST},
            widths={READING: 230, OF: 100, VALUE: 90},
            label=reading_text,
        )
        self.table.setObjectName("sensorReadings")
        self.add_button.setObjectName("addSensorReading")
        self.add_button.setText("Add a reading")
        self.remove_button.setObjectName("removeSensorReading")

    def add_row(self, values: Sequence[str | bool] = (), *, focus: bool = False) -> int:
        row = super().add_row(values, focus=focus)
        box = self.table.cellWidget(row, READING)
        assert isinstance(box, QComboBox)
        unit = str(values[UNIT]) if len(values) > UNIT else ""
        self._unit_for(row, unit)
        box.currentIndexChanged.connect(lambda _i: self._unit_for(self._row_of(box), ""))
        return row

    def _row_of(self, widget: QWidget) -> int:
        return next(r for r in range(self.rows()) if self.table.cellWidget(r, READING) is widget)

    def _unit_for(self, row: int, unit: str) -> None:
        """The unit cell of `row` as its reading has it; `unit` chosen if it has a choice."""
        reading = SENSOR_READINGS[self.text(row, READING)]
        self.table.removeCellWidget(row, UNIT)
        if reading.chosen:
            box = QComboBox(self.table)
            add_codes(box, reading.chosen)
            if unit:
                choose_code(box, unit)
            box.currentTextChanged.connect(lambda _t: self.changed.emit())
            self.table.setItem(row, UNIT, QTableWidgetItem())
            self.table.setCellWidget(row, UNIT, box)
        else:
            item = QTableWidgetItem(reading.fixed)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(row, UNIT, item)
        self.changed.emit()

    def readings(self) -> tuple[SensorRow, ...]:
        """The rows typed into (a row added and left empty is not sent)."""
        found = []
        for row in self.filled_rows((OF, VALUE)):
            key = self.text(row, READING)
            chosen = SENSOR_READINGS[key].chosen
            found.append(
                SensorRow(
                    key,
                    of=self.text(row, OF),
                    value=self.text(row, VALUE),
                    unit=self.text(row, UNIT) if chosen else "",
                )
            )
        return tuple(found)
