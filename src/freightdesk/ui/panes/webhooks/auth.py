"""Editing a push configuration's authentication methods: a type and its parameters each.

The parameters of each type come from the models (`PARAMETERS_BY_TYPE`), so the form asks
for exactly what the service accepts. Secrets are masked: the service answers them as
`********`, and sending that back keeps the stored secret, so an edit never needs them again.
A stored secret shows as an empty field that says so (not as eight dots, which typing would
have extended into a wrong secret); left empty, the mask is sent back.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.webhooks import (
    MASK,
    MAX_AUTHENTICATION_METHODS,
    PARAMETERS_BY_TYPE,
    SECRET_PARAMETERS,
    AuthenticationMethod,
    AuthenticationType,
)
from freightdesk.ui.widgets.forms import ErrorLabel, plain

TYPE_TEXT = {
    AuthenticationType.API_KEY: "API key in a header",
    AuthenticationType.BASIC: "HTTP Basic (user name and password)",
    AuthenticationType.OAUTH2: "OAuth 2.0 client credentials",
    AuthenticationType.MTLS: "Client certificate (mutual TLS)",
    AuthenticationType.AD_OAUTH2_CERT: "OAuth 2.0 with a certificate (Entra ID)",
}
STORED_TEXT = "Stored by the service: leave empty to keep it, or type a new one"
PARAMETER_TEXT = {
    "headerName": "Header name",
    "apiKey": "API key",
    "username": "User name",
    "password": "Password",
    "tokenUrl": "Token URL",
    "clientId": "Client id",
    "clientSecret": "Client secret",
    "scope": "Scope",
    "audience": "Audience",
    "resource": "Resource",
    "certificatePem": "Certificate (PEM)",
    "privateKeyPem": "Private key (PEM)",
    "caCertificatePem": "Receiver's CA (PEM)",
}


def parameter_names(kind: AuthenticationType) -> list[tuple[str, bool, str]]:
    """(wire name, required, default) of each parameter of `kind`, in the model's order."""
    found = []
    for name, field in PARAMETERS_BY_TYPE[kind].model_fields.items():
        default = field.default if isinstance(field.default, str) else ""
        found.append((field.alias or name, field.is_required(), default))
    return found


