"""The Webhooks pane as a dispatcher uses it, after a look at the running app: a stored secret
is replaced by what is typed (not appended to the mask), every label key reaches its field,
a configuration is paused and resumed from the list, what it sends is shown beside it, a
failed test delivery says why in plain words, and the delivery log shows older messages."""

from __future__ import annotations

import re
import socket

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QPalette, QWheelEvent
from PySide6.QtWidgets import QApplication, QComboBox, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.models.common import TransportationMode
from freightdesk.models.webhooks import MASK, ContextKind, WebhookEventType
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.webhooks import deliveries
from freightdesk.ui.panes.webhooks.deliveries import DeliveryLogDialog
from freightdesk.ui.panes.webhooks.form import TABS, WebhookFormDialog
from freightdesk.ui.panes.webhooks.pane import WebhooksPane
from freightdesk.ui.panes.webhooks.words import delivery_error_reason, delivery_error_text
from freightdesk.ui.theme import dark_palette, light_palette
from tests.proxy import Fault, FaultyProxy
from tests.server.test_webhooks_support import receiver
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import holds_clock_text
from tests.ui.conftest import activate
from tests.ui.test_capacity_support import type_text
from tests.ui.test_documents_forms import MENU_LETTERS, mnemonics
from tests.ui.test_panes_support import answer, connected, proxied, shown_pane

__all__ = ["connected", "proxied"]

PATH = "/api/v4/webhooks"


async def _pane(qtbot: QtBot, session: AppSession) -> WebhooksPane:
    return await shown_pane(qtbot, session, WebhooksPane, (1300, 800))


async def _editing_the_one(
    qtbot: QtBot, session: AppSession
) -> tuple[WebhooksPane, WebhookFormDialog]:
    """The pane once it lists the tenant's one webhook, and the form editing it."""
    pane = await _pane(qtbot, session)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.table.selectRow(0)
    pane.edit_selected()
    form = pane.dialog
    assert isinstance(form, WebhookFormDialog)
    return pane, form


async def _new_form(qtbot: QtBot, session: AppSession) -> tuple[WebhooksPane, WebhookFormDialog]:
    """The pane, once it has shown the empty list, and its form for a new configuration."""
    pane = await _pane(qtbot, session)
    await wait_until(lambda: "0 of at most 50" in pane.count_label.text())
    pane.new_item()
    form = pane.dialog
    assert isinstance(form, WebhookFormDialog)
    return pane, form


