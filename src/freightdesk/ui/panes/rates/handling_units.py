"""The rate request form's handling units: one editable row per line of units, read from a
request asked again and written as the wire's `handlingUnits`."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from freightdesk.models.code_words import code_text
from freightdesk.models.rating import FREIGHT_CLASSES, HandlingUnit
from freightdesk.ui.widgets.row_table import RowTable, integer, number

UNITS = "rateDetail.shipmentDetails[0].handlingUnits"
UNIT_TYPES = ("PALLET", "SKID", "CRATE", "BOX", "CARTON", "DRUM", "BAG", "ROLL", "")
(QTY, KIND, WEIGHT, WEIGHT_UNIT, LENGTH, WIDTH, HEIGHT, SIZE_UNIT, CLASS, STACKABLE, TEXT) = range(
    11
)
UNIT_ROOM = 36  # a unit's combo box beside its name: its frame and arrow
# A problem of a unit's field, as the row's column names it.
UNIT_WORDS = {
    "quantity": "quantity",
    "handlingUnitType": "type",
    "weight": "weight",
    "dimensions": "dimensions",
    "freightClass": "class",
    "description": "description",
}


def handling_unit_table(parent: QWidget) -> RowTable:
    table = RowTable(
        ["Qty", "Type", "Weight", "Unit", "Length", "Width", "Height", "Unit", "Class",
         "Stackable", "Description"],
        "handling unit",
        parent,
        choices={
            KIND: UNIT_TYPES,
            WEIGHT_UNIT: ("LB", "KG"),
            SIZE_UNIT: ("IN", "CM", "FT", "M"),
            CLASS: ("", *FREIGHT_CLASSES),
        },
        checks=(STACKABLE,),
        defaults={QTY: "1", KIND: "PALLET", WEIGHT_UNIT: "LB", SIZE_UNIT: "IN"},
        label=code_text,  # "Pallet" shown, PALLET sent; "Pounds" shown, LB sent
    )  # fmt: skip
    table.setObjectName("handlingUnits")
    for column, width in ((QTY, 50), (WEIGHT, 80), (LENGTH, 64), (WIDTH, 64), (HEIGHT, 64),
                          (CLASS, 70), (STACKABLE, 76)):  # fmt: skip
        table.table.setColumnWidth(column, width)
    # A unit's longest name ("Centimeters") and its combo box's arrow.
    metrics = table.table.fontMetrics()
    for column in (WEIGHT_UNIT, SIZE_UNIT):
        names = [code_text(u) for u in table.choices[column]]
        widest = max(metrics.horizontalAdvance(n) for n in names)
        table.table.setColumnWidth(column, widest + UNIT_ROOM)
    return table


def unit_cells(unit: HandlingUnit) -> list[str | bool]:
    """A line of units as the table's row shows it."""
    dims = unit.dimensions
    return [
        str(unit.quantity),
        unit.handling_unit_type or "",
        _figure(unit.weight.value) if unit.weight else "",
        unit.weight.unit.value if unit.weight else "",
        _figure(dims.length) if dims else "",
        _figure(dims.width) if dims else "",
        _figure(dims.height) if dims else "",
        dims.unit.value if dims else "",
        unit.freight_class or "",
        unit.stackable,
        unit.description or "",
    ]


def unit_wires(table: RowTable) -> list[dict[str, Any]]:
    """The filled rows as the wire's handling units."""
    return [_unit(table, row) for row in table.filled_rows([QTY, WEIGHT, LENGTH, TEXT])]


def _unit(table: RowTable, row: int) -> dict[str, Any]:
    text = table.text
    unit: dict[str, Any] = {
        "quantity": integer(text(row, QTY)) if text(row, QTY) else 1,
        "stackable": table.checked(row, STACKABLE),
    }
    if text(row, KIND):
        unit["handlingUnitType"] = text(row, KIND)
    if text(row, WEIGHT):
        unit["weight"] = {"value": number(text(row, WEIGHT)), "unit": text(row, WEIGHT_UNIT)}
    sizes = [text(row, c) for c in (LENGTH, WIDTH, HEIGHT)]
    if any(sizes):
        unit["dimensions"] = {
            "length": number(sizes[0]),
            "width": number(sizes[1]),
            "height": number(sizes[2]),
            "unit": text(row, SIZE_UNIT),
        }
    if text(row, CLASS):
        unit["freightClass"] = text(row, CLASS)
    if text(row, TEXT):
        unit["description"] = text(row, TEXT)
    return unit


def _figure(value: float) -> str:
    return f"{value:g}"
