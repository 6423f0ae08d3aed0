"""Form helpers: an error message right under the field it is about.

Every form of the app uses `FieldErrors`: fields register under the name the service (or the
service layer) uses for them (`address.postalCode`, `name`), and an error answer is spread
over the form with `show()`. Errors for names without a field go to the form's general label.

The service's messages name wire fields (`state or postalCode ...`, `truck.trailerType`): right
for an integrator reading an Error body, not for a dispatcher. `plain()` rewrites the ones a
form can meet into words, by field path and message, in this one place; every form's `show()`
goes through it, so do the webhook form's authentication methods (shown beside their own
fields) and `fold_rows`, and a form that gathers rows its own way calls it before gathering.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QLabel,
    QLayout,
    QTableView,
    QVBoxLayout,
    QWidget,
)


class ErrorLabel(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fieldError")
        self.setWordWrap(True)
        self.setStyleSheet("color: #d0453a;")
        self.setVisible(False)

    def show_message(self, message: str | None) -> None:
        self.setText(message or "")
        self.setVisible(bool(message))


# (field path ending, message pattern, words): the first match wins. Paths are matched on
# their end so a rule holds for every address, stop or row; the pattern on the whole message.
_PLAIN: list[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        "state",
        re.compile(r"^state or postalCode is required for a street address.*"),
        lambda _m: "Enter a state or a postal code (or place the stop by coordinates)",
    ),
    (
        "state",
        re.compile(r"^state or postalCode (.*)"),
        lambda _m: "Enter a state or a postal code",
    ),
    (
        "code",
        re.compile(r"^(.*) needs a reefer trailer \(truck\.trailerType REEFER\)$"),
        lambda m: f"{m.group(1)} needs a reefer: choose Reefer as the trailer type",
    ),
    (
        "code",
        re.compile(r"^(.*) goes with an open trailer such as a flatbed \(truck\.trailerType\)$"),
        lambda m: f"{m.group(1)} needs an open trailer: choose Flatbed or another open one",
    ),
    # The webhook form's authentication methods: the service names the other method and the
    # parameters by their wire paths; the form calls them "Method 2", "Certificate (PEM)".
    (
        "headerName",
        re.compile(r"^is also used by authenticationMethods\[(\d+)\]$"),
        lambda m: f"Method {int(m.group(1)) + 1} sends this header already: choose another name",
    ),
    (
        "headerName",
        re.compile(r"^conflicts with authenticationMethods\[(\d+)\]$"),
        lambda m: (
            f"Method {int(m.group(1)) + 1} sends the Authorization header already: "
            "choose another name"
        ),
    ),
    (
        "headerName",
        re.compile(r"^(.+) is set by the service and cannot carry the key$"),
        lambda m: f"The service sets {m.group(1)} itself: choose another header for the key",
    ),
    (
        "username",
        re.compile(r"^must not contain ':' \(HTTP Basic cannot carry it\)$"),
        lambda _m: "A user name for HTTP Basic cannot contain a colon (:)",
    ),
    (
        "privateKeyPem",
        re.compile(r"^does not belong to certificatePem$"),
        lambda _m: "This private key does not belong to the certificate above",
    ),
    (
        "",
        re.compile(r"^is not a PEM certificate$"),
        lambda _m: "Paste a certificate in PEM form (-----BEGIN CERTIFICATE-----)",
    ),
    (
        "",
        re.compile(r"^is not an unencrypted PEM private key$"),
        lambda _m: "Paste an unencrypted private key in PEM form (-----BEGIN PRIVATE KEY-----)",
    ),
    (
        "",
        re.compile(r"^is the mask of a secret this configuration does not have"),
        lambda _m: "Type the secret: none is stored for this method",
    ),
    (
        "",
        re.compile(r"^only one of BASIC, OAUTH2 and AD_OAUTH2_CERT can be used"),
        lambda _m: (
            "Only one method can sign in with the Authorization header (HTTP Basic or "
            "OAuth 2.0): remove this one or choose another type"
        ),
    ),
    (
        "",
        re.compile(r"^only one client certificate can be presented$"),
        lambda _m: "Only one client certificate can be presented: remove this method",
    ),
    (
        "url",
        re.compile(r"^must be https:// to present a client certificate \(MTLS\)$"),
        lambda _m: "Use an https:// address: a client certificate is presented over TLS only",
    ),
    # The carrier push forms: the "at least one of" rules name the wire fields; the forms
    # call them by their labels and boxes.
    (
        "identifiers",
        re.compile(r"^needs at least one of billOfLadingNumber or orderNumber$"),
        lambda _m: "Enter a bill of lading or an order number",
    ),
    (
        "truckload",
        re.compile(r"^needs at least one of shipmentEvent or readings$"),
        lambda _m: "Tick Shipment event, Readings, or both",
    ),
    (
        "readings",
        re.compile(r"^needs at least one of position or sensor$"),
        lambda _m: (
            "Enter a latitude and longitude, or a reading: ignition, temperature, fuel level "
            "or more sensors"
        ),
    ),
    (
        "location",
        re.compile(r"^(is required|needs geoCoordinates or an address) for POSITION_UPDATE$"),
        lambda _m: "A position update needs a latitude and longitude, or an address",
    ),
    (
        "estimatedTimeOfArrival",
        re.compile(r"^is required for an ETA event$"),
        lambda _m: "An ETA event needs its ETA",
    ),
    (
        "",
        re.compile(r"^Field required$"),
        lambda _m: "Fill this in",
    ),
    (
        "",
        re.compile(r"^'' is not a valid HTTP header name$"),
        lambda _m: "Enter a header name",
    ),
    (
        "",
        re.compile(r"^'(.+)' is not a valid HTTP header name$"),
        lambda m: f"{m.group(1)!r} cannot be a header name: use letters, digits and dashes",
    ),
]


def plain_words(path: str, message: str) -> str:
    """`message` about the field at `path` in words a dispatcher reads, or as it is."""
    for ending, pattern, words in _PLAIN:
        if ending and not (path == ending or path.endswith("." + ending)):
            continue
        found = pattern.match(message)
        if found is not None:
            return words(found)
    return message


def plain(problems: dict[str, str]) -> dict[str, str]:
    """Every message of `problems` in plain words (see `plain_words`)."""
    return {path: plain_words(path, message) for path, message in problems.items()}


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
            for container in (holder, widget, *widget.findChildren(QWidget)):
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
        self._fields[name] = (widget, error)
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
