"""The plain-words check reads what a pane shows in rich text too (a booking detail's
QTextBrowser): a code there is found, an id shown under its name is wanted."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget
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


def test_an_id_is_wanted_only_under_or_after_its_label(qtbot: QtBot) -> None:
    """A uuid in a sentence is a leak though "id" comes before it; one under or after a label
    ending in " id" (the booking detail's Ids, a form's label row) is the id, shown whole."""
    pane = QWidget()
    qtbot.addWidget(pane)
    label = QLabel(pane)
    QVBoxLayout(pane).addWidget(label)
    for sentence in (
        f"No company has this id: {ID}",
        f"The service refused this id {ID}: check it",
        f"A shipment with id {ID} is not yours",
        ID,
    ):
        label.setText(sentence)
        assert leaks(pane) == [sentence]
    for shown in (
        f"Booking id Copy\n{ID}\nShipment id Copy\n{ID}\nCreated 2 min ago",
        f"Your company id: {ID}",
        f"Acme Freight: client id {ID}",
        f"Tracked shipment id {ID}",
    ):
        label.setText(shown)
        assert leaks(pane) == [], shown
