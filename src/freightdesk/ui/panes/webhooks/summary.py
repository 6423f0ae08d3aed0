"""What the selected push configuration does, read at a glance below the list (without
opening the form, where a stray key could change it)."""

from __future__ import annotations

from html import escape

from freightdesk.models.code_words import code_text, mode_text
from freightdesk.models.webhooks import ContextKind, PushConfiguration, WebhookConfiguration
from freightdesk.service.clock import user_time
from freightdesk.ui.panes.webhooks.auth import TYPE_TEXT
from freightdesk.ui.panes.webhooks.words import KIND_TEXT, paused_text

CLASSIC_TEXT = "Classic full push: the whole shipment on every change"
CONTEXT_WORDS = {
    ContextKind.SHIPMENT: "the shipment",
    ContextKind.ROUTE: "its route",
    ContextKind.RELATED_SHIPMENTS: "related shipments",
}
NO_FILTERS_TEXT = "none, so every change of every shipment is sent"


def what_text(settings: WebhookConfiguration | None) -> str:
    """The kind and the context sent with it, in words (the kind's code is the summary's
    tooltip, `kind_tip`: an integrator may need it, a dispatcher reads past it)."""
    kind = settings.webhook_event_type if settings else None
    if kind is None:
        return CLASSIC_TEXT
    context = (
        settings.shipment_v1_event.include_context
        if settings and settings.shipment_v1_event
        else []
    )
    words = [CONTEXT_WORDS.get(c, c.value) for c in context] or [
        CONTEXT_WORDS[ContextKind.SHIPMENT]
    ]
    return f"{KIND_TEXT[kind.value]}, with {', '.join(words)}"


def kind_tip(settings: WebhookConfiguration | None) -> str:
    """The kind as the interface names it, for an integrator: none for the classic push."""
    kind = settings.webhook_event_type if settings else None
    return f"Kind, as the interface names it: {kind.value}" if kind is not None else ""


def filters_text(settings: WebhookConfiguration | None) -> str:
    """The filters in words; without any, that every change is sent."""
    filters = settings.filters if settings else None
    parts = []
    if filters and filters.transportation_modes:
        parts.append("modes " + ", ".join(mode_text(m) for m in filters.transportation_modes))
    if filters and filters.event_types:
        parts.append("event types " + ", ".join(code_text(t) for t in filters.event_types))
    return "; ".join(parts) or NO_FILTERS_TEXT


def summary_html(configuration: PushConfiguration) -> str:
    """Rows of label and value; user-given texts are escaped."""
    auth = ", ".join(TYPE_TEXT[m.type] for m in configuration.authentication_methods)
    headers = ", ".join(configuration.method_headers) or "none"
    params = ", ".join(f"{k}={v}" for k, v in configuration.method_params.items()) or "none"
    state = paused_text(configuration) or "Delivering"
    changed = user_time(configuration.last_modified_date_time)
    rows = [
        ("State", state),
        ("Sends", f"{configuration.method.value} {configuration.url}"),
        ("What", what_text(configuration.webhook_configuration)),
        ("Filters", filters_text(configuration.webhook_configuration)),
        ("Format", configuration.payload_format.value),
        ("Headers", headers),
        ("Query parameters", params),
        ("Authentication", auth or "none (each message is signed all the same)"),
        (
            "Version",
            (str(configuration.version) if configuration.version is not None else "none")
            + (f" · changed {changed}" if changed else ""),
        ),
    ]
    cells = "".join(
        f"<tr><td style='color: #6b7280; padding-right: 12px'>{escape(label)}</td>"
        f"<td>{escape(value)}</td></tr>"
        for label, value in rows
    )
    return f"<b>{escape(configuration.config_name)}</b><table>{cells}</table>"
