"""A dialog's size within its screen: its buttons stay in sight on a 1366x768 laptop."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDialog, QFrame, QLayout, QScrollArea, QVBoxLayout, QWidget

ROOM_AROUND = 80  # of the screen's available height, left to the title bar and a taskbar


def fitting_height(window: QWidget, wanted: int) -> int:
    """`wanted`, or less where the screen of `window` leaves no room for it and its title bar
    and a taskbar (availableGeometry leaves out a taskbar only when the window manager says)."""
    screen = window.screen()
    if screen is None:
        return wanted
    return min(wanted, screen.availableGeometry().height() - ROOM_AROUND)


def resize_to_fit(window: QWidget, width: int, height: int) -> None:
    """Resize `window` to `width` by `height`, or shorter to fit its screen (see above)."""
    window.resize(width, fitting_height(window, height))


def asked_size(widget: QWidget) -> QSize:
    """What `widget` asks for: its size hint, as tall as its word-wrapped lines need at that
    width (taller where narrower), which a size hint leaves out."""
    hint = widget.sizeHint()
    if widget.hasHeightForWidth():
        hint.setHeight(max(hint.height(), widget.heightForWidth(hint.width())))
    return hint


def fit_on_screen(dialog: QDialog, in_sight: Sequence[QWidget]) -> None:
    """Size `dialog`, about to show, to fit the height of its screen (the one of the window it
    opens over) with room for a title bar and a taskbar. Where its fields cannot be that short
    they scroll, and `in_sight` (its general error, its buttons) stay under them, in sight.
    Its width is its own: the forms are made for a 1366 px screen."""
    screen = (dialog.parentWidget() or dialog).screen()
    layout = dialog.layout()
    if screen is None or layout is None:
        return
    available = screen.availableGeometry()
    room = available.height() - ROOM_AROUND
    if not dialog.testAttribute(Qt.WidgetAttribute.WA_Resized):
        # The size its fields ask for (word-wrapped lines counted), which the dialog did not
        # choose: not adjustSize's, which stops at two thirds of the screen (a booking's 753 px
        # became 600 on a 1366x768 laptop, and 730 on a 1920x1080 screen, its first tab
        # scrolling where the room was there).
        hint = asked_size(dialog)
        dialog.resize(min(hint.width(), available.width()), hint.height())
    wanted = dialog.size()
    # Its fields scroll only where they cannot be squeezed into the room: a minimum height
    # the dialog chose (for looks) gives way first. Only that one is lowered: any minimum set
    # here would keep the layout from growing the dialog as its fields grow (problems said
    # under them), which then squeezed them over each other.
    if dialog.minimumHeight() > room:
        dialog.setMinimumHeight(room)
    if dialog.minimumSizeHint().height() > room:
        _scroll_fields(dialog, layout, in_sight)
    dialog.resize(wanted.width(), min(wanted.height(), room))


class FieldsScroll(QScrollArea):
    """A form's fields (`widget`), scrolled where the room is less than they need, never
    squeezed over each other: their height at their width counts the lines word-wrapped
    labels need (problems said under their fields), which a plain layout and a tab widget
    leave out (a booking's charges were drawn under their Add and Remove buttons). Its size
    hint is theirs (a plain scroll area's stops at about 600x400), so the form is as big as
    before where there is room; Tab goes from field to field, scrolling the one it reaches
    into sight."""

    def __init__(self, fields: QWidget, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("formFields")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWidgetResizable(True)
        self.setWidget(fields)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        fields = self.widget()
        if fields is None:
            return super().sizeHint()
        wanted = asked_size(fields)
        frame = 2 * self.frameWidth()
        return wanted + QSize(frame + self.verticalScrollBar().sizeHint().width(), frame)


def _scroll_fields(dialog: QDialog, layout: QLayout, in_sight: Sequence[QWidget]) -> None:
    """Move what `layout` holds, but `in_sight`, into a scroll area in the dialog, `in_sight`
    under it. The fields move to a widget of the same window: the keyboard's Tab order stays."""
    kept = [widget for widget in in_sight if layout.indexOf(widget) >= 0]
    for widget in kept:
        layout.removeWidget(widget)
    margins = layout.contentsMargins()
    fields = QWidget(dialog)
    fields.setLayout(layout)  # taken from the dialog, the fields with it
    layout.setContentsMargins(0, 0, 0, 0)
    scroll = FieldsScroll(fields, dialog)
    outer = QVBoxLayout(dialog)
    outer.setContentsMargins(margins)
    outer.addWidget(scroll, 1)
    for widget in kept:
        outer.addWidget(widget)
