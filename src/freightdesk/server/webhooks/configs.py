"""Push configuration rules: create or replace one, and the shape of the answer."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from freightdesk.models.webhooks import (
    EVENT_KINDS,
    MAX_CONFIGURATIONS_PER_TENANT,
    AuthenticationType,
    ContextKind,
    PushConfiguration,
    PushConfigurationInput,
    ShipmentV1Event,
    WebhookConfiguration,
    WebhookEventType,
    WebhookFilters,
)
from freightdesk.server.db import WEBHOOKS_CHANNEL, utcnow, wake_on_commit
from freightdesk.server.errors import ApiError, conflict, field_errors, not_found
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.webhooks import WebhookConfigRow
from freightdesk.server.webhooks import auth_methods, signing
from freightdesk.server.webhooks.auth_methods import MethodInput, Problems
from freightdesk.server.webhooks.cursor import hold_cursor, journal_mark, lock_configs, lock_cursor
from freightdesk.server.webhooks.secret_box import SecretBox, SecretError
from freightdesk.server.webhooks.targets import TargetPolicy

USER_PAUSED = "Paused by a PUT with enabled false"


def owned(
    session: Session, tenant_id: int, config_id: int, *, lock: bool = False
) -> WebhookConfigRow:
    """The tenant's configuration; another tenant's id answers 404 exactly like a missing one.
    `lock`: held until commit, for a change (`cursor.lock_configs`: the journal cursor first)."""
    if lock:
        row = next(iter(lock_configs(session, [config_id])), None)
    else:
        row = session.get(WebhookConfigRow, config_id)
    if row is None or row.tenant_id != tenant_id:
        raise not_found(f"Push configuration {config_id}")
    return row


def _method_inputs(body: PushConfigurationInput) -> tuple[list[MethodInput], Problems]:
    problems: Problems = []
    deprecated: MethodInput | None = None
    if body.auth_type is not None:
        deprecated = MethodInput(
            body.auth_type, dict(body.auth_params or {}), "authType", "authParams"
        )
    elif body.auth_params is not None:
        problems.append(
            ("authParams", "needs authType (both are deprecated: use authenticationMethods)")
        )
    if body.authentication_methods is None:
        return ([deprecated] if deprecated else []), problems
    methods = [
        MethodInput(
            method.type,
            dict(method.parameters),
            f"authenticationMethods[{index}]",
            f"authenticationMethods[{index}].parameters",
        )
        for index, method in enumerate(body.authentication_methods)
    ]
    # A configuration read with GET carries both forms; accept them when they agree.
    if deprecated is not None and (
        not methods
        or methods[0].type != deprecated.type
        or methods[0].parameters != deprecated.parameters
    ):
        problems.append(
            (
                "authType",
                "describes another method than authenticationMethods[0]; send only "
                "authenticationMethods (authType and authParams are deprecated)",
            )
        )
    return methods, problems


def _webhook_settings(
    given: WebhookConfiguration | None,
) -> tuple[str | None, list[str], dict[str, Any] | None, Problems]:
    """(event kind or None for classic push, context kinds, filters, problems)."""
    if given is None:
        return None, [], None, []
    problems: Problems = []
    kind = given.webhook_event_type
    if kind is None and given.shipment_v1_event is not None:
        problems.append(
            (
                "webhookConfiguration.shipmentV1Event",
                "applies to granular webhooks only; set webhookConfiguration.webhookEventType",
            )
        )
    filters = given.filters or WebhookFilters()
    if filters.event_types and kind not in EVENT_KINDS:
        problems.append(
            (
                "webhookConfiguration.filters.eventTypes",
                "filters the shipments.v1.event.* kinds only",
            )
        )
    context: list[str] = []
    if kind is not None:
        chosen = given.shipment_v1_event or ShipmentV1Event()
        context = [c.value for c in chosen.include_context]
    stored_filters = (
        filters.wire() if (filters.event_types or filters.transportation_modes) else None
    )
    return (kind.value if kind else None), context, stored_filters, problems


def _target_problems(targets: TargetPolicy, body: PushConfigurationInput) -> Problems:
    """The receiver's URL, and OAuth 2.0 token endpoints, where webhooks may not go."""
    problems: Problems = []
    why = targets.refusal_of_url(body.url)
    if why is not None:
        problems.append(("url", why))
    for method in _method_inputs(body)[0]:
        token_url = method.parameters.get("tokenUrl")
        if isinstance(token_url, str) and token_url:
            why = targets.refusal_of_url(token_url)
            if why is not None:
                problems.append((f"{method.parameters_path}.tokenUrl", why))
    return problems


def check_targets(targets: TargetPolicy, body: PushConfigurationInput) -> None:
    """Refuse (400 naming the field) a configuration aimed at the service's own network.
    Resolves host names: call it before a transaction is opened."""
    problems = _target_problems(targets, body)
    if problems:
        raise field_errors(problems)


