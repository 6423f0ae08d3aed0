"""Push configurations (webhook endpoints), granular webhook messages and delivery records.

The parameters of each authentication method type, the filter shape and the `data` of each
event kind are gaps of the interface; what we chose is recorded in docs/spec-gaps.md.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, field_validator

from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import Int64, TransportationMode
from freightdesk.models.push import ParcelEventType

MAX_CONFIGURATIONS_PER_TENANT = 50
MAX_AUTHENTICATION_METHODS = 4
MAX_MAP_ENTRIES = 50

# What a secret parameter looks like in every answer. Sending it back unchanged in a PUT keeps
# the stored secret, so an edit form never has to ask for secrets again.
MASK = "********"
SECRET_PARAMETERS = frozenset({"apiKey", "password", "clientSecret", "privateKeyPem"})

# Headers the service sets itself on every delivery; a configuration may not override them.
RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "transfer-encoding",
        "connection",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
    }
)

_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


class WebhookEventType(StrEnum):
    """The granular event kinds (spec "Events")."""

    EVENT_ADDED = "shipments.v1.event.added"
    EVENT_UPDATED = "shipments.v1.event.updated"
    EVENT_REMOVED = "shipments.v1.event.removed"
    STATE_ADDED = "shipments.v1.state.added"
    STATE_UPDATED = "shipments.v1.state.updated"
    STATE_REMOVED = "shipments.v1.state.removed"
    SHIPMENT_CREATED = "shipments.v1.shipment.created"
    SHIPMENT_DELETED = "shipments.v1.shipment.deleted"
    EXCEPTION_ADDED_OR_UPDATED = "shipments.v1.exception.addedOrUpdated"


EVENT_KINDS = frozenset(
    {
        WebhookEventType.EVENT_ADDED,
        WebhookEventType.EVENT_UPDATED,
        WebhookEventType.EVENT_REMOVED,
    }
)


# The event types a filter offers to pick (`filters.eventTypes` matches an event's `type`): the
# carrier status types the interface names (a position update is not an event), then the
# milestones the demo's carriers report (docs/spec-gaps.md, "Demo data"), in alphabetical
# order. Any other type a carrier sends is still accepted and kept; these are the ones a user
# picks from.
FILTER_EVENT_TYPES: tuple[str, ...] = tuple(
    sorted(
        {
            *(t.value for t in ParcelEventType if t is not ParcelEventType.POSITION_UPDATE),
            "ARRIVAL_AT_STOP",
            "DEPARTURE_FROM_STOP",
            "DISPATCHED",
            "PICKUP_REQUESTED",
            "ARRIVED_AT_TERMINAL",
            "DEPARTED_TERMINAL",
            "ARRIVED_AT_FACILITY",
            "DEPARTED_FACILITY",
            "DELIVERY_ATTEMPTED",
            "BOOKED",
            "GATE_IN",
            "LOADED_ON_RAIL",
            "PASSED_YARD",
            "BORDER_CROSSED",
            "UNLOADED_FROM_RAIL",
            "GATE_OUT",
            "BOOKING_CONFIRMED",
            "LOADED",
            "DISCHARGED",
            "CUSTOMS_RELEASED",
            "EMPTY_RETURNED",
            "ROLLED_OVER",
            "RECEIVED_FROM_SHIPPER",
            "MANIFESTED",
            "RECEIVED_FROM_FLIGHT",
            "CONSIGNEE_NOTIFIED",
        }
    )
)


class ContextKind(StrEnum):
    SHIPMENT = "SHIPMENT"
    ROUTE = "ROUTE"
    RELATED_SHIPMENTS = "RELATED_SHIPMENTS"


class HttpMethod(StrEnum):
    GET = "GET"
    POST = "POST"
    PUT = "PUT"
    PATCH = "PATCH"


class PayloadFormat(StrEnum):
    JSON = "JSON"


class AuthenticationType(StrEnum):
    API_KEY = "API_KEY"
    BASIC = "BASIC"
    OAUTH2 = "OAUTH2"
    MTLS = "MTLS"
    AD_OAUTH2_CERT = "AD_OAUTH2_CERT"


def check_http_url(value: str) -> str:
    """An absolute http or https URL without credentials or fragment, kept as written."""
    if value != value.strip() or any(c.isspace() for c in value):
        raise ValueError("must not contain spaces")
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"is not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError("must be an absolute http:// or https:// URL")
    if not parts.hostname:
        raise ValueError("must name a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("must not carry credentials; use a BASIC authentication method")
    if parts.fragment:
        raise ValueError("must not have a #fragment")
    if port == 0:
        raise ValueError("must not use port 0")
    return value


# The pattern states check_http_url's rules for the OpenAPI document (a narrower set of URLs
# than it takes: a host name or IPv4 address, a port 1 to 65535 written short).
HTTP_URL_PATTERN = (
    r"^[hH][tT][tT][pP][sS]?://[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?"
    r"(?::[1-9][0-9]{0,3})?(?:[/?][^\s#]*)?$"
)
HttpUrl = Annotated[
    str,
    Field(min_length=1, max_length=2048, json_schema_extra={"pattern": HTTP_URL_PATTERN}),
    AfterValidator(check_http_url),
]
Secret = Annotated[str, Field(min_length=1, max_length=16384)]
ShortText = Annotated[str, Field(min_length=1, max_length=500)]


# A header's value: one line (the validator below says so in words).
HeaderValue = Annotated[str, Field(max_length=4096, json_schema_extra={"pattern": r"^[^\r\n]*$"})]


def _check_header_name(value: str) -> str:
    if not _TOKEN.match(value):
        raise ValueError(f"{value!r} is not a valid HTTP header name")
    return value


# --- authentication parameters, one shape per type ------------------------------------------


class ApiKeyParameters(StrictWireModel):
    """`API_KEY`: the key is sent as the value of one request header."""

    header_name: Annotated[str, Field(min_length=1, max_length=100)] = "X-API-Key"
    api_key: Secret

    @field_validator("header_name")
    @classmethod
    def _header(cls, value: str) -> str:
        name = _check_header_name(value)
        if name.lower() in RESERVED_HEADERS:
            raise ValueError(f"{name} is set by the service and cannot carry the key")
        return name


class BasicParameters(StrictWireModel):
    """`BASIC`: HTTP Basic authentication (RFC 7617)."""

    username: Annotated[str, Field(min_length=1, max_length=500)]
    password: Secret

    @field_validator("username")
    @classmethod
    def _no_colon(cls, value: str) -> str:
        if ":" in value:
            raise ValueError("must not contain ':' (HTTP Basic cannot carry it)")
        return value


class OAuth2Parameters(StrictWireModel):
    """`OAUTH2`: a client credentials token from the receiver's token URL, sent as Bearer."""

    token_url: HttpUrl
    client_id: ShortText
    client_secret: Secret
    scope: ShortText | None = None
    audience: ShortText | None = None


