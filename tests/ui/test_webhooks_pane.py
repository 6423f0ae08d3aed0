"""The Webhooks pane and form against the real local service: create with every problem
beside its field, secrets masked and kept, a test delivery to a real receiver, the delivery
log, the service's refusals, the limit of 50, delete after a confirmation."""

from __future__ import annotations

import random
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot
from sqlalchemy import select

from freightdesk.models.webhooks import MASK
from freightdesk.server.db import transaction
from freightdesk.server.demo import pushes
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.webhooks import secret_box
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.webhooks.deliveries import DeliveryLogDialog
from freightdesk.ui.panes.webhooks.form import WebhookFormDialog
from freightdesk.ui.panes.webhooks.pane import WebhooksPane
from freightdesk.ui.panes.webhooks.secret import SigningSecretDialog
from tests.server.test_webhooks_support import receiver
from tests.support import TenantHandle, wait_until
from tests.ui.plain_words import leaks
from tests.ui.test_panes_support import answer, connected, shown_dialog, shown_pane

__all__ = ["connected"]

PATH = "/api/v4/webhooks"


def _set(edit: Any, text: str) -> None:
    edit.setText(text)
    edit.textEdited.emit(text)


async def test_create_edit_test_delivery_log_and_delete(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane = await shown_pane(qtbot, session, WebhooksPane)
    await wait_until(lambda: "0 of at most 50" in pane.count_label.text())
    with receiver() as hook:
        pane.new_item()
        form = shown_dialog(pane, WebhookFormDialog)
        # Everything wrong at once, each beside its field.
        _set(form.url, "ftp://example.com/x")
        form.headers.add_row("Content-Type", "text/plain")
        form.auth.add_method(None)
        method = form.auth.editors[0]
        method.kind.setCurrentIndex(method.kind.findData("BASIC"))
        method.fields["username"].setText("a:b")  # type: ignore[union-attr]
        form.kind.setCurrentIndex(form.kind.findData(""))
        form.save()
        assert form.errors.message_for("configName")
        assert "http" in form.errors.message_for("url")
        assert "Content-Type" in form.errors.message_for("methodHeaders")
        assert form.tabs.currentIndex() == 0
        form.tabs.setCurrentIndex(2)
        assert method.field_errors["username"].isVisible()
        assert method.field_errors["password"].isVisible()

        # Fixed: an API key, a granular kind with route context, a mode filter.
        _set(form.name, "ERP feed")
        _set(form.url, hook.url())
        form.headers.set_values({"X-Team": "dispatch"})
        method.kind.setCurrentIndex(method.kind.findData("API_KEY"))
        method.fields["apiKey"].setText("k-123")  # type: ignore[union-attr]
        form.kind.setCurrentIndex(form.kind.findData("shipments.v1.event.added"))
        form.context[next(iter(form.context))].setChecked(True)
        form.event_types.set_chosen(["DELIVERED"])
        form.save()
        await wait_until(lambda: not form.isVisible())
        await wait_until(lambda: pane.model.rowCount() == 1)
        secret = shown_dialog(pane, SigningSecretDialog)
        assert secret.secret.text()
        secret.close()
        stored = tenant.http.get(PATH).json()["webhookEndpoints"][0]
        assert stored["authenticationMethods"][0]["parameters"]["apiKey"] == MASK
        assert stored["webhookConfiguration"]["shipmentV1Event"]["includeContext"] == [
            "SHIPMENT",
            "ROUTE",
        ]
        assert stored["webhookConfiguration"]["filters"]["eventTypes"] == ["DELIVERED"]

        # Edit the URL; the masked key is sent back and kept by the service.
        pane.table.selectRow(0)
        pane.edit_selected()
        form = shown_dialog(pane, WebhookFormDialog)
        # The stored key shows as an empty field that says so; left empty, the mask is sent.
        key = form.auth.editors[0].fields["apiKey"]
        assert key.text() == "" and "Stored" in key.placeholderText()  # type: ignore[union-attr]
        assert form.wire()["authenticationMethods"][0]["parameters"]["apiKey"] == MASK
        _set(form.url, hook.url("/hook2"))
        form.save()
        await wait_until(lambda: not form.isVisible())

        # A test delivery reaches the receiver with the kept key.
        await wait_until(lambda: pane.test_button.isEnabled(), seconds=40)
        pane.test_selected()
        await wait_until(lambda: pane.last_ping is not None)
        assert "accepted: HTTP 200" in pane.notice.text()
        received = hook.received()[-1]
        assert received.path == "/hook2" and received.headers["x-api-key"] == "k-123"
        pane.show_log()
        log = shown_dialog(pane, DeliveryLogDialog)
        await wait_until(lambda: log.table.rowCount() == 1)
        assert log.table.item(0, 1).text() == "Test delivery"
        assert "HTTP 200" in log.table.item(0, 4).text()
        log.accept()

    pane.confirm_delete()
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: pane.model.rowCount() == 0)
    assert tenant.http.get(PATH).json()["webhookEndpoints"] == []
    pane.shutdown()


