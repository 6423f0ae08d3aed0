"""The mouse wheel scrolls a form; it changes a drop-down, a spin box, a date or time editor
(or a slider) only once the user has clicked or tabbed into it.

Qt's own way let the wheel change whichever of them was under the pointer while a dispatcher
scrolled a long form (the push form's temperature unit turned to Fahrenheit), and the value
they did not choose was saved. Installed once at the start (`install_wheel_guard`), so every
form and every editor in a table's cell behaves so without a line of its own.

The guard watches the windows, not the application: a wheel reaches a window before Qt hands
it to the widget under the pointer (and gives that widget the keyboard, were its focus policy
WheelFocus, as these editors' is). An application event filter in Python is handed every
object's every event, among them objects Qt is still constructing: PySide then builds their
wrapper inside the filter, and the app crashed as the maps' web engine made its first
request (PySide 6.11, `getWrapperForQObject` re-entered).
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QEvent, QObject, QPointF
from PySide6.QtGui import QMouseEvent, QWheelEvent, QWindow
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDial,
    QSlider,
    QWidget,
)

# The editors whose value the wheel steps (a date and time edit is a QAbstractSpinBox; a
# scroll bar, the other QAbstractSlider, is what the wheel is for).
GUARDED: tuple[type[QWidget], ...] = (QComboBox, QAbstractSpinBox, QSlider, QDial)


class WheelGuard(QObject):
    """An event filter on each window: a wheel over an editor the user has not put the
    keyboard in goes to the widgets under it (the form's scroll area, a table) as Qt passes
    on a wheel a widget has no use for; the editor keeps its value and does not take the
    keyboard.

    The keyboard is the user's where they clicked, or where it was as they let go of a key
    (Tab, a label's Alt shortcut, an arrow typed into the field): not the first field a form
    opens with it in (New shipment's mode), which a wheel over it changed as well."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._chosen: weakref.ref[QWidget] | None = None  # the editor the user put it in

    def watch_windows(self) -> None:
        """Watch every window made so far (watching one twice is watching it once)."""
        for widget in QApplication.topLevelWidgets():
            window = widget.windowHandle()
            if window is not None:
                window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if not isinstance(watched, QWindow):
            return False
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress:
            assert isinstance(event, QMouseEvent)
            clicked = _editor_at(watched, event.position())
            if clicked is not None:  # a click elsewhere (a label) leaves the keyboard where it is
                self._chosen = weakref.ref(clicked)
        elif kind == QEvent.Type.KeyRelease and QApplication.activePopupWidget() is None:
            focused = QApplication.focusWidget()
            editor = _editor_of(focused) if focused is not None else None
            self._chosen = weakref.ref(editor) if editor is not None else None
        elif kind == QEvent.Type.Wheel:
            assert isinstance(event, QWheelEvent)
            editor = _editor_at(watched, event.position())
            if editor is not None and not self._user_in(editor):
                _pass_on(editor, event)
                return True
        return False

    def _user_in(self, editor: QWidget) -> bool:
        chosen = self._chosen() if self._chosen is not None else None
        return chosen is editor and has_keyboard(editor)


def _editor_at(window: QWindow, position: QPointF) -> QWidget | None:
    """The guarded editor at `position` of `window`, if any. None while a pop-up is open or a
    modal dialog blocks the window: Qt's own rules then."""
    if QApplication.activePopupWidget() is not None:
        return None
    top = next((w for w in QApplication.topLevelWidgets() if w.windowHandle() is window), None)
    modal = QApplication.activeModalWidget()
    if top is None or (modal is not None and modal is not top):
        return None
    under = top.childAt(position.toPoint())
    return _editor_of(under) if under is not None and under is not top else None


def _editor_of(widget: QWidget) -> QWidget | None:
    """`widget` or the guarded editor it is part of (a drop-down's line edit), if any."""
    part: QWidget | None = widget
    while part is not None and not part.isWindow():
        if isinstance(part, GUARDED):
            return part
        part = part.parentWidget()
    return None


def _pass_on(editor: QWidget, event: QWheelEvent) -> None:
    """Offer the wheel to the parents of `editor`, nearest first, up to the window, until one
    takes it, as Qt does (a scroll area's viewport passes it to the scroll area)."""
    target = editor.parentWidget()
    while target is not None:
        local = QPointF(target.mapFromGlobal(event.globalPosition().toPoint()))
        offered = QWheelEvent(
            local,
            event.globalPosition(),
            event.pixelDelta(),
            event.angleDelta(),
            event.buttons(),
            event.modifiers(),
            event.phase(),
            event.inverted(),
            event.source(),
            event.pointingDevice(),
        )
        if QApplication.sendEvent(target, offered) and offered.isAccepted():
            return
        if target.isWindow():
            return
        target = target.parentWidget()


def has_keyboard(widget: QWidget) -> bool:
    """Whether the keyboard is in `widget`: itself, or a part of it (an editable drop-down's
    or a spin box's line edit)."""
    focused = QApplication.focusWidget()
    return focused is not None and (focused is widget or widget.isAncestorOf(focused))


def install_wheel_guard(app: QApplication) -> WheelGuard:
    """Guard the windows of `app`: those there are, and each window made later from the time
    it first gets the keyboard (a window is shown active). The guard is the application's
    child: it lives as long as it."""
    guard = WheelGuard(app)
    guard.watch_windows()
    app.focusWindowChanged.connect(guard.watch_windows)
    return guard