class MtlsParameters(StrictWireModel):
    """`MTLS`: a client certificate presented in the TLS handshake (the URL must be https).

    `caCertificatePem` optionally names the authority that signed the receiver's own
    certificate, for receivers on a private PKI; otherwise the system's trust store is used.
    """

    certificate_pem: Secret
    private_key_pem: Secret
    ca_certificate_pem: Secret | None = None


class AdOAuth2CertParameters(StrictWireModel):
    """`AD_OAUTH2_CERT`: a client credentials token obtained with a certificate-signed
    client assertion (RFC 7523, as Microsoft Entra ID / Azure AD expects), sent as Bearer."""

    token_url: HttpUrl
    client_id: ShortText
    certificate_pem: Secret
    private_key_pem: Secret
    resource: ShortText | None = None
    scope: ShortText | None = None


PARAMETERS_BY_TYPE: dict[AuthenticationType, type[StrictWireModel]] = {
    AuthenticationType.API_KEY: ApiKeyParameters,
    AuthenticationType.BASIC: BasicParameters,
    AuthenticationType.OAUTH2: OAuth2Parameters,
    AuthenticationType.MTLS: MtlsParameters,
    AuthenticationType.AD_OAUTH2_CERT: AdOAuth2CertParameters,
}

# Parameters that name "the same credential" when a masked secret is sent back after the
# methods were reordered or one was removed.
IDENTITY_PARAMETERS: dict[AuthenticationType, tuple[str, ...]] = {
    AuthenticationType.API_KEY: ("headerName",),
    AuthenticationType.BASIC: ("username",),
    AuthenticationType.OAUTH2: ("tokenUrl", "clientId"),
    AuthenticationType.MTLS: ("certificatePem",),
    AuthenticationType.AD_OAUTH2_CERT: ("tokenUrl", "clientId", "certificatePem"),
}


