"""The Connections dialog: add, validate, test against the real service, remove."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from freightdesk.service.profiles import LOCAL_PROFILE_ID, ProfileStore
from freightdesk.ui.dialogs.connections import ConnectionsDialog
from tests.support import LiveService, make_tenant, wait_until


def _dialog(qtbot: QtBot, profiles: ProfileStore) -> ConnectionsDialog:
    dialog = ConnectionsDialog(profiles)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _fill(dialog: ConnectionsDialog, name: str, url: str, client_id: str, secret: str) -> None:
    dialog.add_profile()
    for edit, text in (
        (dialog.name, name),
        (dialog.base_url, url),
        (dialog.client_id, client_id),
        (dialog.secret, secret),
    ):
        edit.setText(text)
        edit.textEdited.emit(text)


def test_local_sandbox_is_listed_and_read_only(qtbot: QtBot, profiles: ProfileStore) -> None:
    dialog = _dialog(qtbot, profiles)
    assert dialog.list.count() == 1
    assert "Local sandbox" in dialog.list.item(0).text()
    assert not dialog.base_url.isEnabled()
    assert not dialog.remove_button.isEnabled()


def test_bad_input_is_shown_next_to_the_field(qtbot: QtBot, profiles: ProfileStore) -> None:
    dialog = _dialog(qtbot, profiles)
    _fill(dialog, "Team", "not a url", "abc", "secret")
    assert not dialog.save()
    assert "address" in dialog.errors.message_for("base_url")
    assert dialog.name.text() == "Team"  # nothing the user typed is lost
    dialog.base_url.setText("https://freight.example.test")
    assert dialog.save()
    assert [p.name for p in profiles.profiles] == ["Local sandbox", "Team"]
    assert dialog.errors.message_for("base_url") == ""


def test_a_new_connection_needs_its_secret(qtbot: QtBot, profiles: ProfileStore) -> None:
    dialog = _dialog(qtbot, profiles)
    _fill(dialog, "Team", "https://freight.example.test", "abc", "")
    assert not dialog.save()
    assert dialog.errors.message_for("secret")


def test_every_problem_of_a_new_connection_at_once(qtbot: QtBot, profiles: ProfileStore) -> None:
    dialog = _dialog(qtbot, profiles)
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(dialog.base_url, "freight.example.test")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    # Each beside its field in one go, not one per Save.
    assert dialog.errors.message_for("name") == "Give the connection a name"
    assert "address" in dialog.errors.message_for("base_url")
    assert dialog.errors.message_for("client_id")
    assert dialog.errors.message_for("secret") == "Enter the client secret"
    assert dialog.base_url.text() == "freight.example.test"
    assert [p.name for p in profiles.profiles] == ["Local sandbox"]


async def test_test_connection_against_the_real_service(
    qtbot: QtBot, profiles: ProfileStore, sqlite_service: LiveService
) -> None:
    tenant = make_tenant(sqlite_service)
    dialog = _dialog(qtbot, profiles)
    _fill(dialog, "Local test", sqlite_service.url, tenant.client_id, "wrong-secret")
    dialog.test_connection()
    await wait_until(
        lambda: dialog.test_button.isEnabled() and dialog.test_result.text() != "Testing…"
    )
    assert "did not accept" in dialog.test_result.text()
    dialog.secret.setText(tenant.client_secret)
    dialog.test_connection()
    await wait_until(lambda: dialog.test_result.text().startswith("Connected"), seconds=60)
    tenant.http.close()


def test_remove_asks_first(qtbot: QtBot, profiles: ProfileStore) -> None:
    dialog = _dialog(qtbot, profiles)
    _fill(dialog, "Team", "https://freight.example.test", "abc", "s")
    assert dialog.save()
    dialog.remove_profile()
    box = QApplication.activeModalWidget()
    assert isinstance(box, QMessageBox)
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert len(profiles.profiles) == 2
    dialog.remove_profile()
    box = QApplication.activeModalWidget()
    assert isinstance(box, QMessageBox)
    box.button(QMessageBox.StandardButton.Yes).click()
    assert [p.id for p in profiles.profiles] == [LOCAL_PROFILE_ID]


def _question() -> QMessageBox | None:
    box = QApplication.activeModalWidget()
    if isinstance(box, QMessageBox) and box.objectName() == "unsavedChanges":
        return box
    return None


def _close(qtbot: QtBot, dialog: ConnectionsDialog) -> QMessageBox:
    """Esc in the dialog: the question it asks before its changes are lost."""
    qtbot.keyClick(dialog.name, Qt.Key.Key_Escape)
    box = _question()
    assert box is not None
    return box


def test_closing_with_unsaved_changes_asks(qtbot: QtBot, profiles: ProfileStore) -> None:
    """The forms' one question (`ask_discard`): Save, Discard or Keep editing; Esc keeps
    editing, as in every form (this dialog asked Save / Discard / Cancel of its own)."""
    dialog = _dialog(qtbot, profiles)
    qtbot.waitExposed(dialog)
    _fill(dialog, "Half typed", "https://x.test", "", "")
    box = _close(qtbot, dialog)
    assert sorted(b.text().replace("&", "") for b in box.buttons()) == [
        "Discard",
        "Keep editing",
        "Save",
    ]
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: _question() is None)
    assert dialog.isVisible() and dialog.name.text() == "Half typed"

    # Save, with no client id: refused, the problem beside its field, the dialog kept.
    box = _close(qtbot, dialog)
    qtbot.keyClick(box, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: _question() is None)
    assert dialog.isVisible() and dialog.errors.message_for("client_id")
    assert [p.name for p in profiles.profiles] == ["Local sandbox"]

    # Save once it is whole: saved, and the dialog closes.
    for edit, text in ((dialog.client_id, "abc"), (dialog.secret, "s")):
        edit.setFocus()
        qtbot.keyClicks(edit, text)
    box = _close(qtbot, dialog)
    qtbot.keyClick(box, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert [p.name for p in profiles.profiles] == ["Local sandbox", "Half typed"]


def test_discarding_the_changes_closes_without_saving(qtbot: QtBot, profiles: ProfileStore) -> None:
    dialog = _dialog(qtbot, profiles)
    qtbot.waitExposed(dialog)
    _fill(dialog, "Half typed", "https://x.test", "", "")
    box = _close(qtbot, dialog)
    qtbot.keyClick(box, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert [p.name for p in profiles.profiles] == ["Local sandbox"]
