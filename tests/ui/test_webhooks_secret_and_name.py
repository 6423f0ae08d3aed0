"""The Webhooks pane's signing secret rotation and its form's name check, against the real
local service, with clicks and keys: Rotate asks first (saying how long the current secret
keeps verifying), then shows the new secret once with Copy and a warning; a name another
configuration has is said beside the name field before a save (asked by name)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.webhooks.form import WebhookFormDialog
from freightdesk.ui.panes.webhooks.pane import WebhooksPane
from freightdesk.ui.panes.webhooks.secret import SigningSecretDialog
from tests.support import TenantHandle, wait_until
from tests.ui.test_panes_support import answer, connected, message_box, shown_dialog, shown_pane

__all__ = ["connected"]

PATH = "/api/v4/webhooks"
LEFT = Qt.MouseButton.LeftButton
WAIT = 60.0


async def test_rotate_signing_secret_asks_then_shows_it_once(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    body = {"configName": "ERP feed", "url": "https://erp.example.com/in"}
    created = tenant.http.put(PATH, json=body).json()
    pane = await shown_pane(qtbot, session, WebhooksPane)
    await wait_until(lambda: pane.model.rowCount() == 1, WAIT)
    assert not pane.rotate_button.isEnabled()  # nothing selected
    rect = pane.table.visualRect(pane.model.index(0, 0))
    qtbot.mouseClick(pane.table.viewport(), LEFT, pos=rect.center())
    await wait_until(lambda: pane.rotate_button.isEnabled(), WAIT)

    # Asked first; keeping it changes nothing.
    qtbot.mouseClick(pane.rotate_button, LEFT)
    box = message_box("confirmRotate")
    assert box is not None and box.text() == "Make a new signing secret for ERP feed?"
    assert "stops verifying messages after 24 hours" in box.informativeText()
    assert "two signatures" in box.informativeText()
    answer("confirmRotate", QMessageBox.StandardButton.Cancel)
    assert pane.dialog is None

    qtbot.mouseClick(pane.rotate_button, LEFT)
    answer("confirmRotate", QMessageBox.StandardButton.Yes)
    await wait_until(lambda: isinstance(pane.dialog, SigningSecretDialog), WAIT)
    dialog = shown_dialog(pane, SigningSecretDialog)
    secret = dialog.secret.text()
    assert secret.startswith("whsec_") and secret != created.get("signingSecret")
    assert "will not be shown again" in dialog.warning.text()
    assert "New signing secret made for ERP feed." in pane.notice.text()
    qtbot.mouseClick(dialog.copy_button, LEFT)
    assert QGuiApplication.clipboard().text() == secret
    assert dialog.copy_button.text() == "Copied"
    dialog.close()
    # The secret is never in the list or the cache the pane keeps.
    assert all(c.signing_secret is None for c in pane.model.items)
    pane.shutdown()


async def test_a_taken_name_is_said_beside_the_name_before_saving(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle]
) -> None:
    session, tenant = connected
    body = {"configName": "ERP feed", "url": "https://erp.example.com/in"}
    assert tenant.http.put(PATH, json=body).status_code == 200
    pane = await shown_pane(qtbot, session, WebhooksPane)
    await wait_until(lambda: pane.model.rowCount() == 1, WAIT)

    qtbot.mouseClick(pane.new_button, LEFT)
    form = shown_dialog(pane, WebhookFormDialog)
    await wait_until(form.name.hasFocus, WAIT)
    qtbot.keyClicks(form.name, "ERP feed")
    qtbot.keyClick(form.name, Qt.Key.Key_Tab)  # on to the URL: the name is asked about
    await wait_until(lambda: bool(form.errors.message_for("configName")), WAIT)
    assert form.errors.message_for("configName") == (
        "A push configuration named 'ERP feed' already exists: choose another name"
    )
    form.name.setFocus()
    qtbot.keyClicks(form.name, " 2")
    qtbot.keyClick(form.name, Qt.Key.Key_Tab)
    await wait_until(lambda: form.errors.message_for("configName") == "", WAIT)
    assert form.name.text() == "ERP feed 2"
    form.dirty = False
    form.reject()
    pane.shutdown()