class AuthenticationMethod(StrictWireModel):
    """One way to authenticate deliveries; `parameters` depend on `type` (see above)."""

    type: AuthenticationType
    parameters: dict[str, Annotated[str, Field(max_length=16384)]] = Field(default_factory=dict)


# --- webhook configuration --------------------------------------------------------------------


class ShipmentV1Event(StrictWireModel):
    include_context: list[ContextKind] = Field(
        default_factory=lambda: [ContextKind.SHIPMENT], max_length=3
    )

    @field_validator("include_context")
    @classmethod
    def _unique(cls, value: list[ContextKind]) -> list[ContextKind]:
        # SHIPMENT is always part of the context; the order of the answer is fixed.
        chosen = set(value) | {ContextKind.SHIPMENT}
        return [kind for kind in ContextKind if kind in chosen]


class WebhookFilters(StrictWireModel):
    """Which changes a configuration receives. Absent or empty lists mean "all".

    `eventTypes` (the `type` of a shipment event) applies to the `shipments.v1.event.*`
    kinds only; `transportationModes` (any mode of the shipment) applies to every kind.
    """

    event_types: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(
        default_factory=list, max_length=100
    )
    transportation_modes: list[TransportationMode] = Field(default_factory=list, max_length=8)


class WebhookConfiguration(StrictWireModel):
    webhook_event_type: WebhookEventType | None = None
    shipment_v1_event: ShipmentV1Event | None = None
    filters: WebhookFilters | None = None


# --- the push configuration -----------------------------------------------------------------


class PushConfigurationInput(StrictWireModel):
    """The body of PUT /api/v4/webhooks: without `id` it creates, with `id` it replaces.

    Read-only fields of the answer (dates, `disabledReason`, ...) are accepted and ignored so
    that a configuration read with GET can be edited and sent back as it is.
    """

    id: Int64 | None = None
    # Not blank, no "/" (the validator below says so in words).
    config_name: Annotated[
        str,
        Field(min_length=1, max_length=200, json_schema_extra={"pattern": r"^[^/]*[^/\s][^/]*$"}),
    ]
    url: HttpUrl
    method: HttpMethod = HttpMethod.POST
    # The document states the names and counts the validators below check; the headers the
    # service sets are refused in words (case-insensitive: no JSON Schema pattern says that).
    method_headers: dict[str, HeaderValue] = Field(
        default_factory=dict,
        json_schema_extra={
            "propertyNames": {"pattern": _TOKEN.pattern},
            "maxProperties": MAX_MAP_ENTRIES,
        },
    )
    method_params: dict[str, Annotated[str, Field(max_length=4096)]] = Field(
        default_factory=dict,
        json_schema_extra={"propertyNames": {"minLength": 1}, "maxProperties": MAX_MAP_ENTRIES},
    )
    payload_format: PayloadFormat = PayloadFormat.JSON
    version: Int64 | None = None
    authentication_methods: list[AuthenticationMethod] | None = Field(
        default=None, max_length=MAX_AUTHENTICATION_METHODS
    )
    auth_type: AuthenticationType | None = None
    auth_params: dict[str, Annotated[str, Field(max_length=16384)]] | None = None
    webhook_configuration: WebhookConfiguration | None = None
    # Extension: false pauses deliveries; a configuration a receiver disabled with 410
    # is enabled again by any PUT that does not say false.
    enabled: bool = True
    # Read only (ignored on input), so that an answer can be sent back as it is.
    signing_secret: Any = None
    disabled_reason: Any = None
    disabled_date_time: Any = None
    created_date_time: Any = None
    last_modified_date_time: Any = None

    @field_validator("config_name")
    @classmethod
    def _name(cls, value: str) -> str:
        name = value.strip()
        if not name:
            raise ValueError("must not be blank")
        if "/" in name:
            raise ValueError("must not contain '/' (it is looked up in a path)")
        return name

    @field_validator("method_headers")
    @classmethod
    def _headers(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) > MAX_MAP_ENTRIES:
            raise ValueError(f"at most {MAX_MAP_ENTRIES} headers")
        seen: set[str] = set()
        for name, header_value in value.items():
            _check_header_name(name)
            lowered = name.lower()
            if lowered in RESERVED_HEADERS:
                raise ValueError(f"{name} is set by the service and cannot be configured")
            if lowered in seen:
                raise ValueError(f"{name} is given twice")
            seen.add(lowered)
            if any(c in header_value for c in "\r\n\0"):
                raise ValueError(f"the value of {name} must not contain line breaks")
        return value

    @field_validator("method_params")
    @classmethod
    def _params(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) > MAX_MAP_ENTRIES:
            raise ValueError(f"at most {MAX_MAP_ENTRIES} parameters")
        if any(not name for name in value):
            raise ValueError("parameter names must not be empty")
        return value


