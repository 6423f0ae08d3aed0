"""The Packages pane and form against the real local service: create with every problem
beside its field, find by every kind of filter with paging, edit along the status workflow,
delete after a question (the selected package, or one named by an identifier), and a failing
service keeping the form."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.api.packaging import PATH
from freightdesk.models.packaging import PackageStatus
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.packages.delete import DeleteByIdentifierDialog
from freightdesk.ui.panes.packages.form import PackageFormDialog, parse_item_identifiers
from freightdesk.ui.panes.packages.pane import PackagesPane
from tests.proxy import FaultyProxy
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import clock_text
from tests.ui.forms_keys import click, ok_button
from tests.ui.plain_words import OTHER
from tests.ui.test_capacity_support import press, settle, type_text
from tests.ui.test_export_panes import _from_loop
from tests.ui.test_panes_support import (
    answer,
    connected,
    message_box,
    new_form,
    proxied,
    saved_while_the_service_fails,
    shown_dialog,
    shown_pane,
)

__all__ = ["connected", "proxied"]


def _package(number: int, city: str = "Chicago") -> dict[str, Any]:
    return {
        "items": [
            {
                "identifiers": [{"type": "SKU", "value": f"SKU-{number % 3}"}],
                "orderIdentifier": {"type": "PURCHASE_ORDER", "value": f"PO-{number}"},
                "unitQuantity": 2,
            }
        ],
        "identifiers": [{"type": "OLPN", "value": f"OLPN-{number:03d}"}],
        "package": {"type": "PALLET", "weight": {"value": 300, "unit": "LB"}},
        "originLocation": {"address": {"city": city, "state": "IL", "country": "US"}},
    }


def test_item_identifiers_are_read_as_typed() -> None:
    assert parse_item_identifiers("SKU=A-1; upc = 0123") == [
        {"type": "SKU", "value": "A-1"},
        {"type": "UPC", "value": "0123"},
    ]
    assert parse_item_identifiers("A-1") == [{"type": "SKU", "value": "A-1"}]
    assert parse_item_identifiers("=x") == "=x"


async def test_create_find_edit_and_delete(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, PackagesPane)
    form = await new_form(pane, PackageFormDialog, "No packages yet")
    # Everything wrong at once, each beside its field; the first one's tab shown.
    form.items.set_text(0, 1, "PO-77")
    form.items.set_text(0, 2, "0")
    form.items.set_text(0, 3, "SKU=; x")
    form.tabs.setCurrentIndex(1)
    form.weight.setText("heavy")
    form.hazmat.setChecked(True)
    type_text(form.un_number, "1203")
    form.save()
    assert form.tabs.currentIndex() == 0
    assert "Add at least one identifier" in form.errors.message_for("identifiers")
    assert "Row 1, identifiers: Write them as TYPE=VALUE" in form.errors.message_for("items")
    form.tabs.setCurrentIndex(1)
    assert form.errors.message_for("package.weight") == "Enter a valid number, such as 1500 or 2.5"
    assert "UN or NA followed by four digits" in form.errors.message_for("accessorials.HAZMAT")
    # Fix it all; nothing typed was lost.
    assert form.items.text(0, 1) == "PO-77"
    form.tabs.setCurrentIndex(0)
    form.identifiers.add_identifier("DELIVERY_NUMBER", "D-500")
    form.items.set_text(0, 2, "12")
    form.items.set_text(0, 3, "SKU=A-1; UPC=0123")
    form.tabs.setCurrentIndex(1)
    form.weight.clear()
    type_text(form.weight, "1,500")  # thousands or a decimal comma: asked, not guessed
    form.save()
    form.tabs.setCurrentIndex(1)
    assert form.errors.message_for("package.weight") == (
        "1,500 could be 1500 or 1.5: type one of those"
    )
    form.weight.setText("420")
    form.lengths[0].setText("48")
    form.lengths[1].setText("40")
    form.lengths[2].setText("50")
    form.volume.setText("55.6")
    form.stackable.setChecked(True)
    type_text(form.un_number, "UN1203")
    type_text(form.hazard_class, "3")
    type_text(form.shipping_name, "Gasoline")
    form.liftgate.setChecked(True)
    form.liftgate_stop.setCurrentIndex(form.liftgate_stop.findData("DELIVERY"))
    form.tabs.setCurrentIndex(2)
    type_text(form.origin.edits["city"], "Chicago")
    type_text(form.origin.edits["state"], "IL")
    type_text(form.destination.edits["city"], "Toronto")
    type_text(form.destination.edits["country"], "CA")
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.rowCount() == 1)
    saved = tenant.http.get(PATH).json()["results"][0]
    assert saved["items"][0]["identifiers"] == [
        {"type": "SKU", "value": "A-1"},
        {"type": "UPC", "value": "0123"},
    ]
    assert saved["items"][0]["unitQuantity"] == 12
    assert saved["package"]["dimensions"] == {"length": 48, "width": 40, "height": 50, "unit": "IN"}
    assert [a["type"] for a in saved["accessorials"]] == ["LIFTGATE", "HAZMAT"]
    assert saved["destinationLocation"]["address"]["country"] == "CA"
    assert "Saved package D-500" in pane.notice.text()

    # More packages: paging and every kind of filter.
    for number in range(30):
        tenant.http.post(PATH, json=_package(number, "Austin" if number % 10 == 0 else "Chicago"))
    pane.refresh()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u201325 of 31 packages")
    pane.page_bar.next_button.click()
    await wait_until(lambda: pane.model.rowCount() == 6)
    pane.filters["sku_identifier"].setText("SKU-1")
    pane.search_button.click()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u201310 of 10 packages")
    pane.page.clear_search()
    pane.filters["origin_city"].setText("austin")
    pane.filters["origin_city"].returnPressed.emit()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u20133 of 3 packages")
    pane.page.clear_search()
    pane.filters["destination_country"].setText("CA")
    pane.search_button.click()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u20131 of 1 packages")
    pane.filters["shipper_tenant_uuid"].setText(tenant.uuid)
    pane.search_button.click()
    await wait_until(lambda: pane.page_bar.label.text() == "1\u20131 of 1 packages")
    pane.page.clear_search()
    pane.identifier_type.setCurrentText("OLPN")
    pane.page.show_page(1)
    assert "enter both" in pane.notice.text()
    pane.focus_search()
    type_text(pane.identifier_value, "OLPN-007")
    pane.identifier_value.returnPressed.emit()
    await wait_until(lambda: [p.identifiers[0].value for p in pane.model.items] == ["OLPN-007"])

    # Edit along the workflow: only the allowed moves are offered.
    pane.table.selectRow(0)
    changed = re.search(r"last changed (.*)$", pane.detail.text())
    assert changed and clock_text(changed.group(1)), pane.detail.text()  # one clock
    assert not OTHER.search(pane.detail.text())  # no uuid: a new user read one there
    press(pane.table, Qt.Key.Key_Return)
    form = shown_dialog(pane, PackageFormDialog)
    assert [form.status.itemData(i) for i in range(form.status.count())] == [
        "UNASSIGNED",
        "ASSIGNED",
    ]
    form.status.setCurrentIndex(1)
    form.mark_dirty()
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.items[0].status is PackageStatus.ASSIGNED)
    assert pane.model.data(pane.model.index(0, 1)) == "Assigned"
    # Delete asks first.
    pane.table.selectRow(0)
    pane.confirm_delete()
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: pane.last_deleted is not None)
    assert pane.model.rowCount() == 0
    assert pane.last_deleted is not None and pane.last_deleted.identifiers[0].value == "OLPN-007"
    assert (
        tenant.http.get(PATH, params={"skuIdentifier": "SKU-1"}).json()["paginationInfo"]["total"]
        == 9
    )
    pane.shutdown()
    await settle(session)


async def test_a_failing_service_keeps_the_form(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    tenant.http.post(PATH, json=_package(1))
    pane = await shown_pane(qtbot, session, PackagesPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.new_item()
    form = shown_dialog(pane, PackageFormDialog)
    form.identifiers.set_identifiers([("OLPN", "OLPN-001")])  # already another package's
    form.items.set_text(0, 1, "PO-9")
    await saved_while_the_service_fails(form, proxy, PATH)
    assert form.items.text(0, 1) == "PO-9"
    # The service's own refusal, beside the identifiers.
    form.save()
    await wait_until(lambda: bool(form.errors.message_for("identifiers")))
    assert "already has identifier OLPN 'OLPN-001'" in form.errors.message_for("identifiers")
    form.identifiers.set_identifiers([("OLPN", "OLPN-002")])
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.rowCount() == 2)
    # Closing with unsaved changes asks first.
    pane.table.selectRow(0)
    pane.edit_selected()
    form = shown_dialog(pane, PackageFormDialog)
    form.stackable.setChecked(True)
    form.reject()
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    assert not form.isVisible()
    pane.shutdown()
    await settle(session)


async def test_delete_by_identifier_after_a_question(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    for number in range(3):
        tenant.http.post(PATH, json=_package(number))
    pane = await shown_pane(qtbot, session, PackagesPane)
    await wait_until(lambda: pane.model.rowCount() == 3)
    # The identifier typed in the search is the one offered.
    pane.identifier_type.setCurrentText("OLPN")
    type_text(pane.identifier_value, "OLPN-099")
    pane.delete_by_identifier_button.click()
    dialog = pane.delete_dialog
    assert isinstance(dialog, DeleteByIdentifierDialog) and dialog.isVisible()
    assert dialog.identifier() == ("OLPN", "OLPN-099")
    # Checked before asking: a value is needed.
    type_text(dialog.value, "  ")
    dialog.confirm()
    assert dialog.errors.message_for("identifier.value") == (
        "Required together with identifier.type"
    )
    assert message_box("confirmDeleteByIdentifier") is None
    # No package has it: said beside the value, which stays as typed.
    type_text(dialog.value, "OLPN-099")
    dialog.confirm()
    answer("confirmDeleteByIdentifier", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: bool(dialog.errors.message_for("identifier.value")))
    assert dialog.errors.message_for("identifier.value") == "No package has OLPN 'OLPN-099'"
    assert dialog.isVisible() and dialog.value.text() == "OLPN-099"
    # Saying no to the question deletes nothing.
    type_text(dialog.value, "OLPN-002")
    dialog.confirm()
    answer("confirmDeleteByIdentifier", QMessageBox.StandardButton.Cancel)
    assert dialog.isVisible() and pane.model.rowCount() == 3
    dialog.confirm()
    answer("confirmDeleteByIdentifier", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: not dialog.isVisible())
    assert pane.notice.text() == "The package OLPN OLPN-002 is deleted."
    assert pane.model.rowCount() == 2
    assert "OLPN-002" not in [p.identifiers[0].value for p in pane.model.items]
    assert tenant.http.get(PATH).json()["paginationInfo"]["total"] == 2
    pane.shutdown()
    await settle(session)


async def test_codes_read_as_words_and_are_sent_as_codes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user read DELIVERY_NUMBER, PURCHASE_ORDER, PALLET and "Shipper tenant uuid" in
    the pane: the choices and the messages say them in words, the wire keeps the codes."""
    session, _tenant = connected
    pane = await shown_pane(qtbot, session, PackagesPane)
    captions = {label.buddy(): label.text() for label in pane.findChildren(QLabel) if label.buddy()}
    assert captions[pane.filters["shipper_tenant_uuid"]] == "Shipper company id"
    assert "uuid" not in " ".join(captions.values()).lower()
    assert not [t for t in _choices(pane.identifier_type) if "_" in t]
    form = await new_form(pane, PackageFormDialog, "No packages yet")
    kind = form.identifiers.table.cellWidget(0, 0)
    order = form.items.table.cellWidget(0, 0)
    assert isinstance(kind, QComboBox) and isinstance(order, QComboBox)
    assert (kind.currentText(), order.currentText()) == ("Delivery number", "Purchase order")
    form.tabs.setCurrentIndex(1)
    assert form.package_type.currentText() == "Pallet"
    for combo in (kind, order, form.package_type):
        assert not [t for t in _choices(combo) if "_" in t], _choices(combo)
    form.tabs.setCurrentIndex(0)
    await click(qtbot, ok_button(form.buttons))
    assert form.errors.message_for("identifiers") == (
        "Add at least one identifier, e.g. a delivery number or an OLPN"
    )
    # Chosen by the keyboard as a user does: "O" picks OLPN; the codes go on the wire.
    await _from_loop(lambda: qtbot.keyClicks(kind, "O"))
    assert kind.currentText() == "OLPN"
    form.identifiers.table.item(0, 1).setText("OLPN-5")  # type: ignore[union-attr]
    form.items.set_text(0, 1, "PO-5")
    wire = form.wire()
    assert wire["identifiers"] == [{"type": "OLPN", "value": "OLPN-5"}]
    assert wire["items"][0]["orderIdentifier"] == {"type": "PURCHASE_ORDER", "value": "PO-5"}
    assert wire["package"]["type"] == "PALLET"
    form.reject()
    await settle(session)


def _choices(combo: QComboBox) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]
