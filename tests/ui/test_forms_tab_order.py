"""Tab goes through every field of a form top to bottom, then to its buttons, and round again;
Shift+Tab goes back the same way. On each tab page of a tabbed form too.

A row of several fields used to trap Tab (the stop location's three street lines, its latitude,
longitude and Pick on map; the rate request's saved-location search and list; the webhook's
URL; the vehicle search's radius): `FieldErrors.add_row` pointed the row's holder at the first
field (its focus proxy) before the row's own container, and Qt puts a focus proxy that is a
child right after the widget it stands for, so the container's turn moved the first field
back before the holder: the holder came after the row's fields in the focus chain and Tab
from the last field went to it, that is back to the first. The stop location's hours grids
went round their cells for ever (Qt's table does): Tab now leaves them from the last cell.
So did the new shipment's and the booking's tables with a drop-down in a cell (a stop's type):
every table the user edits (`EditTable`) leaves from its last cell, Shift+Tab from its first,
to the field after or before the table (not the cells' drop-downs', after the buttons)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QTabWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.dialogs.booking_form import BookingFormDialog
from freightdesk.ui.panes.rates.form import RateRequestFormDialog
from freightdesk.ui.panes.shipments.form import ShipmentFormDialog
from freightdesk.ui.panes.stop_locations.form import StopLocationFormDialog
from freightdesk.ui.panes.vehicles.form import VehicleSearchForm
from freightdesk.ui.panes.webhooks.form import WebhookFormDialog
from tests.support import wait_until
from tests.ui.conftest import activated
from tests.ui.test_export_panes import _from_loop

FORMS: dict[str, Callable[[AppSession], QWidget]] = {
    "new shipment": lambda s: ShipmentFormDialog(s, None),
    "booking": lambda s: BookingFormDialog(s),
    "stop location": lambda s: StopLocationFormDialog(s, None),
    "rate request": lambda s: RateRequestFormDialog(s),
    "webhook": lambda s: WebhookFormDialog(s, None),
    "vehicle search": lambda _s: VehicleSearchForm(),
}
PRESSES = 200  # a table takes a Tab per cell; far more than any form's fields and cells


def _name(widget: QWidget) -> str:
    return f"{type(widget).__name__} {widget.objectName()!r} {widget.property('text') or ''!r}"


def _inside_a_field(widget: QWidget) -> bool:
    """A spin box's or drop-down's own line edit, a table's cell editor: part of a field."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractSpinBox | QComboBox | QAbstractItemView):
            return True
        parent = parent.parentWidget()
    return False


def _field(widget: QWidget | None) -> QWidget:
    """`widget`, or the table it is a cell's drop-down of (a table's cells are one field)."""
    assert widget is not None
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractItemView):
        parent = parent.parentWidget()
    return widget if parent is None else parent


def _fields(page: QWidget) -> set[QWidget]:
    """What Tab should reach on `page`: every shown, enabled widget that takes Tab itself."""
    return {
        w
        for w in page.findChildren(QWidget)
        if w.isVisible()
        and w.isEnabled()
        and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        and w.focusProxy() is None
        and not _inside_a_field(w)
    }


async def _walk(qtbot: QtBot, key: Qt.Key) -> list[QWidget]:
    """The widgets `key` (Tab or Backtab) takes the keyboard to from where it is, one each
    (a table's cells, and the drop-downs in them, are one), until one comes again."""
    seen: list[QWidget] = []
    for _ in range(PRESSES):
        here = _field(QApplication.focusWidget())
        if not seen or seen[-1] is not here:
            if here in seen:
                return seen[seen.index(here) :]
            seen.append(here)
        await _from_loop(lambda: qtbot.keyClick(QApplication.focusWidget(), key))
    raise AssertionError(f"no round after {PRESSES} presses: {[_name(w) for w in seen]}")


def _reading_order(form: QWidget, widgets: list[QWidget]) -> None:
    """Each widget is below the one before, or on the same line to its right."""
    for before, after in pairwise(widgets):
        was = before.rect().translated(before.mapTo(form, QPoint(0, 0)))
        at = after.rect().translated(after.mapTo(form, QPoint(0, 0)))
        below = at.top() >= was.bottom() - 2
        right = at.top() < was.bottom() and at.left() >= was.right() - 2
        assert below or right, f"{_name(after)} comes after {_name(before)}"


@pytest.mark.parametrize("kind", list(FORMS))
async def test_tab_goes_through_every_field_top_to_bottom(
    qtbot: QtBot, session: AppSession, kind: str
) -> None:
    form = FORMS[kind](session)
    qtbot.addWidget(form)
    await activated(form)
    tabs = form.findChild(QTabWidget)
    pages = [tabs.widget(i) for i in range(tabs.count())] if tabs is not None else [form]
    for index, page in enumerate(pages):
        if tabs is not None and index > 0:
            bar = tabs.tabBar()
            where = bar.tabRect(index).center()
            await _from_loop(
                lambda b=bar, p=where: qtbot.mouseClick(b, Qt.MouseButton.LeftButton, pos=p)
            )
            await wait_until(lambda i=index: tabs.currentIndex() == i)
        forward = await _walk(qtbot, Qt.Key.Key_Tab)
        names = [_name(w) for w in forward]
        fields = _fields(page)
        missing = [_name(w) for w in fields if w not in forward]
        assert not missing, (missing, names)
        on_page = [w for w in forward if w in fields]
        # The round starts anywhere: from the first field of the page on.
        first = min(
            on_page,
            key=lambda w: (w.mapTo(form, QPoint(0, 0)).y(), w.mapTo(form, QPoint(0, 0)).x()),
        )
        start = on_page.index(first)
        _reading_order(form, on_page[start:] + on_page[:start])
        buttons = [w for w in forward if isinstance(w.parentWidget(), QDialogButtonBox)]
        if form.findChild(QDialogButtonBox) is not None:
            assert buttons, names
        backward = await _walk(qtbot, Qt.Key.Key_Backtab)
        assert set(backward) == set(forward), ([_name(w) for w in backward], names)
    form.close()
