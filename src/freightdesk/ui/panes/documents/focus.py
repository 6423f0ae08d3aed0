"""Keyboard paths through the forms of the Documents, Webhooks and Account groups panes.

`FieldErrors.add_row` wraps each field with its error label in a plain holder widget, and
QFormLayout makes that holder the buddy of the row's label; a holder cannot take the focus,
so Alt+letter on the label focused nothing and the user's typing went nowhere; a form
showing an error focused such a holder (or a container like a table with its buttons) just
the same. `mend_buddies` points each such label, holder and container at the field itself.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from freightdesk.ui.widgets.forms import ErrorLabel


def _takes_focus(widget: QWidget) -> bool:
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus) and not isinstance(
        widget, ErrorLabel
    )


def first_focusable(holder: QWidget) -> QWidget | None:
    """The first widget inside `holder` that takes the focus by Tab (maybe disabled for now:
    the label keeps pointing at it once it is enabled)."""
    for child in holder.findChildren(QWidget):
        if _takes_focus(child) and not child.isHidden():
            return child
    return None


def mend_buddies(root: QWidget, targets: dict[QWidget, QWidget] | None = None) -> None:
    """Make every label's mnemonic in `root` land in its field. `targets` maps a holder to
    its field where the first focusable widget in it is not the one (a check box that is
    always disabled; see `holder_of`)."""
    chosen = targets or {}
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is None or buddy.focusPolicy() != Qt.FocusPolicy.NoFocus:
            continue
        # A label focuses its buddy only if the buddy itself takes the focus (a focus
        # proxy on the holder is not enough), so the label points at the field instead.
        target = chosen.get(buddy) or first_focusable(buddy)
        if target is None:
            continue
        label.setBuddy(target)
        # A form focuses the first field in error: where that field is a container (a
        # table with its buttons, a row of boxes), the focus goes on to the field in it.
        for container in (buddy, *buddy.findChildren(QWidget)):
            if (
                container is not target
                and container.isAncestorOf(target)
                and container.focusPolicy() == Qt.FocusPolicy.NoFocus
                and container.focusProxy() is None
            ):
                container.setFocusProxy(target)


def holder_of(error: ErrorLabel) -> QWidget:
    """The holder `FieldErrors.add_row` made for a field (the error label's parent)."""
    parent = error.parentWidget()
    assert parent is not None
    return parent
