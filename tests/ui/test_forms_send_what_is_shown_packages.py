"""Forms never save what the user did not enter (issue 14, point 9), the package form: a user
types a package, switches its identifier's type, the units and the accessorials on and off and
back, and what the real local service stored (read back over the API) is exactly what the form
showed. The other list panes' forms are in tests/ui/test_forms_send_what_is_shown.py."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QDialogButtonBox
from pytestqt.qtbot import QtBot

from freightdesk.api.packaging import PATH
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.packages.form import PackageFormDialog
from freightdesk.ui.panes.packages.pane import PackagesPane
from tests.support import TenantHandle, wait_until
from tests.ui.forms_keys import click, keys
from tests.ui.test_capacity_support import settle
from tests.ui.test_forms_send_what_is_shown import _choose
from tests.ui.test_panes_support import connected, new_form, shown_pane

__all__ = ["connected"]


def _present(wire: dict[str, Any]) -> dict[str, Any]:
    """The fields given (the service answers the others as null or empty)."""
    return {k: v for k, v in wire.items() if v not in (None, [], {}, "")}


async def test_package_switched_back_and_forth_saves_what_the_form_shows(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, PackagesPane)
    form = await new_form(pane, PackageFormDialog, "No packages yet", seconds=30)

    # The identifier: its type switched to OLPN and back, its value typed.
    kind = form.identifiers.table.cellWidget(0, 0)
    assert isinstance(kind, QComboBox)
    kind.setCurrentText("OLPN")
    kind.setCurrentText("Delivery number")
    form.identifiers.table.item(0, 1).setText("D-900")  # type: ignore[union-attr]
    # An item: sales order, then purchase order again; a second row left as it came.
    form.items.set_text(0, 0, "SALES_ORDER")
    form.items.set_text(0, 1, "PO-77")
    form.items.set_text(0, 0, "PURCHASE_ORDER")
    form.items.set_text(0, 2, "6")
    form.items.set_text(0, 3, "SKU=A-1")
    form.items.add_row()

    form.tabs.setCurrentIndex(1)
    form.package_type.setCurrentText("Crate")
    form.package_type.setCurrentText("Pallet")
    await keys(qtbot, form.weight, "420")
    form.weight_unit.setCurrentText("Kilograms")  # the units in words, their codes sent
    form.weight_unit.setCurrentText("Pounds")
    # Refrigerated: ticked, typed, unticked (greyed, not sent), ticked again: kept as typed.
    form.refrigerated.click()
    await keys(qtbot, form.temperature_min, "34")
    await keys(qtbot, form.temperature_max, "38")
    form.refrigerated.click()
    assert not form.temperature_min.isEnabled()
    assert form.wire()["accessorials"] == []
    form.refrigerated.click()
    # Hazardous materials typed, then unticked: none sent.
    form.hazmat.click()
    await keys(qtbot, form.un_number, "UN1203")
    form.hazmat.click()
    # A liftgate at delivery, then at any stop.
    form.liftgate.click()
    _choose(form.liftgate_stop, "DELIVERY")
    form.liftgate_stop.setCurrentIndex(0)
    form.liftgate_stop.activated.emit(0)
    # Stackable on and off again.
    form.stackable.click()
    form.stackable.click()

    form.tabs.setCurrentIndex(2)
    await keys(qtbot, form.origin.edits["city"], "Chicago")
    await keys(qtbot, form.origin.edits["state"], "IL")
    await keys(qtbot, form.destination.edits["name"], "Store 12")
    form.destination.edits["name"].clear()
    shown = form.wire()

    save = form.buttons.button(QDialogButtonBox.StandardButton.Save)
    await click(qtbot, save)
    await wait_until(lambda: not form.isVisible(), seconds=30)
    await wait_until(lambda: pane.model.rowCount() == 1, seconds=30)
    (stored,) = tenant.http.get(PATH).json()["results"]
    assert stored["identifiers"] == [{"type": "DELIVERY_NUMBER", "value": "D-900"}]
    assert [_present(i) for i in stored["items"]] == [
        {
            "orderIdentifier": {"type": "PURCHASE_ORDER", "value": "PO-77"},
            "unitQuantity": 6,
            "identifiers": [{"type": "SKU", "value": "A-1"}],
        }
    ]
    assert _present(stored["package"]) == {
        "type": "PALLET",
        "weight": {"value": 420, "unit": "LB"},
    }
    assert stored["isStackable"] is False
    assert [_present(a) for a in stored["accessorials"]] == [
        {
            "type": "REFRIGERATED",
            "temperatureRange": {"minimum": 34, "maximum": 38, "unit": "FAHRENHEIT"},
        },
        {"type": "LIFTGATE"},
    ]
    assert _present(stored["originLocation"]) == {
        "address": {"addressLines": [], "city": "Chicago", "state": "IL", "country": "US"}
    }
    assert stored.get("destinationLocation") is None
    # And that is what the form showed.
    assert [_present(a) for a in stored["accessorials"]] == shown["accessorials"]
    assert stored["identifiers"] == shown["identifiers"]
    pane.shutdown()
    await settle(session)
