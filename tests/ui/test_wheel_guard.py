"""The mouse wheel over a form scrolls it; it changes a drop-down, a spin box or a date and time
editor only once the user has clicked or tabbed into it (ui/widgets/wheel_guard.py).

The wheel, clicks and keys are the platform's: QTest's functions taking a QWindow hand them to
Qt as the system would, at a point of the window, so Qt finds the widget under it, gives the
keyboard where the focus policy says, and offers a wheel to the parents, as for a user's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from PySide6.QtCore import QDate, QPoint, QPointF, Qt
from PySide6.QtGui import QWindow
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDateEdit,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSlider,
    QSpinBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.ui.panes.push.pane import PushPane
from freightdesk.ui.panes.shipments.form import ShipmentFormDialog
from freightdesk.ui.widgets.edit_table import FormTable
from freightdesk.ui.widgets.time_edit import UserTimeEdit
from freightdesk.ui.widgets.wheel_guard import WheelGuard, install_wheel_guard
from tests.support import wait_until
from tests.ui.conftest import exposed

DOWN = -120  # one notch towards the user: the form scrolls down, a drop-down steps down


@pytest.fixture
def guard(qapp: QApplication) -> Iterator[WheelGuard]:
    """The guard as the app installs it, before the windows are made; taken off after."""
    guard = install_wheel_guard(qapp)
    yield guard
    qapp.focusWindowChanged.disconnect(guard.watch_windows)
    guard.setParent(None)  # deleted with its last reference: off every window


def shown(qtbot: QtBot, window: QWidget) -> None:
    """`window` shown and active, as a window the user opens."""
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def _window_of(widget: QWidget) -> tuple[QWindow, QPoint]:
    """The window `widget` is in, and the middle of `widget` in it."""
    window = widget.window()
    handle = window.windowHandle()
    assert handle is not None
    return handle, widget.mapTo(window, widget.rect().center())


def wheel(widget: QWidget, delta: int = DOWN) -> None:
    """One notch of the wheel with the pointer at the middle of `widget`."""
    handle, where = _window_of(widget)
    QTest.wheelEvent(handle, QPointF(where), QPoint(0, delta))


def click(widget: QWidget) -> None:
    handle, where = _window_of(widget)
    QTest.mouseClick(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, where)


def key(in_window: QWidget, pressed: Qt.Key) -> None:
    handle, _ = _window_of(in_window)
    QTest.keyClick(handle, pressed)


def keyboard_in(widget: QWidget) -> bool:
    focused = QApplication.focusWidget()
    return focused is not None and (focused is widget or widget.isAncestorOf(focused))


class LongForm(QScrollArea):
    """A form taller than its scroll area, its editors at the top, in sight."""

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        fields = QWidget(self)
        form = QFormLayout(fields)
        self.name = QLineEdit(fields)  # the keyboard's, as the window shows
        form.addRow("Name", self.name)
        self.unit = QComboBox(fields)
        self.unit.addItems(["Celsius", "Fahrenheit"])
        self.typed_unit = QComboBox(fields)
        self.typed_unit.setEditable(True)
        self.typed_unit.addItems(["Litres", "Percent", "Gallons"])
        self.count = QSpinBox(fields)
        self.count.setValue(5)
        self.weight = QDoubleSpinBox(fields)
        self.weight.setValue(12.5)
        self.day = QDateEdit(QDate(2026, 11, 30), fields)
        self.when = UserTimeEdit(fields, datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
        self.level = QSlider(Qt.Orientation.Horizontal, fields)
        self.level.setValue(50)
        for label, editor in self.editors().items():
            form.addRow(label, editor)
        for row in range(40):
            form.addRow(f"Note {row}", QLabel("Below the fold", fields))
        self.setWidget(fields)
        self.resize(400, 300)

    def editors(self) -> dict[str, QWidget]:
        return {
            "Unit": self.unit,
            "Typed unit": self.typed_unit,
            "Count": self.count,
            "Weight": self.weight,
            "Day": self.day,
            "When": self.when,
            "Level": self.level,
        }

    def scrolled(self) -> int:
        return self.verticalScrollBar().value()


def value(editor: QWidget) -> object:
    if isinstance(editor, QComboBox):
        return editor.currentText()
    if isinstance(editor, QAbstractSpinBox):
        return editor.text()
    assert isinstance(editor, QSlider)
    return editor.value()


@pytest.fixture
def long_form(qtbot: QtBot, guard: WheelGuard) -> LongForm:
    form = LongForm()
    shown(qtbot, form)
    assert QApplication.focusWidget() is form.name
    return form


def test_the_wheel_over_an_editor_without_the_keyboard_scrolls_the_form(
    long_form: LongForm,
) -> None:
    for label, editor in long_form.editors().items():
        long_form.verticalScrollBar().setValue(0)
        before = value(editor)
        wheel(editor)
        assert value(editor) == before, label
        assert long_form.scrolled() > 0, f"{label}: the form did not scroll"
        assert not keyboard_in(editor), f"{label}: the wheel gave it the keyboard"


def test_the_wheel_changes_an_editor_clicked_or_tabbed_into(
    qtbot: QtBot, long_form: LongForm
) -> None:
    # Tabbed into from the field before (a click opens its list: offscreen Qt cannot show it).
    key(long_form, Qt.Key.Key_Tab)
    assert keyboard_in(long_form.unit)
    wheel(long_form.unit)
    assert long_form.unit.currentText() == "Fahrenheit"
    assert long_form.scrolled() == 0

    # Clicked into the text of an editable drop-down, of a spin box.
    line_edit = long_form.typed_unit.lineEdit()
    assert line_edit is not None
    click(line_edit)
    wheel(long_form.typed_unit)
    assert long_form.typed_unit.currentText() == "Percent"
    click(long_form.count)
    wheel(long_form.count, -DOWN)
    assert long_form.count.value() == 6

    # Tab from the spin box to the next one.
    key(long_form, Qt.Key.Key_Tab)
    assert keyboard_in(long_form.weight)
    wheel(long_form.weight, -DOWN)
    assert long_form.weight.value() == 13.5
    assert long_form.scrolled() == 0


def test_a_drop_down_a_form_opens_with_the_keyboard_in_changes_once_the_user_chooses_it(
    qtbot: QtBot, guard: WheelGuard, session: AppSession
) -> None:
    """New shipment opens with the keyboard in its Mode: the first field, not the user's
    choice. A wheel over it left the truckload a parcel."""
    dialog = ShipmentFormDialog(session, None)
    shown(qtbot, dialog)
    mode = dialog.mode
    assert keyboard_in(mode)
    before = mode.currentText()

    wheel(mode)
    assert mode.currentText() == before
    assert keyboard_in(mode)

    # Tabbed away and back (Shift+Tab), or clicked: the user's choice.
    key(dialog, Qt.Key.Key_Tab)
    assert not keyboard_in(mode)
    QTest.keyClick(dialog.windowHandle(), Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert keyboard_in(mode)
    wheel(mode)
    assert mode.currentIndex() == 1
    dialog.reject()


def test_a_drop_down_in_a_table_cell_changes_only_once_chosen(
    qtbot: QtBot, guard: WheelGuard
) -> None:
    """As the push form's sensor readings: a drop-down in each row of a table."""
    table = FormTable(40, 2)
    boxes = []
    for row in range(table.rowCount()):
        box = QComboBox(table)
        box.addItems(["Door", "Humidity", "Tire pressure"])
        table.setCellWidget(row, 0, box)
        boxes.append(box)
    table.resize(400, 300)
    shown(qtbot, table)

    box = boxes[1]
    wheel(box)
    assert box.currentText() == "Door"
    assert table.verticalScrollBar().value() > 0
    assert not keyboard_in(box)

    # Its cell made current from the keyboard gives it the keyboard, as a click would.
    table.verticalScrollBar().setValue(0)
    table.setFocus()
    table.setCurrentCell(1, 1)
    key(table, Qt.Key.Key_Left)
    assert keyboard_in(box)
    wheel(box)
    assert box.currentText() == "Humidity"
    assert table.verticalScrollBar().value() == 0


