"""Forms built with `FieldErrors.add_row` open with the keyboard in their first field, and Tab
goes on to the next field (not to the buttons: the rows' holders used to join the dialog
after its buttons, so the first focus and Tab went there; not to a tab bar made before the
tabs' fields). A form whose first field is a table opens on the first cell typed into (not on
the drop-down of the first row's type)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.panes.packages.form import PackageFormDialog
from freightdesk.ui.panes.push.forms import TruckloadForm
from freightdesk.ui.panes.rates.form import RateRequestFormDialog
from freightdesk.ui.panes.shipments.bulk_dialogs import AttributeDialog
from freightdesk.ui.panes.shipments.form import ShipmentFormDialog
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.vehicles.form import VehicleSearchForm
from freightdesk.ui.panes.webhooks.form import WebhookFormDialog
from tests.support import wait_until
from tests.ui.conftest import activated
from tests.ui.test_export_panes import _from_loop

# (make the form, the object names of its first field and of the one Tab goes to, or ""
# when the first field is a list of choices and nothing is typed into it)
FORMS: dict[str, tuple[Callable[[AppSession], QWidget], str, str, bool]] = {
    "attribute": (
        lambda _s: AttributeDialog(3, remove=False),
        "attributeName",
        "attributeValue",
        True,
    ),
    "stop location": (lambda s: StopLocationFormDialog(s, None), "name", "suppliedId", True),
    "webhook": (lambda s: WebhookFormDialog(s, None), "configName", "url", True),
    "booking": (lambda s: BookingFormDialog(s), "carrierType", "scac", False),
    "shipment": (lambda s: ShipmentFormDialog(s, None), "mode", "identifiers", False),
    "vehicle search": (lambda _s: VehicleSearchForm(), "where", "address.addressLines", False),
    "truckload push": (
        lambda _s: TruckloadForm(),
        "customerAccountNumber",
        "billOfLadingNumber",
        True,
    ),
    "rate request": (lambda s: RateRequestFormDialog(s), "name", "pickupDate", True),
}


def _within(widget: QWidget | None, name: str) -> bool:
    while widget is not None:
        if widget.objectName() == name:
            return True
        widget = widget.parentWidget()
    return False


@pytest.mark.parametrize("kind", list(FORMS))
async def test_the_keyboard_starts_in_the_first_field(
    qtbot: QtBot, session: AppSession, kind: str
) -> None:
    make, first_name, second_name, typed = FORMS[kind]
    form = make(session)
    qtbot.addWidget(form)
    await activated(form)
    first = QApplication.focusWidget()
    assert first is not None and first.window() is form
    assert first.objectName() == first_name, (type(first).__name__, first.objectName())
    if typed:
        # Typed at once, without a click: it lands in the first field.
        await _from_loop(lambda: qtbot.keyClicks(first, "Alder"))
        assert first.property("text") == "Alder"
    await _from_loop(lambda: qtbot.keyClick(first, Qt.Key.Key_Tab))
    await wait_until(lambda: QApplication.focusWidget() is not first)
    second = QApplication.focusWidget()
    assert second is not None
    # (a type chosen in the identifiers table's first row is in that table)
    assert _within(second, second_name), (type(second).__name__, second.objectName())
    # Visual order: the field Tab reached is below the first, or beside it to the right.
    at = second.mapTo(form, second.rect().topLeft())
    was = first.mapTo(form, first.rect().topLeft())
    assert (at.y(), at.x()) > (was.y(), was.x())
    form.close()


async def test_a_form_opening_on_a_table_starts_in_its_first_typed_cell(
    qtbot: QtBot, session: AppSession
) -> None:
    """The package form's first field is its identifiers table, whose first row is a type
    (a drop-down) and a value: it opens on the value, so what is typed is the identifier."""
    form = PackageFormDialog(session, None)
    qtbot.addWidget(form)
    await activated(form)
    first = QApplication.focusWidget()
    assert first is not None and first.window() is form
    assert first.objectName() == "identifierTable", (type(first).__name__, first.objectName())
    # Each key where the user's would go: the first opens the cell's editor.
    for key in "DN-4471":
        await _from_loop(lambda key=key: qtbot.keyClick(QApplication.focusWidget(), key))
    await _from_loop(lambda: qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return))
    assert form.identifiers.identifiers() == [("DELIVERY_NUMBER", "DN-4471")]
    assert QApplication.focusWidget() is first
    form.mark_clean()
    form.close()