class MethodEditor(QGroupBox):
    """One authentication method: its type and a field per parameter."""

    removed = Signal(object)
    changed = Signal()

    def __init__(self, method: AuthenticationMethod | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = QComboBox(self)
        self.kind.setObjectName("authType")
        for kind, text in TYPE_TEXT.items():
            self.kind.addItem(text, kind.value)
        self.remove_button = QPushButton("Remove method", self)
        self.error = ErrorLabel(self)
        self.type_error = ErrorLabel(self)
        self.fields: dict[str, QLineEdit | QPlainTextEdit] = {}
        self.stored: set[str] = set()  # secrets the service keeps (answered masked)
        self.field_errors: dict[str, ErrorLabel] = {}
        self.parameters = QFormLayout()
        header = QHBoxLayout()
        header.addWidget(QLabel("Type", self))
        header.addWidget(self.kind, 1)
        header.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.type_error)
        layout.addLayout(self.parameters)
        layout.addWidget(self.error)
        if method is not None:
            self.kind.setCurrentIndex(max(0, self.kind.findData(method.type.value)))
        self._build(method.parameters if method else {})
        self.kind.currentIndexChanged.connect(lambda _i: self._type_changed())
        self.remove_button.clicked.connect(lambda: self.removed.emit(self))

    def current_type(self) -> AuthenticationType:
        return AuthenticationType(str(self.kind.currentData()))

    def _type_changed(self) -> None:
        # Keep what was typed into parameters both types have (a client id, a token URL).
        kept = {name: value for name, value in self.values().items() if value != MASK}
        self._build(kept)
        self.changed.emit()

    def _build(self, values: dict[str, str]) -> None:
        while self.parameters.rowCount():
            self.parameters.removeRow(0)
        self.fields.clear()
        self.field_errors.clear()
        self.stored = {name for name, value in values.items() if value.strip() == MASK}
        for name, required, default in parameter_names(self.current_type()):
            value = values.get(name, default)
            stored = name in self.stored
            if stored:
                value = ""
            editor: QLineEdit | QPlainTextEdit
            if name.endswith("Pem"):
                editor = QPlainTextEdit(self)
                editor.setPlainText(value)
                editor.setFixedHeight(70)
                editor.setPlaceholderText(STORED_TEXT if stored else "-----BEGIN ...-----")
                editor.textChanged.connect(self.changed.emit)
            else:
                editor = QLineEdit(value, self)
                if name in SECRET_PARAMETERS:
                    editor.setEchoMode(QLineEdit.EchoMode.Password)
                if stored:
                    editor.setPlaceholderText(STORED_TEXT)
                editor.textEdited.connect(lambda _t: self.changed.emit())
            if stored:
                editor.setToolTip(STORED_TEXT)
            editor.setObjectName(name)
            holder = QWidget(self)
            box = QVBoxLayout(holder)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(2)
            box.addWidget(editor)
            error = ErrorLabel(holder)
            box.addWidget(error)
            label = PARAMETER_TEXT.get(name, name) + ("" if required else " (optional)")
            self.parameters.addRow(label, holder)
            self.fields[name] = editor
            self.field_errors[name] = error

    def values(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for name, editor in self.fields.items():
            if isinstance(editor, QPlainTextEdit):
                # A PEM block is kept exactly as given (its line breaks matter).
                text = editor.toPlainText()
                value = text.strip() if text.strip() == MASK else text
            else:
                value = editor.text().strip()
            if value.strip():
                found[name] = value
            elif name in self.stored:
                found[name] = MASK  # keep the stored secret
        return found

    def wire(self) -> dict[str, Any]:
        return {"type": self.current_type().value, "parameters": self.values()}

    def clear_errors(self) -> None:
        self.error.show_message(None)
        self.type_error.show_message(None)
        for label in self.field_errors.values():
            label.show_message(None)

    def show_error(self, rest: str, message: str) -> None:
        """An error about this method; `rest` is the path after `authenticationMethods[i]`."""
        if rest == ".type":
            self.type_error.show_message(message)
            return
        prefix = ".parameters."
        if rest.startswith(prefix):
            name = rest[len(prefix) :].split(".")[0]
            label = self.field_errors.get(name)
            if label is not None:
                label.show_message(message)
                return
        self.error.show_message(message)


class AuthenticationEditor(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editors: list[MethodEditor] = []
        self.list_layout = QVBoxLayout()
        self.list_layout.setContentsMargins(0, 0, 0, 0)
        self.none_label = QLabel("No authentication: the receiver is called without credentials.")
        # Not Alt+A: that is the Authentication tab's key.
        self.add_button = QPushButton("Add authentication &method", self)
        self.error = ErrorLabel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.none_label)
        layout.addLayout(self.list_layout)
        layout.addWidget(self.error)
        add_row = QHBoxLayout()
        add_row.addWidget(self.add_button)
        add_row.addStretch(1)
        layout.addLayout(add_row)
        self.add_button.clicked.connect(lambda: self.add_method(None))

    def set_methods(self, methods: list[AuthenticationMethod]) -> None:
        for editor in list(self.editors):
            self._remove(editor, announce=False)
        for method in methods:
            self.add_method(method, announce=False)
        self._update()

    def add_method(self, method: AuthenticationMethod | None, *, announce: bool = True) -> None:
        if len(self.editors) >= MAX_AUTHENTICATION_METHODS:
            return
        editor = MethodEditor(method, self)
        editor.removed.connect(lambda e: self._remove(e))
        editor.changed.connect(self.changed.emit)
        self.editors.append(editor)
        self.list_layout.addWidget(editor)
        self._update()
        if announce:
            editor.kind.setFocus()
            self.changed.emit()

    def _remove(self, editor: MethodEditor, *, announce: bool = True) -> None:
        if editor in self.editors:
            self.editors.remove(editor)
            self.list_layout.removeWidget(editor)
            editor.deleteLater()
        self._update()
        if announce:
            self.changed.emit()

    def _update(self) -> None:
        for number, editor in enumerate(self.editors, start=1):
            editor.setTitle(f"Method {number}")
        self.none_label.setVisible(not self.editors)
        self.add_button.setEnabled(len(self.editors) < MAX_AUTHENTICATION_METHODS)

    def wire(self) -> list[dict[str, Any]]:
        return [editor.wire() for editor in self.editors]

    def show_errors(self, problems: dict[str, str]) -> None:
        """Errors under `authenticationMethods...`, each beside its method and parameter, in
        the plain words every form shows (`plain`)."""
        self.error.show_message(None)
        for editor in self.editors:
            editor.clear_errors()
        for path, message in plain(problems).items():
            rest = path[len("authenticationMethods") :]
            if rest.startswith("["):
                index_text, _, tail = rest[1:].partition("]")
                if index_text.isdigit() and int(index_text) < len(self.editors):
                    self.editors[int(index_text)].show_error(tail, message)
                    continue
            self.error.show_message(message)
