"""Form helpers: an error message right under the field it is about.

Every form of the app uses `FieldErrors`: fields register under the name the service (or the
service layer) uses for them (`address.postalCode`, `name`), and an error answer is spread
over the form with `show()`. Errors for names without a field go to the form's general label.

The service's messages name wire fields (`state or postalCode ...`, `truck.trailerType`): right
for an integrator reading an Error body, not for a dispatcher. `plain()` (in
`service.messages`, with every other rewording of the service's words) rewrites the ones a form
can meet; every form's `show()` goes through it, so do the webhook form's authentication
methods (shown beside their own fields) and `fold_rows`, and a form that gathers rows its own
way calls it before gathering.

A problem shown beside a field goes once the user edits that field, its room kept until the
form shows its problems again (the fields below stay under the pointer while the user edits);
words that say only that
the service could not be reached (`messages.passing`: the local service restarting, not
connected yet, say) go by themselves once it answers again (`bridge.answering_again`), in
every form and beside every field, with no pane wiring it: what was typed stays either way.
A pane's notice says them with `show_error` for the same.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from PySide6.QtCore import QModelIndex, QObject, Qt, SignalInstance
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QDateTimeEdit,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from freightdesk.service.messages import passing
from freightdesk.service.messages import plain as plain
from freightdesk.service.messages import plain_words as plain_words
from freightdesk.ui.bridge import answering_again
from freightdesk.ui.widgets.notice import Notice

_STALE = "staleOnceAnswered"


class _Stale(QObject):
    """Takes a label's words away once the service answers again, if it still shows them."""

    def __init__(self, label: QLabel, clear: Callable[[], object]) -> None:
        super().__init__(label)
        self.setObjectName(_STALE)
        self.label = label
        self.clear = clear
        self.words: str | None = None
        answering_again().connect(self._answered)

    def _answered(self) -> None:
        if self.words is not None and self.label.text() == self.words:
            self.clear()
        self.words = None


def stale_once_answered(label: QLabel, clear: Callable[[], object]) -> None:
    """What `label` says now says only that the service could not be reached: once it answers
    again, `clear()` (unless the label says something else by then)."""
    found = label.findChild(_Stale, _STALE, Qt.FindChildOption.FindDirectChildrenOnly)
    watch = found if isinstance(found, _Stale) else _Stale(label, clear)
    watch.words = label.text()


def show_error(notice: Notice, words: str) -> None:
    """`words` in a pane's notice; words that say only that the service could not be reached
    go once it answers again, as a form's do."""
    notice.show_error(words)
    if passing(words):
        stale_once_answered(notice, notice.clear_message)


