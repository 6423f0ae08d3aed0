"""The plain-words check reads what a pane shows in rich text too (a booking detail's
QTextBrowser): a code there is found, an id shown under its name is wanted."""

from __future__ import annotations

from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from tests.ui.plain_words import leaks

ID = "735a44f8-f846-4973-a763-d7c928013993"


def test_rich_text_is_read(qtbot: QtBot) -> None:
    pane = QWidget()
    qtbot.addWidget(pane)
    body = QTextBrowser(pane)
    QVBoxLayout(pane).addWidget(body)
    body.setHtml(f"<p>Reference type PURCHASE_ORDER</p><p>Booking id <a href='#'>Copy</a></p>{ID}")
    assert leaks(pane) == [body.toPlainText()]
    body.setHtml(f"<p>Purchase order</p><p>Booking id <a href='#'>Copy</a></p><p>{ID}</p>")
    assert leaks(pane) == []
    body.setHtml(f"<p>Booked as {ID}</p>")
    assert leaks(pane) == [body.toPlainText()]
