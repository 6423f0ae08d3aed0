"""The package form: items with their order identifiers and quantities, the package's
identifiers, type, dimensions, volume, weight, stackable, accessorials, where it goes, and on
edit its status (only the moves the workflow allows are offered)."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text, words
from freightdesk.models.package_rules import NEXT_STATUSES
from freightdesk.models.packaging import (
    AccessorialType,
    LiftgateStop,
    Package,
    PackageStatus,
    PackingGroup,
    TemperatureUnit,
)
from freightdesk.service.packages import as_write, check_package
from freightdesk.service.session import AppSession
from freightdesk.ui.widgets.code_combo import add_codes, choose_code, code_of
from freightdesk.ui.widgets.forms import ErrorLabel, plain
from freightdesk.ui.widgets.identifiers import IdentifierTable
from freightdesk.ui.widgets.row_table import RowTable, fold_rows, integer, number
from freightdesk.ui.widgets.tabbed_form import TabbedFormDialog

IDENTIFIER_TYPES = ("DELIVERY_NUMBER", "OLPN", "PURCHASE_ORDER", "SALES_ORDER",
                    "REFERENCE_NUMBER", "CUSTOMER_REFERENCE", "EXTERNAL")  # fmt: skip
ORDER_TYPES = ("PURCHASE_ORDER", "SALES_ORDER", "DELIVERY_NUMBER", "")
PACKAGE_TYPES = ("PALLET", "BAG", "BOX", "CARTON", "CRATE", "DRUM", "TOTE", "ROLL", "")
ORDER_TYPE, ORDER_VALUE, QUANTITY, ITEM_IDS = range(4)
ITEM_WORDS = {"orderIdentifier": "order", "unitQuantity": "quantity", "identifiers": "identifiers"}
TABS = {"contents": 0, "package": 1, "places": 2}
_ACCESSORIAL = re.compile(r"^accessorials\[(\d+)\](.*)$")
_PAIR = re.compile(r"\s*([^=;]+?)\s*=\s*([^;]+?)\s*(?:;|$)")


def item_identifiers_text(identifiers: list[tuple[str, str]]) -> str:
    """[("SKU", "A-1"), ("UPC", "0123")] -> "SKU=A-1; UPC=0123"."""
    return "; ".join(f"{kind}={value}" for kind, value in identifiers)


def parse_item_identifiers(text: str) -> list[dict[str, str]] | str:
    """ "SKU=A-1; UPC=0123" -> identifiers; a value without a type is taken as a SKU. The text
    itself when it cannot be read (the check then names the field)."""
    found = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        match = _PAIR.fullmatch(part)
        if match is None:
            if "=" in part:
                return text
            found.append({"type": "SKU", "value": part})
        else:
            found.append({"type": match.group(1).upper(), "value": match.group(2)})
    return found


def _tab_of(path: str) -> int:
    if path.startswith(("package", "isStackable", "accessorials")):
        return TABS["package"]
    if path.startswith(("originLocation", "destinationLocation")):
        return TABS["places"]
    return TABS["contents"]


class PlaceEditor(QGroupBox):
    """Where the package comes from or goes: a name and an address."""

    FIELDS = (("name", "Name"), ("city", "City"), ("state", "State"),
              ("postalCode", "Postal code"), ("country", "Country"))  # fmt: skip

    def __init__(self, title: str, path: str, form: PackageFormDialog) -> None:
        super().__init__(title, form)
        self.path = path
        self.edits: dict[str, QLineEdit] = {}
        labels: dict[str, ErrorLabel] = {}
        layout = QFormLayout(self)
        for field, label in self.FIELDS:
            edit = QLineEdit(self)
            edit.setObjectName(f"{path}.{field}")
            self.edits[field] = edit
            name = f"{path}.name" if field == "name" else f"{path}.address.{field}"
            labels[field] = form.errors.add_row(layout, label, name, edit)
        self.edits["country"].setPlaceholderText("ISO code such as US, CA, MX")
        # The place as a whole (e.g. "give a city or a postal code"): said under its city.
        form.errors.register(path, self.edits["city"], labels["city"])
        self.kept: dict[str, Any] = {}  # fields the form does not show, sent back as they were

    def load(self, wire: dict[str, Any] | None) -> None:
        location = dict(wire or {})
        address = location.pop("address", None) or {}
        self.edits["name"].setText(str(location.pop("name", "") or ""))
        for field in ("city", "state", "postalCode", "country"):
            self.edits[field].setText(str(address.get(field) or ""))
        lines = address.get("addressLines") or []
        self.kept = {**location, **({"addressLines": lines} if lines else {})}

    def wire(self) -> dict[str, Any] | None:
        text = {k: e.text().strip() for k, e in self.edits.items()}
        location: dict[str, Any] = {k: v for k, v in self.kept.items() if k != "addressLines"}
        address = {k: text[k] for k in ("city", "state", "postalCode", "country") if text[k]}
        if address or self.kept.get("addressLines"):
            address.setdefault("country", "US")
            location["address"] = {"addressLines": self.kept.get("addressLines", []), **address}
        if text["name"]:
            location["name"] = text["name"]
        return location or None


class PackageFormDialog(TabbedFormDialog):
    discard_text = "Discard your changes to this package?"

    def __init__(
        self, session: AppSession, package: Package | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(session, parent)
        self.setObjectName("packageForm")
        self.package = package
        self.accessorial_order: list[AccessorialType] = []
        first = package.identifiers[0].value if package and package.identifiers else ""
        self.setWindowTitle(f"Edit package {first}" if package else "New package")
        self.setMinimumSize(780, 560)
        self.build(
            [
                (self._contents_tab, "&Contents"),
                (self._package_tab, "&Package"),
                (self._places_tab, "&Origin and destination"),
            ]
        )
        self.load(package)
        self._watch_changes()

    # --- building --------------------------------------------------------------------------

    def _contents_tab(self) -> QWidget:
        tab = QWidget(self)
        self.identifiers = IdentifierTable(IDENTIFIER_TYPES, tab, label=code_text)
        self.identifiers.setObjectName("identifiers")
        self.items = RowTable(
            ["Order id type", "Order id", "Quantity", "Item identifiers (e.g. SKU=A-1; UPC=0123)"],
            "item",
            tab,
            choices={ORDER_TYPE: ORDER_TYPES},
            defaults={ORDER_TYPE: "PURCHASE_ORDER", QUANTITY: "1"},
            label=code_text,
        )
        self.items.setObjectName("items")
        self.items.table.setColumnWidth(ORDER_TYPE, 160)
        self.items.table.setColumnWidth(ORDER_VALUE, 140)
        self.items.table.setColumnWidth(QUANTITY, 80)
        self.status = QComboBox(tab)
        self.status.setObjectName("status")
        form = QFormLayout(tab)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self.errors.add_row(form, "Package &identifiers (at least one)", "identifiers",
                            self.identifiers)  # fmt: skip
        self.errors.add_row(form, "I&tems (at least one)", "items", self.items)
        self.errors.add_row(form, "&Status", "status", self.status)
        return tab

    def _package_tab(self) -> QWidget:
        tab = QWidget(self)
        self.package_type = QComboBox(tab)
        self.package_type.setObjectName("packageType")
        self.package_type.setEditable(True)
        add_codes(self.package_type, [t for t in PACKAGE_TYPES if t])
        self.lengths = [QLineEdit(tab) for _ in range(3)]
        for edit, hint in zip(self.lengths, ("length", "width", "height"), strict=True):
            edit.setPlaceholderText(hint)
            edit.setObjectName(hint)
        self.length_unit = QComboBox(tab)
        add_codes(self.length_unit, ["IN", "CM", "FT", "M"])
        dims = QHBoxLayout()
        dims.setContentsMargins(0, 0, 0, 0)
        for edit in self.lengths:
            dims.addWidget(edit)
        dims.addWidget(self.length_unit)
        dims_holder = QWidget(tab)
        dims_holder.setLayout(dims)
        self.volume = QLineEdit(tab)
        self.volume.setObjectName("volume")
        self.volume.setPlaceholderText("cubic feet")
        self.weight = QLineEdit(tab)
        self.weight.setObjectName("weight")
        self.weight_unit = QComboBox(tab)
        add_codes(self.weight_unit, ["LB", "KG"])  # "Pounds" shown, LB sent
        weight = QHBoxLayout()
        weight.setContentsMargins(0, 0, 0, 0)
        weight.addWidget(self.weight, 1)
        weight.addWidget(self.weight_unit)
        weight_holder = QWidget(tab)
        weight_holder.setLayout(weight)
        self.stackable = QCheckBox("Other freight may be stacked on it", tab)
        self.stackable.setObjectName("isStackable")
        form = QFormLayout()
        type_error = self.errors.add_row(form, "T&ype", "package.type", self.package_type)
        error = self.errors.add_row(form, "&Dimensions", "package.dimensions", dims_holder)
        for name, edit in zip(("length", "width", "height"), self.lengths, strict=True):
            self.errors.register(f"package.dimensions.{name}", edit, error)
        self.errors.add_row(form, "&Volume (cubic feet)", "package.volume", self.volume)
        self.errors.add_row(form, "&Weight", "package.weight", weight_holder)
        self.errors.add_row(form, "Stac&kable", "isStackable", self.stackable)
        self.errors.register("package", self.package_type, type_error)

        box = QGroupBox("Accessorials", tab)
        grid = QGridLayout(box)
        self.refrigerated = QCheckBox("&Refrigerated", box)
        self.refrigerated.setObjectName("refrigerated")
        self.temperature_min = QLineEdit(box)
        self.temperature_min.setPlaceholderText("minimum")
        self.temperature_max = QLineEdit(box)
        self.temperature_max.setPlaceholderText("maximum")
        self.temperature_unit = QComboBox(box)
        for unit in TemperatureUnit:
            self.temperature_unit.addItem(words(unit.value), unit.value)
        self.liftgate = QCheckBox("&Liftgate", box)
        self.liftgate.setObjectName("liftgate")
        self.liftgate_stop = QComboBox(box)
        self.liftgate_stop.addItem("at any stop", None)
        for stop in LiftgateStop:
            self.liftgate_stop.addItem(f"at {stop.value.lower()}", stop.value)
        self.hazmat = QCheckBox("&Hazardous materials", box)
        self.hazmat.setObjectName("hazmat")
        self.un_number = QLineEdit(box)
        self.un_number.setPlaceholderText("UN or NA number, e.g. UN1203")
        self.hazard_class = QLineEdit(box)
        self.hazard_class.setPlaceholderText("class, e.g. 3")
        self.packing_group = QComboBox(box)
        self.packing_group.addItem("no packing group", None)
        for group in PackingGroup:
            self.packing_group.addItem(f"packing group {group.value}", group.value)
        self.shipping_name = QLineEdit(box)
        self.shipping_name.setPlaceholderText("proper shipping name, e.g. Gasoline")
        self.accessorial_error = {t: ErrorLabel(box) for t in AccessorialType}
        grid.addWidget(self.refrigerated, 0, 0)
        grid.addWidget(self.temperature_min, 0, 1)
        grid.addWidget(self.temperature_max, 0, 2)
        grid.addWidget(self.temperature_unit, 0, 3)
        grid.addWidget(self.accessorial_error[AccessorialType.REFRIGERATED], 1, 1, 1, 3)
        grid.addWidget(self.liftgate, 2, 0)
        grid.addWidget(self.liftgate_stop, 2, 1)
        grid.addWidget(self.accessorial_error[AccessorialType.LIFTGATE], 3, 1, 1, 3)
        grid.addWidget(self.hazmat, 4, 0)
        grid.addWidget(self.un_number, 4, 1)
        grid.addWidget(self.hazard_class, 4, 2)
        grid.addWidget(self.packing_group, 4, 3)
        grid.addWidget(self.shipping_name, 5, 1, 1, 3)
        grid.addWidget(self.accessorial_error[AccessorialType.HAZMAT], 6, 1, 1, 3)
        for kind, widget in (
            (AccessorialType.REFRIGERATED, self.refrigerated),
            (AccessorialType.LIFTGATE, self.liftgate),
            (AccessorialType.HAZMAT, self.hazmat),
        ):
            self.errors.register(f"accessorials.{kind.value}", widget, self.accessorial_error[kind])
        # The list as a whole (e.g. a type given twice): under the boxes, not over a corner.
        general_error = ErrorLabel(box)
        grid.addWidget(general_error, 7, 0, 1, 4)
        self.errors.register("accessorials", self.refrigerated, general_error)
        layout = QVBoxLayout(tab)
        layout.addLayout(form)
        layout.addWidget(box)
        layout.addStretch(1)
        for check in (self.refrigerated, self.liftgate, self.hazmat):
            check.toggled.connect(self._accessorials_enabled)
        return tab

    def _places_tab(self) -> QWidget:
        tab = QWidget(self)
        note = QLabel(
            "Where the related orders pick up and deliver: package searches find packages by "
            "these places.",
            tab,
        )
        note.setWordWrap(True)
        self.origin = PlaceEditor("Origin", "originLocation", self)
        self.destination = PlaceEditor("Destination", "destinationLocation", self)
        places = QHBoxLayout()
        places.addWidget(self.origin)
        places.addWidget(self.destination)
        layout = QVBoxLayout(tab)
        layout.addWidget(note)
        layout.addLayout(places)
        layout.addStretch(1)
        return tab

    def _accessorials_enabled(self, *_args: object) -> None:
        on = self.refrigerated.isChecked()
        for widget in (self.temperature_min, self.temperature_max, self.temperature_unit):
            widget.setEnabled(on)
        self.liftgate_stop.setEnabled(self.liftgate.isChecked())
        on = self.hazmat.isChecked()
        for hazmat_widget in (
            self.un_number, self.hazard_class, self.packing_group, self.shipping_name,
        ):  # fmt: skip
            hazmat_widget.setEnabled(on)

    def _watch_changes(self) -> None:
        edits = [*self.lengths, self.volume, self.weight, self.temperature_min,
                 self.temperature_max, self.un_number, self.hazard_class, self.shipping_name,
                 *self.origin.edits.values(), *self.destination.edits.values()]  # fmt: skip
        for edit in edits:
            edit.textEdited.connect(self.mark_dirty)
        for signal in (
            self.identifiers.changed,
            self.items.changed,
            self.status.activated,
            self.package_type.currentTextChanged,
            self.length_unit.activated,
            self.weight_unit.activated,
            self.stackable.toggled,
            self.refrigerated.toggled,
            self.liftgate.toggled,
            self.hazmat.toggled,
            self.temperature_unit.activated,
            self.liftgate_stop.activated,
            self.packing_group.activated,
        ):
            signal.connect(self.mark_dirty)

    # --- loading and reading ---------------------------------------------------------------

    def load(self, package: Package | None) -> None:
        self.package = package
        wire = as_write(package) if package else {}
        self.identifiers.set_identifiers(
            (i["type"], i["value"]) for i in wire.get("identifiers", [])
        )
        if package is None:
            self.identifiers.add_identifier("DELIVERY_NUMBER")
        self.items.clear()
        for item in wire.get("items", []):
            order = item.get("orderIdentifier") or {}
            pairs = [(i["type"], i["value"]) for i in item.get("identifiers", [])]
            self.items.add_row(
                [
                    order.get("type", ""),
                    order.get("value", ""),
                    str(item["unitQuantity"]),
                    item_identifiers_text(pairs),
                ]
            )
        if package is None:
            self.items.add_row()
        self.status.clear()
        current = package.status if package else PackageStatus.UNASSIGNED
        self.status.addItem(f"{words(current.value)} (as it is)", current.value)
        for status in NEXT_STATUSES[current] if package else ():
            self.status.addItem(f"Move to {words(status.value).lower()}", status.value)
        self.status.setEnabled(package is not None)
        details = wire.get("package") or {}
        choose_code(self.package_type, str(details.get("type") or "PALLET"))
        dims = details.get("dimensions") or {}
        for edit, name in zip(self.lengths, ("length", "width", "height"), strict=True):
            edit.setText(f"{dims[name]:g}" if name in dims else "")
        choose_code(self.length_unit, str(dims.get("unit") or "IN"))
        volume = details.get("volume")
        self.volume.setText(f"{volume['value']:g}" if volume else "")
        weight = details.get("weight")
        self.weight.setText(f"{weight['value']:g}" if weight else "")
        choose_code(self.weight_unit, str(weight["unit"]) if weight else "LB")
        self.stackable.setChecked(bool(wire.get("isStackable")))
        by_type = {a["type"]: a for a in wire.get("accessorials", [])}
        cold = by_type.get("REFRIGERATED", {}).get("temperatureRange") or {}
        self.refrigerated.setChecked("REFRIGERATED" in by_type)
        self.temperature_min.setText(f"{cold['minimum']:g}" if cold else "")
        self.temperature_max.setText(f"{cold['maximum']:g}" if cold else "")
        self.temperature_unit.setCurrentIndex(
            max(0, self.temperature_unit.findData(cold.get("unit", "FAHRENHEIT")))
        )
        self.liftgate.setChecked("LIFTGATE" in by_type)
        stop = by_type.get("LIFTGATE", {}).get("stop")
        self.liftgate_stop.setCurrentIndex(max(0, self.liftgate_stop.findData(stop)))
        hazard = by_type.get("HAZMAT", {}).get("hazmatDetail") or {}
        self.hazmat.setChecked("HAZMAT" in by_type)
        self.un_number.setText(str(hazard.get("unNumber", "")))
        self.hazard_class.setText(str(hazard.get("hazardClass", "")))
        self.packing_group.setCurrentIndex(
            max(0, self.packing_group.findData(hazard.get("packingGroup")))
        )
        self.shipping_name.setText(str(hazard.get("properShippingName", "")))
        self.origin.load(wire.get("originLocation"))
        self.destination.load(wire.get("destinationLocation"))
        self._accessorials_enabled()
        self.errors.clear()
        self.mark_clean()

    def wire(self) -> dict[str, Any]:
        """The form as the wire fields of a package (checked by `check_package`)."""
        wire: dict[str, Any] = {
            "identifiers": [{"type": t, "value": v} for t, v in self.identifiers.identifiers()],
            "items": [self._item(r) for r in self.items.filled_rows([ORDER_VALUE, ITEM_IDS])],
            "isStackable": self.stackable.isChecked(),
        }
        details: dict[str, Any] = {}
        if code_of(self.package_type):
            details["type"] = code_of(self.package_type)
        sizes = [e.text() for e in self.lengths]
        if any(s.strip() for s in sizes):
            details["dimensions"] = {
                "length": number(sizes[0]),
                "width": number(sizes[1]),
                "height": number(sizes[2]),
                "unit": code_of(self.length_unit),
            }
        if self.volume.text().strip():
            details["volume"] = {"value": number(self.volume.text()), "unit": "CUBIC_FT"}
        if self.weight.text().strip():
            details["weight"] = {
                "value": number(self.weight.text()),
                "unit": code_of(self.weight_unit),
            }
        if details:
            wire["package"] = details
        wire["accessorials"] = self._accessorials()
        if self.package is not None:
            wire["status"] = self.status.currentData()
        for key, editor in (
            ("originLocation", self.origin),
            ("destinationLocation", self.destination),
        ):
            location = editor.wire()
            if location is not None:
                wire[key] = location
        return wire

    def _item(self, row: int) -> dict[str, Any]:
        text = self.items.text
        item: dict[str, Any] = {
            "unitQuantity": integer(text(row, QUANTITY)) if text(row, QUANTITY) else None,
            "identifiers": parse_item_identifiers(text(row, ITEM_IDS)),
        }
        if text(row, ORDER_VALUE) or text(row, ORDER_TYPE) not in ("", "PURCHASE_ORDER"):
            item["orderIdentifier"] = {
                "type": text(row, ORDER_TYPE),
                "value": text(row, ORDER_VALUE),
            }
        return item

    def _accessorials(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        self.accessorial_order = []
        if self.refrigerated.isChecked():
            found.append(
                {
                    "type": "REFRIGERATED",
                    "temperatureRange": {
                        "minimum": number(self.temperature_min.text()),
                        "maximum": number(self.temperature_max.text()),
                        "unit": self.temperature_unit.currentData(),
                    },
                }
            )
            self.accessorial_order.append(AccessorialType.REFRIGERATED)
        if self.liftgate.isChecked():
            liftgate: dict[str, Any] = {"type": "LIFTGATE"}
            if self.liftgate_stop.currentData():
                liftgate["stop"] = self.liftgate_stop.currentData()
            found.append(liftgate)
            self.accessorial_order.append(AccessorialType.LIFTGATE)
        if self.hazmat.isChecked():
            hazard: dict[str, Any] = {
                "unNumber": self.un_number.text().strip(),
                "hazardClass": self.hazard_class.text().strip(),
                "properShippingName": self.shipping_name.text().strip(),
            }
            if self.packing_group.currentData():
                hazard["packingGroup"] = self.packing_group.currentData()
            found.append({"type": "HAZMAT", "hazmatDetail": hazard})
            self.accessorial_order.append(AccessorialType.HAZMAT)
        return found

    # --- errors and saving -----------------------------------------------------------------

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        named: dict[str, str] = {}
        # Plain words before an accessorial's path is renamed: the rules match field paths.
        for path, message in plain(problems).items():
            match = _ACCESSORIAL.match(path)
            index = int(match.group(1)) if match else -1
            if match and 0 <= index < len(self.accessorial_order):
                rest = match.group(2).lstrip(".")
                word = rest.split(".")[-1] if rest else ""
                path = f"accessorials.{self.accessorial_order[index].value}"
                message = f"{word}: {message}" if word else message
            named.setdefault(path, message)
        shown = fold_rows(
            named,
            {
                "items": ("items", ITEM_WORDS),
                "identifiers": ("identifiers", {"type": "type", "value": "value"}),
            },
        )
        self.errors.show(shown, general=general)
        if shown:
            self.tabs.setCurrentIndex(_tab_of(next(iter(shown))))

    def save(self) -> None:
        wire = self.wire()
        body, problems = check_package(wire, self.package)
        for index, item in enumerate(wire["items"]):
            if isinstance(item["identifiers"], str):
                problems[f"items[{index}].identifiers"] = "write them as TYPE=VALUE; TYPE=VALUE"
        if body is None or problems:
            self.show_problems(problems)
            return
        service = self.session.packages
        if self.can_send(service):
            package_id = self.package.id if self.package else None
            self.send(service.save(body, package_id), "save-package")