class ErrorLabel(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fieldError")
        self.setWordWrap(True)
        self.setStyleSheet("color: #d0453a;")
        self.setVisible(False)
        # The minimum height before an edit kept the room of the message it took away.
        self._room: int | None = None

    def show_message(self, message: str | None) -> None:
        """Show `message`; one that says only that the service could not be reached
        (`messages.passing`) goes once it answers again."""
        if self._room is not None:
            self.setMinimumHeight(self._room)
            self._room = None
        self.setText(message or "")
        self.setVisible(bool(message))
        if passing(message):
            stale_once_answered(self, self.clear_message)

    def clear_message(self, *_changed: object) -> None:
        """Hide the message: the user is changing the field it is about."""
        self.show_message(None)

    def edited(self, *_changed: object) -> None:
        """The user changes the field the message is about: the message goes, its room
        stays (blank) until the next `show_message`, as the form shows its problems again.
        Freed at once, it moved the fields below up by its lines, under the pointer aimed at
        the next field."""
        if self.isHidden() or not self.text():
            return
        if self.isVisible():  # laid out: its height is what the fields below are placed by
            if self._room is None:
                self._room = self.minimumHeight()
            self.setMinimumHeight(max(self.minimumHeight(), self.height()))
        self.setText("")


class FieldErrors:
    def __init__(self, general: ErrorLabel) -> None:
        self.general = general
        self._fields: dict[str, tuple[QWidget, ErrorLabel]] = {}
        # Where the keyboard starts: the field of the first row added.
        self.first_field: QWidget | None = None

    def add_row(
        self,
        form: QFormLayout,
        label: str,
        name: str,
        widget: QWidget,
        *,
        focus: QWidget | None = None,
    ) -> ErrorLabel:
        """Add `widget` to `form` with its error label under it, registered as `name`.

        The label's key (Alt+letter) and a problem shown for `name` put the focus in the
        field: `focus`, else `widget` or, for a container (a table with its buttons, a row of
        boxes), the first widget in it that takes the focus.
        """
        # The holder joins the form's window now, not when the form's layout is installed:
        # Qt orders Tab (and picks the first focus) by when widgets join a window, so a
        # holder without a parent put the fields after the dialog's buttons.
        holder = QWidget(
            form.parentWidget() or widget.parentWidget() or self.general.parentWidget()
        )
        box = QVBoxLayout(holder)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(widget)
        error = ErrorLabel(holder)
        box.addWidget(error)
        caption = QLabel(label)
        target = focus or first_focusable(widget)
        if target is not None:
            # A label focuses its buddy only if the buddy itself takes the focus (a focus
            # proxy is not enough), so it points at the field, not at the holder.
            caption.setBuddy(target)
            for container in reversed((holder, widget, *widget.findChildren(QWidget))):
                if (
                    container is not target
                    and container.isAncestorOf(target)
                    and container.focusPolicy() == Qt.FocusPolicy.NoFocus
                    and container.focusProxy() is None
                ):
                    container.setFocusProxy(target)
        # Within the row too: Tab follows the row's layout (a table, then its buttons), not
        # the order its widgets were made or moved in.
        for before, after in pairwise(_layout_order(holder)):
            QWidget.setTabOrder(before, after)
        form.addRow(caption, holder)
        self.register(name, widget, error)
        if self.first_field is None:
            self.first_field = target
        return error

    def focus_first(self) -> None:
        """Put the keyboard in the first field. A table starts on its first row's first cell
        typed into: a table given the focus with no current cell makes its top-left cell
        current, and when that cell holds a drop-down (an identifier's type) the drop-down
        takes the focus, so what is typed chose a type instead of filling the row."""
        field = self.first_field
        if field is None:
            return
        if isinstance(field, QAbstractItemView) and not field.currentIndex().isValid():
            typed = first_typed_cell(field)
            if typed is not None:
                field.setCurrentIndex(typed)
        field.setFocus()

    def register(self, name: str, widget: QWidget, error: ErrorLabel) -> None:
        self._fields[name] = (widget, error)
        for edited in _edit_signals(widget):
            edited.connect(error.edited)

    def clear(self) -> None:
        self.general.show_message(None)
        for _widget, error in self._fields.values():
            error.show_message(None)

    def show(self, errors: dict[str, str], general: str | None = None) -> None:
        """Show each message beside its field; focus the first field in error."""
        self.clear()
        leftovers: list[str] = []
        first: QWidget | None = None
        for name, message in plain(errors).items():
            target = self._match(name)
            if target is None:
                leftovers.append(f"{name}: {message}")
                continue
            widget, label = target
            label.show_message(message)
            first = first or widget
        texts = [t for t in [general, *leftovers] if t]
        self.general.show_message("\n".join(texts) if texts else None)
        if first is not None:
            first.setFocus()

    def _match(self, name: str) -> tuple[QWidget, ErrorLabel] | None:
        # The longest registered name that is a prefix of the error's path wins, so
        # `address.postalCode` finds that field and `address.addressLines[3]` finds `address`.
        candidates = [
            key for key in self._fields if name == key or name.startswith((key + ".", key + "["))
        ]
        if not candidates:
            return None
        return self._fields[max(candidates, key=len)]

    def message_for(self, name: str) -> str:
        target = self._fields.get(name)
        # isHidden, not isVisible: an error on a tab that is not shown is still there.
        return target[1].text() if target and not target[1].isHidden() else ""


def _edit_signals(widget: QWidget) -> list[SignalInstance]:
    """The signals of the user changing `widget` or a field inside it (a row of boxes, a
    table with its buttons). Choices are the user's (`activated`, `clicked`); a combo box's or
    a spin box's insides (its list, its line edit) are its own, not fields."""
    if isinstance(widget, QLineEdit):
        return [widget.textEdited]
    if isinstance(widget, QComboBox):
        typed = widget.lineEdit()
        return [widget.activated, *([typed.textEdited] if typed is not None else [])]
    if isinstance(widget, QDateTimeEdit):
        return [widget.dateTimeChanged]
    if isinstance(widget, QSpinBox | QDoubleSpinBox):
        return [widget.valueChanged]
    if isinstance(widget, QAbstractButton):
        return [widget.clicked]
    if isinstance(widget, QTextEdit | QPlainTextEdit):
        return [widget.textChanged]
    if isinstance(widget, QAbstractItemView):
        model = widget.model()
        if model is None:
            return []
        return [model.dataChanged, model.rowsInserted, model.rowsRemoved]
    found: list[SignalInstance] = []
    for child in widget.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
        found += _edit_signals(child)
    return found


def first_focusable(widget: QWidget) -> QWidget | None:
    """`widget` if it takes the focus by Tab, else the first widget inside it that does
    (maybe disabled for now: a label keeps pointing at it once it is enabled)."""
    for candidate in (widget, *widget.findChildren(QWidget)):
        takes = bool(candidate.focusPolicy() & Qt.FocusPolicy.TabFocus)
        if takes and not isinstance(candidate, ErrorLabel) and not candidate.isHidden():
            return candidate
    return None


def first_typed_cell(view: QAbstractItemView) -> QModelIndex | None:
    """The first row's first shown cell that is typed into (no widget over it), if any."""
    model = view.model()
    if model is None or model.rowCount(view.rootIndex()) == 0:
        return None
    for column in range(model.columnCount(view.rootIndex())):
        index = model.index(0, column, view.rootIndex())
        editable = bool(index.flags() & Qt.ItemFlag.ItemIsEditable)
        hidden = isinstance(view, QTableView) and view.isColumnHidden(column)
        if editable and view.indexWidget(index) is None and not hidden:
            return index
    return None


def _layout_order(widget: QWidget) -> list[QWidget]:
    """The widgets in `widget` that take the focus by Tab, in the order its layouts show them
    (top to bottom, left to right); a widget that takes the focus is not looked into."""
    found: list[QWidget] = []

    def visit(layout: QLayout | None) -> None:
        if layout is None:
            return
        for index in range(layout.count()):
            item = layout.itemAt(index)
            child = item.widget() if item is not None else None
            if child is None:
                visit(item.layout() if item is not None else None)
            elif child.focusPolicy() & Qt.FocusPolicy.TabFocus and child.focusProxy() is None:
                found.append(child)
            else:
                visit(child.layout())

    visit(widget.layout())
    return found
