"""The volume LTL quote form: origin and destination, pickup and delivery windows, line items
(freight class, dimensions, weight, hazmat details), the service level and accessorials (the
models' codes), the account group."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.account_groups import AccountGroup
from freightdesk.models.rating import FREIGHT_CLASSES
from freightdesk.models.vltl import VLTL_ACCESSORIAL_NAMES, VLTL_SERVICE_CODES, PackingGroup
from freightdesk.ui.panes.vltl.fields import AddressFields, WindowFields
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.forms import ErrorLabel, FieldErrors, plain
from freightdesk.ui.widgets.group_follower import renamed
from freightdesk.ui.widgets.row_table import RowTable, fold_rows, integer, number

ITEMS = "lineItems"
(PIECES, WEIGHT, LENGTH, WIDTH, HEIGHT, CLASS, STACKABLE, TEXT, UN, HAZARD, GROUP, NAME) = range(12)
HEADERS = (
    *("Pieces", "Weight", "Length", "Width", "Height", "Class", "Stackable", "Description"),
    *("UN/NA no.", "Hazard class", "Packing group", "Shipping name"),
)
HAZMAT_COLUMNS = (UN, HAZARD, GROUP, NAME)
NO_LINES = "Fill in at least one line item: its pieces, weight and class"
ITEM_WORDS = {
    "totalPackages": "pieces",
    "totalWeight": "weight",
    "packageDimensions": "dimensions",
    "freightClass": "class",
    "description": "description",
    "hazmatDetail": "hazmat",
}


class QuoteForm(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Get quotes", parent)
        self.errors = FieldErrors(ErrorLabel(self))
        layout = QVBoxLayout(self)
        ends = QHBoxLayout()
        self.ends: dict[str, AddressFields] = {}
        for path, title in (("originAddress", "&Origin"), ("destinationAddress", "&Destination")):
            box = QGroupBox(title.replace("&", ""), self)
            form = QFormLayout(box)
            self.ends[path] = AddressFields(form, self.errors, path, box)
            ends.addWidget(box)
        self.origin, self.destination = self.ends["originAddress"], self.ends["destinationAddress"]
        layout.addLayout(ends)

        form = QFormLayout()
        self.pickup = WindowFields("pickupWindow", self)
        self.pickup.register(self.errors, form, "&Pickup day, from, to")
        self.delivery_wanted = QCheckBox("Deliver&y window", self)
        self.delivery_wanted.setObjectName("deliveryWanted")
        self.delivery = WindowFields("deliveryWindow", self)
        self.delivery.setEnabled(False)
        self.delivery_wanted.toggled.connect(self.delivery.setEnabled)
        form.addRow(self.delivery_wanted)
        self.delivery.register(self.errors, form, "Delivery day, from, to")
        self.weight_unit = QComboBox(self)
        self.weight_unit.setObjectName("weightUnit")
        add_codes(self.weight_unit, ["LB", "KG"])  # "Pounds" shown, LB sent
        self.length_unit = QComboBox(self)
        self.length_unit.setObjectName("lengthUnit")
        add_codes(self.length_unit, ["IN", "CM", "FT", "M"])
        units = QWidget(self)
        row = QHBoxLayout(units)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("weight in", units))
        row.addWidget(self.weight_unit)
        row.addWidget(QLabel("sizes in", units))
        row.addWidget(self.length_unit)
        row.addStretch(1)
        error = self.errors.add_row(form, "&Units", "weightUnit", units, focus=self.weight_unit)
        self.errors.register("lengthUnit", self.length_unit, error)
        layout.addLayout(form)

        self.items = RowTable(
            HEADERS,
            "line item",
            self,
            choices={CLASS: ("", *FREIGHT_CLASSES), GROUP: ("", *(g.value for g in PackingGroup))},
            checks=(STACKABLE,),
            defaults={PIECES: "1"},
            widths={
                PIECES: 56,
                WEIGHT: 70,
                LENGTH: 60,
                WIDTH: 60,
                HEIGHT: 60,
                CLASS: 70,
                STACKABLE: 72,
                UN: 80,
                HAZARD: 90,
                GROUP: 100,
            },
        )
        self.items.setObjectName("lineItems")
        self.items.add_row()  # one line ready to type into
        # The hazmat columns only for hazardous freight: without them the others read whole
        # beside the quotes (the table cut "UN/NA no." at its edge). Unticked, their cells keep
        # what was typed for a tick again, and nothing unseen is sent.
        self.hazmat = QCheckBox("Ha&zardous materials (UN/NA number, class, packing group)", self)
        self.hazmat.setObjectName("hazmat")
        self.hazmat.toggled.connect(self._show_hazmat)
        self._show_hazmat(False)
        items_label = QLabel("&Line items (weight of the whole line; sizes of one piece)", self)
        items_label.setBuddy(self.items.table)
        items_error = ErrorLabel(self)
        self.errors.register(ITEMS, self.items, items_error)
        layout.addWidget(items_label)
        # The line items and the accessorials share the room the fields leave: the table as
        # tall as its lines and one more (at least its least, three lines), the list as tall
        # as all its services; what is left goes under them. At 1920x1080 the one empty line
        # took ~300 px while the list showed 7 of its 15 services behind a scroll bar.
        layout.addWidget(self.items, 1)
        # The table's most, and its buttons, are the whole's most.
        inner = self.items.layout()
        assert inner is not None
        inner.setSizeConstraint(QLayout.SizeConstraint.SetMinAndMaxSize)
        model = self.items.table.model()
        model.rowsInserted.connect(self._fit_items)
        model.rowsRemoved.connect(self._fit_items)
        layout.addWidget(self.hazmat)
        layout.addWidget(items_error)

        more = QFormLayout()
        self.service = QComboBox(self)
        self.service.setObjectName("serviceLevel")
        self.service.addItem("Standard", None)
        for code in VLTL_SERVICE_CODES:
            self.service.addItem(VLTL_ACCESSORIAL_NAMES[code], code)
        self.service.setToolTip("Guaranteed and expedited service need a delivery window")
        self.errors.add_row(more, "&Service", "serviceLevel", self.service)
        self.accessorials = QListWidget(self)
        self.accessorials.setObjectName("accessorialServices")
        # All its services where there is room (seven at 1366x768, behind a scroll bar).
        self.accessorials.setSizeAdjustPolicy(QListWidget.SizeAdjustPolicy.AdjustToContents)
        for code, name in VLTL_ACCESSORIAL_NAMES.items():
            if code in VLTL_SERVICE_CODES:
                continue
            item = QListWidgetItem(f"{name} ({code})", self.accessorials)
            item.setData(Qt.ItemDataRole.UserRole, code)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
        self.errors.add_row(more, "&Accessorials", "accessorialServices", self.accessorials)
        self.group = QComboBox(self)
        self.group.setObjectName("capacityProviderAccountGroup")
        self.group.addItem("All my volume LTL carriers", None)
        self.errors.add_row(more, "Account g&roup", "capacityProviderAccountGroup", self.group)
        more.addRow(self.errors.general)
        layout.addLayout(more)
        layout.addStretch(0)  # the rest, once the line items have theirs
        self._fit_items()
        self.accessorials.setMaximumHeight(self.accessorials.sizeHint().height())
        self.pickup.set_day(date.today() + timedelta(days=1))
        self.delivery.set_day(date.today() + timedelta(days=4))

    def show_groups(
        self, groups: Sequence[AccountGroup], renames: dict[str, str] | None = None
    ) -> None:
        """`groups` to choose from, the chosen one kept (by its new code when `renames`, from
        `renamed_codes`, renames it)."""
        wanted = self.group.currentData()
        if wanted:
            wanted = renamed(str(wanted), renames or {})
        self.group.clear()
        self.group.addItem("All my volume LTL carriers", None)
        for group in groups:
            self.group.addItem(f"{group.code} — {group.name}", group.code)
        self.group.setCurrentIndex(max(0, self.group.findData(wanted)))

    def _fit_items(self) -> None:
        """The line items' most: the header, the lines and one more, and room for a scroll
        bar sideways (the hazmat columns' and a narrow window's)."""
        table = self.items.table
        rows = max(table.rowCount() + 1, 3)
        table.setMaximumHeight(
            table.horizontalHeader().sizeHint().height()
            + rows * table.verticalHeader().defaultSectionSize()
            + table.horizontalScrollBar().sizeHint().height()
            + 2 * table.frameWidth()
        )

    def _show_hazmat(self, shown: bool) -> None:
        for column in HAZMAT_COLUMNS:
            self.items.table.setColumnHidden(column, not shown)

    # --- reading and filling ---------------------------------------------------------------

    def wire(self, problems: dict[str, str]) -> dict[str, Any]:
        """The request as typed; times not written hh:mm, and freight not typed, go to
        `problems`."""
        lines = self.items.filled_rows(range(len(HEADERS)))
        if not lines:  # the models' words name handling units, which this form has none of
            problems[ITEMS] = NO_LINES
        wire: dict[str, Any] = {
            "originAddress": self.origin.wire(),
            "destinationAddress": self.destination.wire(),
            "pickupWindow": self.pickup.wire(problems),
            "weightUnit": code_of(self.weight_unit),
            "lengthUnit": code_of(self.length_unit),
            "lineItems": [self._item(r) for r in lines],
            "accessorialServices": [{"code": code} for code in self.accessorial_codes()],
        }
        if self.delivery_wanted.isChecked():
            wire["deliveryWindow"] = self.delivery.wire(problems)
        if self.group.currentData():
            wire["capacityProviderAccountGroup"] = {"code": self.group.currentData()}
        return wire

    def accessorial_codes(self) -> list[str]:
        """The services ticked, and the service level's code (none for standard)."""
        codes = []
        for row in range(self.accessorials.count()):
            item = self.accessorials.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                codes.append(str(item.data(Qt.ItemDataRole.UserRole)))
        level = self.service.currentData()
        return [*codes, level] if level else codes

    def check_accessorials(self, codes: list[str]) -> None:
        """Tick `codes` (a service code chooses the service level)."""
        self.service.setCurrentIndex(0)
        for code in codes:
            if code in VLTL_SERVICE_CODES:
                self.service.setCurrentIndex(max(0, self.service.findData(code)))
        for row in range(self.accessorials.count()):
            item = self.accessorials.item(row)
            wanted = item.data(Qt.ItemDataRole.UserRole) in codes
            item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)

    def _item(self, row: int) -> dict[str, Any]:
        text = self.items.text
        item: dict[str, Any] = {"stackable": self.items.checked(row, STACKABLE)}
        for key, column, read in (
            ("totalPackages", PIECES, integer),
            ("totalWeight", WEIGHT, number),
            ("freightClass", CLASS, lambda t: t),
            ("description", TEXT, lambda t: t),
        ):
            if text(row, column):
                item[key] = read(text(row, column))
        sizes = [text(row, c) for c in (LENGTH, WIDTH, HEIGHT)]
        if any(sizes):
            item["packageDimensions"] = dict(
                zip(("length", "width", "height"), (number(s) for s in sizes), strict=True)
            )
        hazmat = {
            key: text(row, column)
            for key, column in (
                ("identificationNumber", UN),
                ("hazardClass", HAZARD),
                ("packingGroup", GROUP),
                ("properShippingName", NAME),
            )
            if text(row, column)
        }
        if hazmat and self.hazmat.isChecked():
            item["hazmatDetail"] = hazmat
        return item

    def fill(self, wire: dict[str, Any]) -> None:
        """Put a request back into the form (the cached quotes', at start)."""
        self.origin.fill(wire.get("originAddress") or {})
        self.destination.fill(wire.get("destinationAddress") or {})
        self.pickup.fill(wire.get("pickupWindow"))
        self.delivery_wanted.setChecked("deliveryWindow" in wire)
        self.delivery.fill(wire.get("deliveryWindow"))
        choose_code(self.weight_unit, str(wire.get("weightUnit") or "LB"))
        choose_code(self.length_unit, str(wire.get("lengthUnit") or "IN"))
        self.items.clear()
        for item in wire.get("lineItems") or []:
            dims = item.get("packageDimensions") or {}
            hazmat = item.get("hazmatDetail") or {}
            values: list[str | bool] = [
                _text(item.get("totalPackages")),
                _text(item.get("totalWeight")),
                *(_text(dims.get(k)) for k in ("length", "width", "height")),
                _text(item.get("freightClass")),
                bool(item.get("stackable")),
                _text(item.get("description")),
                *(
                    _text(hazmat.get(k))
                    for k in (
                        "identificationNumber",
                        "hazardClass",
                        "packingGroup",
                        "properShippingName",
                    )
                ),
            ]
            self.items.add_row(values)
        if not self.items.rows():
            self.items.add_row()
        self.hazmat.setChecked(
            any(self.items.text(r, c) for r in range(self.items.rows()) for c in HAZMAT_COLUMNS)
        )
        self.check_accessorials([a.get("code", "") for a in wire.get("accessorialServices") or []])
        group = (wire.get("capacityProviderAccountGroup") or {}).get("code")
        if group and self.group.findData(group) < 0:
            self.group.addItem(group, group)
        self.group.setCurrentIndex(max(0, self.group.findData(group)))

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        shown = fold_rows(plain(problems), {ITEMS: (ITEMS, ITEM_WORDS)})
        self.errors.show(shown, general=general)


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