async def test_scrolling_the_push_form_leaves_its_temperature_unit(
    qtbot: QtBot, guard: WheelGuard, session: AppSession
) -> None:
    """The report: scrolling the Carrier push console's truckload form with the pointer over
    the temperature unit turned it to Fahrenheit. The pane as in the window, not connected
    (the form's fields are there before the service answers)."""
    pane = PushPane(session)  # it asks for its history at once: a test on the app's loop
    pane.resize(1366, 600)
    qtbot.addWidget(pane)
    pane.show()
    await exposed(pane)
    pane.activateWindow()
    await wait_until(pane.isActiveWindow)
    form = pane.truckload
    form.readings_box.setChecked(True)  # as when readings are to be pushed
    scroll = form.parentWidget()
    while scroll is not None and not isinstance(scroll, QScrollArea):
        scroll = scroll.parentWidget()
    assert scroll is not None
    unit = form.temperature_unit
    scroll.ensureWidgetVisible(unit)
    await wait_until(lambda: unit.visibleRegion().boundingRect().height() == unit.height())
    top = scroll.verticalScrollBar().value()
    assert top < scroll.verticalScrollBar().maximum()
    assert unit.currentText() == "Celsius"

    wheel(unit)
    assert unit.currentText() == "Celsius"
    assert scroll.verticalScrollBar().value() > top
    assert not keyboard_in(unit)

    # Clicked into, the wheel steps it as before.
    line_edit = unit.lineEdit()
    assert line_edit is not None
    scroll.ensureWidgetVisible(unit)
    click(line_edit)
    top = scroll.verticalScrollBar().value()
    wheel(unit)
    assert unit.currentText() == "Fahrenheit"
    assert scroll.verticalScrollBar().value() == top
    pane.shutdown()
