"""The service's texts about deliveries, said in a dispatcher's words.

The service explains a paused configuration for integrators (`Paused by a PUT with enabled
false`); the app says what happened and what to do first. A failed attempt comes in plain
words with its technical detail beside them (`error`, `errorDetail`); the log shows the detail
in brackets for support. Attempts logged by a service from before came as one technical text
(`cannot connect: [Errno -2] Name or service not known`): the table below says those in plain
words, keeping the original in brackets.
"""

from __future__ import annotations

from freightdesk.models.webhooks import PushConfiguration, WebhookEventType
from freightdesk.service.clock import user_time

# The granular kinds in words; CLASSIC is the form's value for the classic full push.
CLASSIC = ""
KIND_TEXT: dict[str, str] = {
    CLASSIC: "Classic full push (the whole shipment on every change)",
    WebhookEventType.EVENT_ADDED.value: "Event added",
    WebhookEventType.EVENT_UPDATED.value: "Event updated",
    WebhookEventType.EVENT_REMOVED.value: "Event removed",
    WebhookEventType.STATE_ADDED.value: "State added",
    WebhookEventType.STATE_UPDATED.value: "State updated",
    WebhookEventType.STATE_REMOVED.value: "State removed",
    WebhookEventType.SHIPMENT_CREATED.value: "Shipment created",
    WebhookEventType.SHIPMENT_DELETED.value: "Shipment deleted",
    WebhookEventType.EXCEPTION_ADDED_OR_UPDATED.value: "Exception added or updated",
}
# (pieces of the service's text, what it means), first match wins.
_DELIVERY_ERRORS: list[tuple[tuple[str, ...], str]] = [
    (
        (
            "name or service not known",
            "nodename nor servname",
            "getaddrinfo",
            "name resolution",
            "no address associated",
        ),
        "the receiver's host name could not be found; check the URL",
    ),
    (("connection refused",), "the receiver refused the connection (nothing listens there)"),
    (("no answer within", "timed out", "timeout"), "the receiver did not answer in time"),
    (("tls", "ssl", "certificate"), "the receiver's TLS certificate was not accepted"),
    (("network is unreachable", "no route to host"), "the receiver cannot be reached"),
    (("http 401", "http 403"), "the receiver refused the credentials; check Authentication"),
    (("http 404",), "the receiver has no such address (HTTP 404); check the URL"),
    (("http 410",), "the receiver asked not to be called again (HTTP 410 Gone)"),
    (("http 5",), "the receiver failed (a server error on its side)"),
]


def delivery_error_reason(error: str | None, detail: str | None = None) -> str:
    """A failed delivery's reason in plain words alone (the technical detail is in the log)."""
    if not error or detail:
        return error or ""
    return delivery_error_text(error)


def delivery_error_text(error: str | None, detail: str | None = None) -> str:
    """A failed delivery's reason: plain words first, the technical text in brackets."""
    if not error:
        return ""
    if detail:
        return f"{error} ({detail})"
    lowered = error.lower()
    for pieces, meaning in _DELIVERY_ERRORS:
        if any(piece in lowered for piece in pieces):
            return f"{meaning[0].upper()}{meaning[1:]} ({error})"
    return error


def paused_text(configuration: PushConfiguration) -> str:
    """Why and since when a configuration delivers nothing; empty when it delivers."""
    if configuration.enabled:
        return ""
    when = user_time(configuration.disabled_date_time)
    since = f"Paused since {when}" if when else "Paused"
    reason = configuration.disabled_reason or ""
    lowered = reason.lower()
    if not reason or "enabled false" in lowered:
        return f"{since} by a user."
    if "410" in lowered:
        return f"{since}: the receiver answered 410 Gone, asking not to be called again."
    return f"{since}: {reason}."