def _create(tenant: TenantHandle, name: str, url: str, key: str = "k-1") -> int:
    body = {
        "configName": name,
        "url": url,
        "authenticationMethods": [{"type": "API_KEY", "parameters": {"apiKey": key}}],
        "webhookConfiguration": {"webhookEventType": "shipments.v1.state.added"},
    }
    answer_ = tenant.http.put(PATH, json=body)
    assert answer_.status_code == 200, answer_.text
    return int(answer_.json()["id"])


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_new_secret_typed_over_a_stored_one_is_sent_as_typed(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    with receiver() as hook:
        _create(tenant, "erp", hook.url())
        pane, form = await _editing_the_one(qtbot, session)
        key = form.auth.editors[0].fields["apiKey"]
        # Before, the field held the eight-character mask and typing extended it.
        assert key.text() == "" and "leave empty to keep it" in key.placeholderText()  # type: ignore[union-attr]
        type_text(key, "k-2")  # type: ignore[arg-type]
        assert form.wire()["authenticationMethods"][0]["parameters"]["apiKey"] == "k-2"
        form.save()
        await wait_until(lambda: not form.isVisible())
        service = session.webhooks
        assert service is not None
        result = await service.ping(pane.model.items[0].id)
        assert result.delivered
        assert hook.received()[-1].headers["x-api-key"] == "k-2"
    pane.shutdown()


def test_the_form_opens_in_the_name_and_every_label_key_reaches_its_field(
    qtbot: QtBot, session: AppSession
) -> None:
    form = WebhookFormDialog(session, None)
    qtbot.addWidget(form)
    activate(qtbot, form)
    assert form.focusWidget() is form.name
    for letter, field in (
        ("U", form.url),
        ("M", form.method),
        ("P", form.payload_format),
        ("N", form.name),
        ("D", form.enabled),
    ):
        qtbot.keyClick(form, letter, Qt.KeyboardModifier.AltModifier)
        assert form.focusWidget() is field, letter
    qtbot.keyClick(form, "V", Qt.KeyboardModifier.AltModifier)
    assert form.version.isAncestorOf(form.focusWidget()) or form.focusWidget() is form.version
    qtbot.keyClick(form, "H", Qt.KeyboardModifier.AltModifier)
    assert form.headers.isAncestorOf(form.focusWidget())
    # The second tab: Alt+W shows it, its labels reach the kind and the first context box
    # that can be ticked (the shipment's is always included, so it cannot be).
    qtbot.keyClick(form, "W", Qt.KeyboardModifier.AltModifier)
    assert form.tabs.currentIndex() == 1
    form.kind.setCurrentIndex(form.kind.findData("shipments.v1.event.added"))
    qtbot.keyClick(form, "K", Qt.KeyboardModifier.AltModifier)
    assert form.focusWidget() is form.kind
    qtbot.keyClick(form, "C", Qt.KeyboardModifier.AltModifier)
    assert form.focusWidget() is next(iter(form.context.values()))
    qtbot.keyClick(form, "T", Qt.KeyboardModifier.AltModifier)
    assert form.focusWidget() is form.event_types
    # The third tab's Add method key is not the tab's own (Alt+A).
    qtbot.keyClick(form, "A", Qt.KeyboardModifier.AltModifier)
    assert form.tabs.currentIndex() == 2
    keys = mnemonics(form.tabs.currentWidget())
    assert "A" not in keys and "M" in keys
    form.close()


async def test_pause_and_resume_from_the_list_with_what_it_sends_beside_it(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    _create(tenant, "portal", "https://portal.example.com/hooks")
    pane = await _pane(qtbot, session)
    keys = mnemonics(pane)
    assert not MENU_LETTERS & set(keys) and len(keys) == len(set(keys)), keys
    await wait_until(lambda: pane.model.rowCount() == 1)
    assert "Select a configuration" in pane.summary.text()
    pane.table.selectRow(0)
    text = pane.summary.text()
    assert "POST https://portal.example.com/hooks" in text
    assert "State added, with the shipment" in text and "shipments.v1" not in text
    assert "API key in a header" in text and "Delivering" in text
    assert "k-1" not in text
    assert holds_clock_text(text), text  # "changed Nov 28 14:05 UTC": the one clock

    assert pane.pause_button.text() == "Pa&use"
    pane.pause_button.click()
    await wait_until(lambda: "is paused" in pane.notice.text())
    stored = tenant.http.get(PATH).json()["webhookEndpoints"][0]
    assert stored["enabled"] is False
    # The secret was sent back masked, so the service kept it.
    assert stored["authenticationMethods"][0]["parameters"]["apiKey"] == MASK
    await wait_until(lambda: pane.model.items[0].enabled is False)
    assert pane.pause_button.text() == "Res&ume"
    assert "by a user" in pane.summary.text()
    assert pane.model.data(pane.model.index(0, 2)) == "Paused"

    # The form says why it is paused and how to resume, not as an error.
    pane.edit_selected()
    form = pane.dialog
    assert isinstance(form, WebhookFormDialog)
    note = form.disabled_reason.text()
    assert note.startswith("Paused since") and "by a user" in note and "Tick the box" in note
    assert "PUT" not in note
    form.reject()

    pane.pause_button.click()
    await wait_until(lambda: "delivers messages again" in pane.notice.text())
    assert tenant.http.get(PATH).json()["webhookEndpoints"][0]["enabled"] is True
    pane.shutdown()


async def test_a_failed_test_delivery_says_why_and_the_log_pages_back(
    qtbot: QtBot,
    connected: tuple[AppSession, TenantHandle],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session, tenant = connected
    _create(tenant, "nobody home", f"http://127.0.0.1:{closed_port()}/hook")
    pane = await _pane(qtbot, session)
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.table.selectRow(0)
    await wait_until(lambda: pane.test_button.isEnabled(), seconds=40)
    for _ in range(3):
        pane.last_ping = None
        pane.test_selected()
        await wait_until(lambda: pane.last_ping is not None)
    notice = pane.notice.text()
    assert notice.startswith("Test delivery failed: The receiver refused the connection")
    # Plain words only: the technical detail is in the delivery log.
    assert "Errno" not in notice and "Connect call failed" not in notice

    monkeypatch.setattr(deliveries, "PAGE_SIZE", 2)
    pane.show_log()
    log = pane.dialog
    assert isinstance(log, DeliveryLogDialog)
    await wait_until(lambda: log.table.rowCount() == 2)
    assert log.summary.text().startswith("2 of 3 messages")
    assert log.more_button.isVisible()
    error = log.table.item(0, 5).text()  # type: ignore[union-attr]
    assert error.startswith("The receiver refused the connection")
    assert error.endswith(f"({log.deliveries[0].attempts[0].error_detail})")
    assert "ConnectionRefusedError" in error
    # To the second, labelled (the one clock's form): "Nov 28 14:05:09 UTC".
    sent = log.table.item(0, 0).text()  # type: ignore[union-attr]
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2} \d\d:\d\d:\d\d [A-Z]{3,4}", sent), sent
    log.more_button.click()
    await wait_until(lambda: log.table.rowCount() == 3)
    assert not log.more_button.isVisible()
    assert len({d.message_id for d in log.deliveries}) == 3
    log.accept()

    pane.confirm_delete()
    answer("confirmDelete", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: pane.model.rowCount() == 0)
    pane.shutdown()


@pytest.mark.parametrize(
    ("error", "meaning"),
    [
        ("cannot connect: [Errno -2] Name or service not known", "host name could not be found"),
        ("ConnectError: [Errno 111] Connection refused", "refused the connection"),
        ("no answer within 10 s", "did not answer in time"),
        ("TLS: CERTIFICATE_VERIFY_FAILED", "TLS certificate was not accepted"),
        ("HTTP 401: unauthorized", "refused the credentials"),
        ("HTTP 503: busy", "failed (a server error"),
    ],
)
def test_delivery_errors_in_plain_words_keep_the_original(error: str, meaning: str) -> None:
    # As a service from before logged them: one technical text.
    text = delivery_error_text(error)
    assert meaning in text and text.endswith(f"({error})") and text[0].isupper()
    assert delivery_error_reason(error) == text
    assert delivery_error_text("something new") == "something new"
    assert delivery_error_text(None) == ""


def test_plain_words_of_the_service_are_shown_as_they_are() -> None:
    words = "The receiver's TLS certificate was not accepted (self-signed certificate)"
    detail = "SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"
    # Not said again by the table (its words mention TLS), the detail beside them in the log.
    assert delivery_error_reason(words, detail) == words
    assert delivery_error_text(words, detail) == f"{words} ({detail})"


async def test_the_service_failing_keeps_the_form_as_it_was(
    qtbot: QtBot, proxied: tuple[AppSession, TenantHandle, FaultyProxy]
) -> None:
    session, tenant, proxy = proxied
    pane, form = await _new_form(qtbot, session)
    type_text(form.name, "ERP feed")
    type_text(form.url, "https://erp.example.com/hooks")
    form.headers.add_row("X-Team", "dispatch")
    proxy.inject(Fault(status=503, path_prefix=PATH), times=3)
    form.save()
    await wait_until(lambda: form.general_error.isVisible())
    assert form.isVisible() and form.name.text() == "ERP feed"
    assert form.headers.values() == {"X-Team": "dispatch"}
    assert form.buttons.isEnabled()  # the user can try again
    proxy.faults.clear()
    form.save()
    await wait_until(lambda: not form.isVisible())
    await wait_until(lambda: pane.model.rowCount() == 1)
    assert [c["configName"] for c in tenant.http.get(PATH).json()["webhookEndpoints"]] == [
        "ERP feed"
    ]
    pane.dialog.close()  # type: ignore[union-attr]  (the signing secret)
    pane.shutdown()


# --- what is saved is what the form shows (issue 14, point 9) ---------------------------------


def _choose(combo: QComboBox, value: str) -> None:
    """Pick an entry as a user does (the form sees `activated`)."""
    index = combo.findData(value)
    assert index >= 0, value
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def _tick_types(form: WebhookFormDialog, *event_types: str) -> None:
    for item in form.event_types.all_items():
        if item.data(Qt.ItemDataRole.UserRole) in event_types:
            item.setCheckState(Qt.CheckState.Checked)  # as a click on its box does


async def test_switching_kinds_back_and_forth_saves_exactly_what_the_form_shows(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    pane, form = await _new_form(qtbot, session)
    type_text(form.name, "ERP events")
    type_text(form.url, "https://erp.example.com/hooks")
    form.tabs.setCurrentIndex(TABS["content"])
    # The default kind is the classic push: context and event types are greyed and say why.
    assert form.kind.currentData() == ""
    route = form.context[ContextKind.ROUTE]
    assert not route.isEnabled() and "whole shipment" in route.toolTip()
    assert not form.event_types.isEnabled() and "Event added" in form.event_types.toolTip()
    assert form.kind_note.isVisible() and "whole shipment" in form.kind_note.text()
    assert "every change of every shipment is sent" in form.sends.text()

    _choose(form.kind, WebhookEventType.EVENT_ADDED.value)
    assert route.isEnabled() and form.event_types.isEnabled() and not form.kind_note.isVisible()
    route.click()
    form.modes[TransportationMode.TL].click()
    _tick_types(form, "PICKED_UP", "DELIVERED")
    assert form.event_types.chosen() == ["DELIVERED", "PICKED_UP"]

    # Classic: what does not apply is set aside, named, and not sent.
    _choose(form.kind, "")
    assert not route.isChecked() and form.event_types.chosen() == []
    note = form.kind_note.text()
    assert "Set aside, not sent: Route; event types Delivered, Picked up" in note
    assert "Classic full push" in form.sends.text() and "modes Truckload (TL)" in form.sends.text()
    assert form.wire()["webhookConfiguration"] == {
        "filters": {"transportationModes": ["TL"], "eventTypes": []}
    }
    # A state kind takes the context back but not the event types.
    _choose(form.kind, WebhookEventType.STATE_UPDATED.value)
    assert route.isChecked() and form.event_types.chosen() == []
    assert "event types Delivered, Picked up" in form.kind_note.text()
    # Back to an event kind: everything typed is there again.
    _choose(form.kind, WebhookEventType.EVENT_UPDATED.value)
    assert route.isChecked() and form.event_types.chosen() == ["DELIVERED", "PICKED_UP"]
    assert not form.kind_note.isVisible()
    form.modes[TransportationMode.OCEAN].click()
    form.modes[TransportationMode.TL].click()  # untick again
    shown = form.sends.text()
    assert "Event updated, with the shipment, its route" in shown
    assert "modes Ocean; event types Delivered, Picked up" in shown

    form.save()
    await wait_until(lambda: not form.isVisible())
    stored = tenant.http.get(PATH).json()["webhookEndpoints"]
    assert len(stored) == 1
    assert {k: stored[0][k] for k in ("configName", "url", "method", "enabled")} == {
        "configName": "ERP events",
        "url": "https://erp.example.com/hooks",
        "method": "POST",
        "enabled": True,
    }
    assert stored[0]["webhookConfiguration"] == {
        "webhookEventType": "shipments.v1.event.updated",
        "shipmentV1Event": {"includeContext": ["SHIPMENT", "ROUTE"]},
        "filters": {"eventTypes": ["DELIVERED", "PICKED_UP"], "transportationModes": ["OCEAN"]},
    }
    await wait_until(lambda: pane.model.rowCount() == 1)
    pane.dialog.close()  # type: ignore[union-attr]  (the signing secret)
    pane.shutdown()


async def test_no_filters_is_said_before_saving_and_a_stored_odd_type_is_kept(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    body = {
        "configName": "odd",
        "url": "https://odd.example.com/hooks",
        "webhookConfiguration": {
            "webhookEventType": "shipments.v1.event.added",
            "filters": {"eventTypes": ["YARD_CHECK"]},
        },
    }
    assert tenant.http.put(PATH, json=body).status_code == 200
    pane, form = await _editing_the_one(qtbot, session)
    # A type the picker does not offer is listed, ticked, so the edit keeps it.
    assert form.event_types.chosen() == ["YARD_CHECK"]
    assert "event types Yard check" in form.sends.text()
    for item in form.event_types.all_items():
        item.setCheckState(Qt.CheckState.Unchecked)
    # Said on every tab, before saving: nothing filters, so every change is sent.
    assert form.sends.isVisibleTo(form)
    assert "Filters:</b> none, so every change of every shipment is sent" in form.sends.text()
    form.save()
    await wait_until(lambda: not form.isVisible())
    stored = tenant.http.get(PATH).json()["webhookEndpoints"][0]
    assert stored["webhookConfiguration"] == {
        "webhookEventType": "shipments.v1.event.added",
        "shipmentV1Event": {"includeContext": ["SHIPMENT"]},
    }
    await wait_until(lambda: "every change of every shipment" in pane.summary.text())
    pane.shutdown()


def test_greyed_controls_look_greyed_and_the_wheel_does_not_change_the_kind(
    qtbot: QtBot, session: AppSession
) -> None:
    form = WebhookFormDialog(session, None)
    qtbot.addWidget(form)
    activate(qtbot, form)
    for palette in (light_palette(), dark_palette()):
        for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text):
            active = palette.color(QPalette.ColorGroup.Active, role)
            assert palette.color(QPalette.ColorGroup.Disabled, role) != active, role
        base = QPalette.ColorRole.Base
        assert palette.color(QPalette.ColorGroup.Disabled, base) != palette.color(base)
    qtbot.keyClick(form, "W", Qt.KeyboardModifier.AltModifier)
    # A wheel turned over the closed kind list while scrolling the form changes nothing.
    form.name.setFocus()
    center = QPointF(form.kind.rect().center())
    wheel = QWheelEvent(
        center,
        form.kind.mapToGlobal(center),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(form.kind, wheel)
    assert form.kind.currentData() == ""
    # The picker is worked with the keyboard: Space ticks the current type.
    _choose(form.kind, WebhookEventType.EVENT_REMOVED.value)
    form.event_types.setFocus()
    form.event_types.setCurrentRow(
        form.event_types.all_items().index(
            next(i for i in form.event_types.all_items() if i.text() == "Delivered")
        )
    )
    qtbot.keyClick(form.event_types, Qt.Key.Key_Space)
    assert form.event_types.chosen() == ["DELIVERED"]
    assert form.dirty
    form.close()
