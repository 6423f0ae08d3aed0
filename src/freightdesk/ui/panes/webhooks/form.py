"""The push configuration form: where and how to call, what to send, and how to authenticate.

Kinds: the classic full push (every change of a shipment), or one granular event kind with
the context to include. Filters by transportation mode apply to every kind; filters by
event type only to the `shipments.v1.event.*` kinds (the form enables what applies).

What is sent is what the form shows: a control that does not apply to the chosen kind is
greyed, says why, and holds nothing (its ticks are set aside, named in a note, and come back
when a kind it applies to is chosen again); a line above the tabs says what a save sends,
"every change" included when nothing filters.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.code_words import code_text, mode_text
from freightdesk.models.common import TransportationMode
from freightdesk.models.webhooks import (
    EVENT_KINDS,
    ContextKind,
    HttpMethod,
    PayloadFormat,
    PushConfiguration,
    WebhookConfiguration,
)
from freightdesk.service.session import AppSession
from freightdesk.service.webhooks import check_configuration
from freightdesk.ui.panes.webhooks.auth import AuthenticationEditor
from freightdesk.ui.panes.webhooks.event_types import EventTypePicker
from freightdesk.ui.panes.webhooks.summary import filters_text, what_text
from freightdesk.ui.panes.webhooks.words import KIND_TEXT, paused_text
from freightdesk.ui.tasks import spawn
from freightdesk.ui.widgets.key_values import KeyValueTable
from freightdesk.ui.widgets.tabbed_form import TabbedFormDialog

CONTEXT_TEXT = {
    ContextKind.ROUTE: "Route (all stops and route segments)",
    ContextKind.RELATED_SHIPMENTS: "Related shipments (ids of parents and children)",
}
TABS = {"endpoint": 0, "content": 1, "auth": 2}
EVENT_KIND_VALUES = frozenset(k.value for k in EVENT_KINDS)
CONTEXT_WHY = "The classic full push always sends the whole shipment: choose a granular kind"
TYPES_WHY = "Event types filter only the Event added, updated and removed kinds"


def kind_text(configuration: PushConfiguration) -> str:
    settings = configuration.webhook_configuration
    kind = settings.webhook_event_type if settings else None
    if kind is None:
        return "Classic full push"
    return f"{KIND_TEXT[kind.value]} ({kind.value})"


class WebhookFormDialog(TabbedFormDialog):
    """Saved: `saved` carries the configuration, with its signing secret after a create."""

    discard_text = "Discard your changes to this push configuration?"

    def __init__(
        self,
        session: AppSession,
        configuration: PushConfiguration | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(session, parent)
        self.setObjectName("webhookForm")
        self.configuration = configuration
        self.setWindowTitle(
            f"Edit {configuration.config_name}" if configuration else "New push configuration"
        )
        self.setMinimumSize(780, 660)
        # What a save sends, on every tab: a kind or filter changed by a stray key is seen.
        self.sends = QLabel(self)
        self.sends.setObjectName("sendsSummary")
        self.sends.setWordWrap(True)
        self.build(
            [
                (self._endpoint_tab, "&Endpoint"),
                (self._content_tab, "&What to send"),
                (self._auth_tab, "&Authentication"),
            ],
            above=self.sends,
        )
        self.load(configuration)
        self._watch_changes()

    # --- building --------------------------------------------------------------------------

    def _endpoint_tab(self) -> QWidget:
        tab = QWidget(self)
        self.name = QLineEdit(tab)
        self.name.setObjectName("configName")
        self.name.setPlaceholderText("A unique name, e.g. ERP shipment updates")
        self.url = QLineEdit(tab)
        self.url.setObjectName("url")
        self.url.setPlaceholderText("https://erp.example.com/hooks/freight")
        self.method = QComboBox(tab)
        self.method.setObjectName("method")
        for method in HttpMethod:
            self.method.addItem(method.value, method.value)
        self.payload_format = QComboBox(tab)
        self.payload_format.setObjectName("payloadFormat")
        for payload in PayloadFormat:
            self.payload_format.addItem(payload.value, payload.value)
        self.version = QSpinBox(tab)
        self.version.setObjectName("version")
        self.version.setRange(0, 2_000_000_000)
        self.version.setSpecialValueText("(none)")
        self.version.setToolTip("Your own version number of this configuration (optional).")
        self.enabled = QCheckBox("&Deliver messages (untick to pause)", tab)
        self.enabled.setObjectName("enabled")
        self.disabled_reason = QLabel(tab)
        self.disabled_reason.setObjectName("pausedNote")
        self.disabled_reason.setWordWrap(True)
        self.disabled_reason.setStyleSheet("color: #b26a00;")
        self.headers = KeyValueTable("Header", "Value", tab, add_text="Add header")
        self.headers.setObjectName("methodHeaders")
        self.params = KeyValueTable("Parameter", "Value", tab, add_text="Add parameter")
        self.params.setObjectName("methodParams")
        form = QFormLayout(tab)
        self.name_error = self.errors.add_row(form, "&Name", "configName", self.name)
        self.errors.add_row(form, "&URL", "url", self.url)
        method_row = QHBoxLayout()
        method_row.addWidget(self.method)
        format_label = QLabel("&Payload format", tab)
        format_label.setBuddy(self.payload_format)
        version_label = QLabel("&Version", tab)
        version_label.setBuddy(self.version)
        method_row.addSpacing(12)
        method_row.addWidget(format_label)
        method_row.addWidget(self.payload_format)
        method_row.addSpacing(12)
        method_row.addWidget(version_label)
        method_row.addWidget(self.version)
        method_row.addStretch(1)
        holder = QWidget(tab)
        holder.setLayout(method_row)
        method_row.setContentsMargins(0, 0, 0, 0)
        error = self.errors.add_row(form, "&Method", "method", holder)
        self.errors.register("payloadFormat", self.payload_format, error)
        self.errors.register("version", self.version, error)
        self.errors.add_row(form, "", "enabled", self.enabled)
        form.addRow("", self.disabled_reason)
        self.errors.add_row(form, "&Headers", "methodHeaders", self.headers)
        self.errors.add_row(form, "&Query parameters", "methodParams", self.params)
        return tab

    def _content_tab(self) -> QWidget:
        tab = QWidget(self)
        self.kind = QComboBox(tab)
        self.kind.setObjectName("kind")
        self.kind.installEventFilter(self)
        for value, text in KIND_TEXT.items():
            self.kind.addItem(text if not value else f"{text}  ({value})", value)
        self.shipment_context = QCheckBox("Shipment (id, identifiers, attributes): always", tab)
        self.shipment_context.setChecked(True)
        self.shipment_context.setEnabled(False)
        self.shipment_context.setToolTip("Every message carries the shipment: nothing to choose.")
        self.context: dict[ContextKind, QCheckBox] = {}
        context_box = QWidget(tab)
        context_layout = QVBoxLayout(context_box)
        context_layout.setContentsMargins(0, 0, 0, 0)
        context_layout.addWidget(self.shipment_context)
        for kind, text in CONTEXT_TEXT.items():
            box = QCheckBox(text, tab)
            box.setObjectName(f"context{kind.value.title().replace('_', '')}")
            self.context[kind] = box
            context_layout.addWidget(box)
        self.modes: dict[TransportationMode, QCheckBox] = {}
        modes_box = QWidget(tab)
        modes_layout = QGridLayout(modes_box)
        modes_layout.setContentsMargins(0, 0, 0, 0)
        for index, mode in enumerate(TransportationMode):
            box = QCheckBox(mode_text(mode), tab)
            self.modes[mode] = box
            modes_layout.addWidget(box, index // 4, index % 4)
        self.event_types = EventTypePicker(tab)
        # Set aside when the kind stops applying to them, given back when it applies again.
        self.aside_context: list[ContextKind] = []
        self.aside_types: list[str] = []
        self.kind_note = QLabel(tab)
        self.kind_note.setObjectName("kindNote")
        self.kind_note.setWordWrap(True)
        self.kind_note.setStyleSheet("color: #b26a00;")
        help_text = QLabel(
            "Granular kinds send a small message about one change, with the context you "
            "choose; the classic push sends the whole shipment. Leave filters empty to "
            "receive everything.",
            tab,
        )
        help_text.setWordWrap(True)
        form = QFormLayout(tab)
        form.addRow(help_text)
        self.errors.add_row(form, "&Kind", "webhookConfiguration.webhookEventType", self.kind)
        form.addRow(self.kind_note)
        error = self.errors.add_row(
            form,
            "&Context to include",
            "webhookConfiguration.shipmentV1Event",
            context_box,
            focus=self.context[ContextKind.ROUTE],  # SHIPMENT is always sent, its box disabled
        )
        self.context_error = error
        self.errors.register("webhookConfiguration", self.kind, error)
        self.errors.add_row(
            form,
            "Only these &modes",
            "webhookConfiguration.filters.transportationModes",
            modes_box,
        )
        self.errors.add_row(
            form,
            "Only these event &types",
            "webhookConfiguration.filters.eventTypes",
            self.event_types,
        )
        self.kind.currentIndexChanged.connect(self._kind_changed)
        for box in [*self.context.values(), *self.modes.values()]:
            box.toggled.connect(self._show_sends)
        self.event_types.changed.connect(self._show_sends)
        return tab

    def _auth_tab(self) -> QWidget:
        self.auth = AuthenticationEditor(self)
        self.auth.setObjectName("authenticationMethods")
        area = QScrollArea(self)
        area.setWidgetResizable(True)
        holder = QWidget(area)
        layout = QVBoxLayout(holder)
        note = QLabel(
            "How each delivery proves itself to the receiver (besides the signature every "
            "message carries). Secrets are never shown again once saved: leave a stored "
            "secret's field empty to keep it.",
            holder,
        )
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addWidget(self.auth)
        layout.addStretch(1)
        area.setWidget(holder)
        return area

    def _watch_changes(self) -> None:
        for edit in (self.name, self.url):
            edit.textEdited.connect(self.mark_dirty)
        self.name.editingFinished.connect(self.check_name)
        self.event_types.changed.connect(self.mark_dirty)
        for combo in (self.method, self.payload_format, self.kind):
            combo.activated.connect(self.mark_dirty)
        self.version.valueChanged.connect(self.mark_dirty)
        self.enabled.toggled.connect(self.mark_dirty)
        for box in [*self.context.values(), *self.modes.values()]:
            box.toggled.connect(self.mark_dirty)
        self.headers.changed.connect(self.mark_dirty)
        self.params.changed.connect(self.mark_dirty)
        self.auth.changed.connect(self.mark_dirty)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        # The wheel over a closed kind list (scrolling the form) would change the kind unseen.
        wheel = event.type() == QEvent.Type.Wheel
        if watched is self.kind and wheel and not self.kind.hasFocus():
            event.ignore()
            return True
        return super().eventFilter(watched, event)

    def _kind_changed(self, *_args: object) -> None:
        kind = str(self.kind.currentData() or "")
        self._apply_to_context(bool(kind))
        self._apply_to_types(kind in EVENT_KIND_VALUES)
        self._show_note()
        self._show_sends()

    def _apply_to_context(self, applies: bool) -> None:
        if not applies:
            chosen = [c for c, box in self.context.items() if box.isChecked()]
            self.aside_context = chosen or self.aside_context
        for box in self.context.values():
            box.setEnabled(applies)
            box.setToolTip("" if applies else CONTEXT_WHY + ".")
            box.setChecked(box.isChecked() and applies)
        if applies and self.aside_context:
            for context in self.aside_context:
                self.context[context].setChecked(True)
            self.aside_context = []

    def _apply_to_types(self, applies: bool) -> None:
        if not applies:
            self.aside_types = self.event_types.chosen() or self.aside_types
            self.event_types.set_chosen([])
        elif self.aside_types:
            self.event_types.set_chosen([*self.event_types.chosen(), *self.aside_types])
            self.aside_types = []
        self.event_types.setEnabled(applies)
        self.event_types.setToolTip("" if applies else TYPES_WHY + ".")

    def _show_note(self) -> None:
        """Why greyed controls are greyed, and what of the user's was set aside."""
        lines = []
        if not self.kind.currentData():
            lines.append(CONTEXT_WHY + " to choose context.")
        if not self.event_types.isEnabled():
            lines.append(TYPES_WHY + ".")
        aside = [CONTEXT_TEXT[c].split(" (")[0] for c in self.aside_context]
        if self.aside_types:
            aside.append("event types " + ", ".join(code_text(t) for t in self.aside_types))
        if aside:
            lines.append(
                f"Set aside, not sent: {'; '.join(aside)}. "
                "They come back if you choose a kind they apply to."
            )
        self.kind_note.setText(" ".join(lines))
        self.kind_note.setVisible(bool(lines))

    def _show_sends(self, *_args: object) -> None:
        settings = self.wire().get("webhookConfiguration")
        shown = WebhookConfiguration.model_validate(settings) if settings else None
        self.sends.setText(
            f"<b>Sends:</b> {escape(what_text(shown))}. "
            f"<b>Filters:</b> {escape(filters_text(shown))}."
        )

    # --- loading and reading ---------------------------------------------------------------

    def load(self, configuration: PushConfiguration | None) -> None:
        self.name.setText(configuration.config_name if configuration else "")
        self.url.setText(configuration.url if configuration else "")
        method = configuration.method.value if configuration else HttpMethod.POST.value
        self.method.setCurrentIndex(max(0, self.method.findData(method)))
        self.version.setValue(configuration.version or 0 if configuration else 0)
        self.enabled.setChecked(configuration.enabled if configuration else True)
        paused = configuration is not None and not configuration.enabled
        self.disabled_reason.setText(
            paused_text(configuration) + " Tick the box and save to deliver again."
            if configuration is not None and paused
            else ""
        )
        self.disabled_reason.setVisible(paused)
        self.headers.set_values(configuration.method_headers if configuration else {})
        self.params.set_values(configuration.method_params if configuration else {})
        settings = configuration.webhook_configuration if configuration else None
        kind = settings.webhook_event_type.value if settings and settings.webhook_event_type else ""
        self.kind.setCurrentIndex(max(0, self.kind.findData(kind)))
        chosen = (
            set(settings.shipment_v1_event.include_context)
            if settings and settings.shipment_v1_event
            else set()
        )
        for context, box in self.context.items():
            box.setChecked(context in chosen)
        filters = settings.filters if settings else None
        for mode, box in self.modes.items():
            box.setChecked(bool(filters and mode in filters.transportation_modes))
        self.aside_context, self.aside_types = [], []
        self.event_types.set_chosen(filters.event_types if filters else [])
        self.auth.set_methods(configuration.authentication_methods if configuration else [])
        self._kind_changed()
        self.mark_clean()

    def wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "configName": self.name.text().strip(),
            "url": self.url.text().strip(),
            "method": self.method.currentData(),
            "payloadFormat": self.payload_format.currentData(),
            "methodHeaders": self.headers.values(),
            "methodParams": self.params.values(),
            "authenticationMethods": self.auth.wire(),
            "enabled": self.enabled.isChecked(),
        }
        if self.configuration is not None:
            wire["id"] = self.configuration.id
        if self.version.value():
            wire["version"] = self.version.value()
        kind = str(self.kind.currentData() or "")
        modes = [mode.value for mode, box in self.modes.items() if box.isChecked()]
        # Greyed controls hold nothing (see _kind_changed), so this is what the form shows.
        event_types = self.event_types.chosen()
        settings: dict[str, Any] = {}
        if kind:
            settings["webhookEventType"] = kind
            settings["shipmentV1Event"] = {
                "includeContext": [
                    ContextKind.SHIPMENT.value,
                    *(c.value for c, box in self.context.items() if box.isChecked()),
                ]
            }
        if modes or event_types:
            settings["filters"] = {"transportationModes": modes, "eventTypes": event_types}
        if settings:
            wire["webhookConfiguration"] = settings
        return wire

    # --- errors and saving -----------------------------------------------------------------

    def check_name(self) -> None:
        """Say beside the name, before a save, when another configuration of the tenant has
        it (asked by name: configurations made elsewhere count too)."""
        name = self.name.text().strip()
        service = self.session.webhooks
        own = self.configuration
        if not name or service is None or self.session.client is None:
            return
        if own is not None and name == own.config_name:
            return

        def answered(taken: bool) -> None:
            if self.name.text().strip() != name:
                return  # typed on since: that name is asked about in turn
            self.name_error.show_message(
                f"A push configuration named {name!r} already exists: choose another name"
                if taken
                else None
            )

        # Not knowing is not a refusal: the save still checks the name.
        spawn(
            service.name_taken(name, own.id if own else None),
            on_done=answered,
            on_error=lambda _error: None,
            name="webhook-name",
            owner=self,
        )

    def show_problems(self, problems: dict[str, str], general: str | None = None) -> None:
        auth = {k: v for k, v in problems.items() if k.startswith("authenticationMethods")}
        auth.update({k: v for k, v in problems.items() if k.startswith(("authType", "authParams"))})
        others = {k: v for k, v in problems.items() if k not in auth}
        duplicates = self.headers.duplicates()
        if duplicates and "methodHeaders" not in others:
            others["methodHeaders"] = f"{duplicates[0]} is given twice"
        self.errors.show(others, general=general)
        self.auth.show_errors(auth)
        first = next(iter(problems), "")
        if first.startswith(("authenticationMethods", "authType", "authParams")):
            self.tabs.setCurrentIndex(TABS["auth"])
        elif first.startswith("webhookConfiguration"):
            self.tabs.setCurrentIndex(TABS["content"])
        elif others:
            self.tabs.setCurrentIndex(TABS["endpoint"])

    def save(self) -> None:
        duplicates = self.headers.duplicates()
        body, problems = check_configuration(self.wire())
        if duplicates:
            problems.setdefault("methodHeaders", f"{duplicates[0]} is given twice")
        if body is None or problems:
            self.show_problems(problems)
            return
        service = self.session.webhooks
        if self.can_send(service):
            self.auth.show_errors({})
            self.send(service.save(body), "save-webhook")