class PushConfiguration(WireModel):
    """A push configuration as the service answers it (secrets masked)."""

    id: int
    config_name: str
    url: str
    method: HttpMethod
    method_headers: dict[str, str]
    method_params: dict[str, str]
    payload_format: PayloadFormat
    version: int | None = None
    authentication_methods: list[AuthenticationMethod]
    # Deprecated mirror of the first authentication method, for callers still reading it.
    auth_type: AuthenticationType | None = None
    auth_params: dict[str, str] | None = None
    webhook_configuration: WebhookConfiguration | None = None
    # Extensions.
    enabled: bool = True
    disabled_reason: str | None = None
    disabled_date_time: datetime | None = None
    created_date_time: datetime | None = None
    last_modified_date_time: datetime | None = None
    # Only in the answer of the PUT that created the configuration.
    signing_secret: str | None = None


class PushConfigurationList(WireModel):
    webhook_endpoints: list[PushConfiguration]


# --- operators' extensions ------------------------------------------------------------------


class SigningSecret(WireModel):
    """A new signing secret; the previous one keeps signing alongside until it expires."""

    signing_secret: str
    previous_secret_expires_date_time: datetime | None = None


class DeliveryStatus(StrEnum):
    PENDING = "PENDING"
    DELIVERED = "DELIVERED"
    FAILED = "FAILED"


class DeliveryAttempt(WireModel):
    attempted_date_time: datetime
    status_code: int | None = None
    latency_ms: float
    # Why the attempt failed, in plain words ("The receiver refused the connection: ...").
    error: str | None = None
    # What the network, TLS or the receiver said, for whoever debugs the receiver.
    error_detail: str | None = None


class Delivery(WireModel):
    """One message to one configuration and every attempt to deliver it, newest first."""

    message_id: int
    event_id: str
    event_type: str
    shipment_id: str | None = None
    status: DeliveryStatus
    created_date_time: datetime
    delivered_date_time: datetime | None = None
    next_attempt_date_time: datetime | None = None
    attempt_count: int
    attempts: list[DeliveryAttempt]


class DeliveryList(WireModel):
    deliveries: list[Delivery]
    offset: int
    page_size: int
    total_items: int


class PingResult(WireModel):
    message_id: int
    event_id: str
    delivered: bool
    status_code: int | None = None
    latency_ms: float
    error: str | None = None
    error_detail: str | None = None


class Redelivery(WireModel):
    message_id: int
    event_id: str
    status: DeliveryStatus
    next_attempt_date_time: datetime | None = None


# --- what receivers get (granular webhooks) ---------------------------------------------------


class ShipmentContext(WireModel):
    shipment_id: str
    identifiers: list[dict[str, Any]] = Field(default_factory=list)
    attributes: list[dict[str, Any]] = Field(default_factory=list)
    created_date_time: datetime | None = None
    last_modified_date_time: datetime | None = None
    shipment_share_link: str | None = None


class MessageContext(WireModel):
    shipment: ShipmentContext
    route: dict[str, Any] | None = None
    related_shipments: list[dict[str, Any]] | None = None


class WebhookMessage(WireModel):
    """The envelope of a granular webhook."""

    event_id: str
    event_type: str
    created_date_time: datetime
    data_type: str
    context: MessageContext
    data: dict[str, Any]
