"""The Booking detail as the regression walkthrough asked (1920 beside the list, 1366 below
it): headed by the booking's reference as the Bookings list names it ("CDRF · Processing" named
no booking), the mode in words ("Mode TL"), and its ids named in words, whole (they were broken
mid-token, "…333fa0c4936 / d", in the detail's narrow column) and copied by a click."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import QLabel, QTextBrowser
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from tests.server.test_rating_support import (
    booking_of,
    create_booking,
    quoted,
    set_profile,
    tl_request,
)
from tests.support import TenantHandle, wait_until
from tests.ui.clock_forms import cell
from tests.ui.plain_words import CODE, OTHER, UNIT, leaks
from tests.ui.test_bookings_pane import _bookings_pane
from tests.ui.test_capacity_support import settle
from tests.ui.test_columns_fit import AT_1366, AT_1920
from tests.ui.test_panes_support import connected, shown_pane

__all__ = ["connected"]


def _cut_lines(body: QTextBrowser) -> list[str]:
    """The lines of `body` as laid out now that start mid-token (their break not at a space)."""
    cut: list[str] = []
    block = body.document().begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        for n in range(1, layout.lineCount()):
            start = layout.lineAt(n).textStart()
            if not text[start - 1].isspace():
                cut.append(f"{text[:start]} / {text[start:]}")
        block = block.next()
    return cut


def _plain(rich: str) -> str:
    document = QTextDocument()
    document.setHtml(rich)
    return document.toPlainText()


def _click_copy(qtbot: QtBot, body: QTextBrowser, name: str) -> None:
    """Click the Copy link after `name` in `body`, as a user would."""
    found = body.document().find(f"{name} Copy")
    assert not found.isNull(), name
    found.setPosition(found.selectionEnd() - 2)  # inside "Copy"
    body.setTextCursor(found)
    body.ensureCursorVisible()
    spot = body.cursorRect(found).center()
    qtbot.mouseClick(body.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(spot))


@pytest.mark.parametrize("room", [AT_1920, AT_1366], ids=["1920", "1366"])
async def test_the_detail_is_headed_by_the_reference_with_whole_ids_in_words(
    qtbot: QtBot, connected: tuple[AppSession, TenantHandle], room: tuple[int, int]
) -> None:
    session, tenant = connected
    set_profile(tenant, "PRLF", behaviour="ACCEPT", responseDelaySeconds=0)
    request = tl_request(["PRLF"], quoteTypeFilter="CONTRACT")
    request["identifiers"] = [{"type": "PURCHASE_ORDER", "value": "PO-71437"}]
    made = create_booking(tenant, booking_of(quoted(tenant, request)["quotes"][0]))
    pane = await shown_pane(qtbot, session, _bookings_pane, room)
    await wait_until(lambda: pane.model.rowCount() == 1, 30)
    table = pane.table
    spot = table.visualRect(pane.model.index(0, 1)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(spot))
    detail = pane.detail
    # Booked: the tracked shipment's id as well.
    await wait_until(lambda: "Booked" in detail.title.text(), 45)
    beside = pane.splitter.orientation() is Qt.Orientation.Horizontal
    assert beside == (room == AT_1920)
    assert detail.booking is not None and detail.booking.master_shipment_id is not None

    title = _plain(detail.title.text())
    reference = cell(pane.model, 0, "Reference")  # the carrier's PRO after the order
    assert reference.startswith("PO-71437, "), reference
    assert title.startswith(f"{reference} · Prairie Line Freight (PRLF) · Booked"), title
    text = detail.body.toPlainText()
    assert "Mode\tTruckload (TL)" in text or "Truckload (TL)" in text.split("Mode", 1)[1], text
    # Plain words everywhere but the Ids section, where the ids are wanted.
    words_part, ids_part = text.split("\nIds\n", 1)
    # Who answered, in words: the carrier's system accepted it (the interface's API).
    assert "Answered by\nThe carrier's system\n" in words_part, words_part
    said = [m.group() for p in (CODE, OTHER, UNIT) for m in p.finditer(f"{title}\n{words_part}")]
    assert not said + leaks(detail), said + leaks(detail)
    lines = ids_part.splitlines()
    for name, value in (
        ("Booking id", made["id"]),
        ("Shipment id", str(detail.booking.shipment_id)),
        ("Tracked shipment id", str(detail.booking.master_shipment_id)),
    ):
        assert lines[lines.index(f"{name} Copy") + 1] == value, lines

    # Nothing cut mid-token: not the body's lines, nor a label's text, nor the detail wider
    # than its room.
    assert not _cut_lines(detail.body), _cut_lines(detail.body)
    assert detail.body.horizontalScrollBar().maximum() == 0
    for label in detail.findChildren(QLabel):
        if label.isVisible() and label.text() and not label.wordWrap():
            wanted = label.fontMetrics().horizontalAdvance(_plain(label.text()))
            assert wanted <= label.width(), (label.text(), wanted, label.width())
    title_lines = detail.title.height() // detail.title.fontMetrics().lineSpacing()
    assert title_lines == 1, (title, detail.title.height())

    QGuiApplication.clipboard().clear()
    _click_copy(qtbot, detail.body, "Booking id")
    await wait_until(lambda: QGuiApplication.clipboard().text() == made["id"])
    _click_copy(qtbot, detail.body, "Tracked shipment id")
    shipment = str(detail.booking.master_shipment_id)
    await wait_until(lambda: QGuiApplication.clipboard().text() == shipment)
    pane.shutdown()
    await settle(session)