def save(
    session: Session,
    tenant_id: int,
    body: PushConfigurationInput,
    box: SecretBox | None = None,
) -> tuple[WebhookConfigRow, str | None]:
    """Create (no id) or replace (id) one configuration; the signing secret when created.

    Secrets are sealed with `box`; without one (seeding before the service runs) they are
    stored in clear and sealed when the delivery worker starts. Where it points is checked
    by `check_targets`, before."""
    # Locked before anything changes: pausing and enabling again take the cursor too.
    row = owned(session, tenant_id, body.id, lock=True) if body.id is not None else None
    methods_in, problems = _method_inputs(body)
    scheme = urlsplit(body.url).scheme.lower()
    stored_methods = list(row.authentication_methods) if row is not None else []
    if box is not None:
        try:
            stored_methods = box.open_methods(stored_methods)
        except SecretError:
            stored_methods = []  # unreadable: a mask sent back is refused, secrets must come
    methods, method_problems = auth_methods.prepare(methods_in, stored_methods, url_scheme=scheme)
    problems.extend(method_problems)
    taken = auth_methods.headers_set_by(methods)
    for name in body.method_headers:
        if name.lower() in taken:
            problems.append((f"methodHeaders.{name}", f"is set by {taken[name.lower()]}"))
    kind, context, filters, settings_problems = _webhook_settings(body.webhook_configuration)
    problems.extend(settings_problems)
    if problems:
        raise field_errors(problems)

    name_owner = session.scalar(
        select(WebhookConfigRow.id).where(
            WebhookConfigRow.tenant_id == tenant_id,
            WebhookConfigRow.config_name == body.config_name,
        )
    )
    if name_owner is not None and (row is None or name_owner != row.id):
        raise duplicate_name(body.config_name)

    secret: str | None = None
    now = utcnow()
    created = row is None
    if row is None:
        hold_cursor(session)  # taken before any other lock (`cursor.lock_configs`)
        # Serialize creates of one tenant (PostgreSQL) so two at once cannot pass 50.
        session.execute(select(Tenant.id).where(Tenant.id == tenant_id).with_for_update())
        count = session.scalar(
            select(func.count())
            .select_from(WebhookConfigRow)
            .where(WebhookConfigRow.tenant_id == tenant_id)
        )
        if (count or 0) >= MAX_CONFIGURATIONS_PER_TENANT:
            raise conflict(
                f"A tenant can have at most {MAX_CONFIGURATIONS_PER_TENANT} push "
                "configurations; delete one before adding another"
            )
        secret = signing.new_secret()
        sealed = box.seal(secret) if box is not None else secret
        row = WebhookConfigRow(
            tenant_id=tenant_id,
            signing_secret=sealed,
            created_at=now,
            journal_after=journal_mark(session),
        )
        session.add(row)
    row.config_name = body.config_name
    row.url = body.url
    row.method = body.method.value
    row.method_headers = dict(body.method_headers)
    row.method_params = dict(body.method_params)
    row.payload_format = body.payload_format.value
    row.version = body.version
    row.authentication_methods = box.seal_methods(methods) if box is not None else methods
    row.event_type = kind
    row.include_context = context
    row.filters = filters
    row.updated_at = now
    if body.enabled:
        if row.enabled is False:
            resume(session, row)
        row.enabled, row.disabled_reason, row.disabled_at = True, None, None
    elif row.enabled is not False:
        row.enabled, row.disabled_reason, row.disabled_at = False, USER_PAUSED, now
        # Changes made until now are still its own, whenever the fan-out reads them.
        row.journal_paused_after = row.journal_after if created else journal_mark(session)
    session.flush()
    # Its waiting messages go with the new settings now (one enabled again), whichever
    # instance sends them.
    wake_on_commit(session, WEBHOOKS_CHANNEL)
    return row, secret


def resume(session: Session, row: WebhookConfigRow) -> None:
    """Enable a paused configuration from the journal's head on: the changes made while it
    was paused are never its own, however late the fan-out reads them, and those made before
    the pause still are (they may not have been fanned out yet)."""
    head = journal_mark(session)  # holds the cursor: no round runs until this commits
    position = lock_cursor(session).position  # every id up to it has been fanned out
    paused_after = (
        row.journal_after if row.journal_paused_after is None else row.journal_paused_after
    )
    if paused_after <= max(row.journal_after, position):
        # Nothing it may receive is left below the head: one mark says it all.
        row.journal_after, row.journal_paused = max(row.journal_after, head), []
    else:
        earlier = [[after, through] for after, through in row.journal_paused if through > position]
        row.journal_paused = [*earlier, [paused_after, head]]
    row.journal_paused_after = None


def delete(session: Session, tenant_id: int, config_id: int) -> None:
    """Delete the configuration; its messages and leases go with it (the foreign keys)."""
    session.delete(owned(session, tenant_id, config_id, lock=True))


def duplicate_name(name: str) -> ApiError:
    return conflict(f"A push configuration named {name!r} already exists", source="configName")


def view(row: WebhookConfigRow, *, signing_secret: str | None = None) -> PushConfiguration:
    methods = auth_methods.masked(row.authentication_methods)
    settings: WebhookConfiguration | None = None
    filters = WebhookFilters.model_validate(row.filters) if row.filters else None
    if row.event_type is not None:
        settings = WebhookConfiguration(
            webhook_event_type=WebhookEventType(row.event_type),
            shipment_v1_event=ShipmentV1Event(
                include_context=[ContextKind(c) for c in row.include_context]
            ),
            filters=filters,
        )
    elif filters is not None:
        settings = WebhookConfiguration(filters=filters)
    first = methods[0] if methods else None
    return PushConfiguration(
        id=row.id,
        config_name=row.config_name,
        url=row.url,
        method=row.method,
        method_headers=row.method_headers,
        method_params=row.method_params,
        payload_format=row.payload_format,
        version=row.version,
        authentication_methods=methods,
        auth_type=AuthenticationType(first.type) if first else None,
        auth_params=dict(first.parameters) if first else None,
        webhook_configuration=settings,
        enabled=row.enabled,
        disabled_reason=row.disabled_reason,
        disabled_date_time=row.disabled_at,
        created_date_time=row.created_at,
        last_modified_date_time=row.updated_at,
        signing_secret=signing_secret,
    )