async def test_refusals_the_limit_and_unsaved_changes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    for n in range(49):
        body = {"configName": f"hook {n:02d}", "url": f"https://h.example.com/{n}"}
        assert tenant.http.put(PATH, json=body).status_code == 200
    pane = await shown_pane(qtbot, session, WebhooksPane)
    await wait_until(lambda: pane.model.rowCount() == 49)
    assert pane.new_button.isEnabled() and not pane.limit.isVisible()

    # The service refuses a duplicate name: shown beside the name, the form kept.
    pane.new_item()
    form = shown_dialog(pane, WebhookFormDialog)
    _set(form.name, "hook 00")
    _set(form.url, "https://h.example.com/dup")
    form.save()
    await wait_until(lambda: bool(form.errors.message_for("configName")))
    assert "already exists" in form.errors.message_for("configName")
    _set(form.name, "hook 49")
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.rowCount() == 50)
    shown_dialog(pane, SigningSecretDialog).close()
    assert pane.limit.isVisible() and not pane.new_button.isEnabled()
    assert "at most 50" in pane.limit.text()

    # Closing an edited form asks first.
    pane.table.selectRow(0)
    pane.edit_selected()
    form = shown_dialog(pane, WebhookFormDialog)
    _set(form.url, "https://h.example.com/changed")
    form.reject()
    answer("unsavedChanges", QMessageBox.StandardButton.Discard)
    assert not form.isVisible()
    pane.shutdown()


async def test_event_types_read_as_words_and_are_sent_as_codes(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user read "event types PICKED_UP, ARRIVAL_AT_STOP" (and "modes OCEAN") in the
    summary and the same codes in the form's list: both say them in words, the service keeps
    the codes."""
    session, tenant = connected
    body = {
        "configName": "milestones",
        "url": "https://erp.example.com/hook",
        "webhookConfiguration": {
            "webhookEventType": "shipments.v1.event.added",
            "filters": {
                "eventTypes": ["PICKED_UP", "ARRIVAL_AT_STOP"],
                "transportationModes": ["OCEAN", "TL"],
            },
        },
    }
    assert tenant.http.put(PATH, json=body).status_code == 200
    pane = await shown_pane(qtbot, session, WebhooksPane)
    await wait_until(lambda: pane.model.rowCount() == 1)
    qtbot.mouseClick(
        pane.table.viewport(),
        Qt.MouseButton.LeftButton,
        pos=pane.table.visualRect(pane.model.index(0, 0)).center(),
    )
    await wait_until(lambda: "event types" in pane.summary.text())
    assert "event types Picked up, Arrival at stop" in pane.summary.text()
    # The modes in words too (they read "modes OCEAN, TL").
    assert "modes Ocean, Truckload (TL); event types" in pane.summary.text()
    # The kind in words; its code, which an integrator may need, in the tooltip alone.
    assert "Event added, with the shipment" in pane.summary.text()
    assert "shipments.v1" not in pane.summary.text()
    assert pane.summary.toolTip().endswith(": shipments.v1.event.added")
    assert leaks(pane) == []
    pane.edit_selected()
    form = shown_dialog(pane, WebhookFormDialog)
    form.tabs.setCurrentIndex(1)
    shown = [i.text() for i in form.event_types.all_items()]
    assert "Arrival at stop" in shown and not [t for t in shown if "_" in t]
    ticked = next(i for i in form.event_types.all_items() if i.text() == "Delivered")
    rect = form.event_types.visualItemRect(ticked)
    # A click on the item's box, as a user ticks it.
    qtbot.mouseClick(
        form.event_types.viewport(),
        Qt.MouseButton.LeftButton,
        pos=rect.topLeft() + QPoint(10, rect.height() // 2),
    )
    assert "DELIVERED" in form.event_types.chosen()
    form.save()
    await wait_until(lambda: not form.isVisible())
    stored = tenant.http.get(PATH).json()["webhookEndpoints"][0]
    assert sorted(stored["webhookConfiguration"]["filters"]["eventTypes"]) == [
        "ARRIVAL_AT_STOP",
        "DELIVERED",
        "PICKED_UP",
    ]
    pane.shutdown()


async def test_a_fresh_demos_webhooks_say_the_demo_paused_them_not_a_user(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    """A new user read "Paused since … by a user" on a fresh demo, where nobody paused any:
    the demo saves its configurations paused so nothing leaves the machine, and says so."""
    session, tenant = connected
    with transaction(tenant.service.context.sessions) as db:
        tenant_id = db.scalar(select(Tenant.id).where(Tenant.name == tenant.name))
        assert tenant_id is not None
        pushes.save(db, tenant_id, random.Random(7), secret_box.box(tenant.service.context))
    pane = await shown_pane(qtbot, session, WebhooksPane)
    await wait_until(lambda: pane.model.rowCount() == 4)
    rect = pane.table.visualRect(pane.model.index(0, 0))
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_until(lambda: "Paused since" in pane.summary.text())
    summary = pane.summary.text()
    assert "by a user" not in summary
    assert "in the demo data, so nothing is sent off this machine" in summary
    # The form says the same, and how to deliver again.
    qtbot.keyClick(pane.table, Qt.Key.Key_Return)
    form = shown_dialog(pane, WebhookFormDialog)
    note = form.disabled_reason.text()
    assert "demo data" in note and "by a user" not in note and "Tick the box" in note
    form.reject()
    pane.shutdown()
