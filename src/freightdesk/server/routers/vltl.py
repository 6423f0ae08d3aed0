"""Volume LTL: rate quotes (the v2 and v3 operations behave the same) and dispatch.

Quotes are priced at once by the rate engine for every carrier of the account group; a
carrier that cannot quote answers a RateQuote with ERROR alerts saying why. A dispatch goes to
one carrier account, is answered with the carrier's pickup and PRO numbers, and creates a
tracked shipment (mode VLTL) found by the answer's `shipmentId`.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import AwareDatetime
from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.addresses import InvalidAddressError, normalize_address
from freightdesk.models.booking import CarrierMode, CarrierProfile, SystemOfMeasurement
from freightdesk.models.common import Address, Int64, LocalDateWindow, LtlContact, LtlLocation
from freightdesk.models.rating import AccountRef
from freightdesk.models.tracking import TrackedShipmentInput
from freightdesk.models.vltl import (
    AccountGroupSelection,
    AlertSeverity,
    DispatchedShipment,
    DispatchRequest,
    EnhancedHandlingUnit,
    LineItem,
    PreferredSystemOfMeasurement,
    QuoteAlert,
    RateQuote,
    RateQuoteList,
    TenantPurpose,
    VltlQuoteRequest,
    VltlUser,
)
from freightdesk.server.auth import Principal, PrincipalDep
from freightdesk.server.context import ContextDep
from freightdesk.server.db import transaction, utcnow
from freightdesk.server.domain import carrier_profiles, shipments
from freightdesk.server.domain import rate_engine as engine
from freightdesk.server.domain.rating_quotes import locate
from freightdesk.server.errors import ApiError, conflict, field_error, field_errors
from freightdesk.server.openapi import ERRORS
from freightdesk.server.strict import strict_body
from freightdesk.server.tables.tenancy import Tenant
from freightdesk.server.tables.vltl import VltlDispatchRow, VltlQuoteRow

router = APIRouter(tags=["Volume LTL"])

# Computing totalLinearFeet from the line items; on unless the tenant switched it off.
VOLUME_FEATURE = "volumeVisualization"
QUOTE_VALIDITY = timedelta(hours=72)
PICKUP_NOTE_LIMIT = 250
_NATIVE_LENGTHS = {
    SystemOfMeasurement.IMPERIAL: {"IN", "FT"},
    SystemOfMeasurement.METRIC: {"CM", "M"},
}
_NATIVE_WEIGHT = {SystemOfMeasurement.IMPERIAL: "LB", SystemOfMeasurement.METRIC: "KG"}
_SENT_IDENTIFIERS = {"BILL_OF_LADING", "PURCHASE_ORDER", "CUSTOMER_REFERENCE"}
_ACCEPTED_IDENTIFIERS = _SENT_IDENTIFIERS | {"EXTERNAL"}

StrictQuote = Annotated[None, Depends(strict_body(VltlQuoteRequest))]
StrictDispatch = Annotated[None, Depends(strict_body(DispatchRequest))]


# --- the user query object -----------------------------------------------------------------


def _user(
    account_non_expired: Annotated[bool | None, Query(alias="accountNonExpired")] = None,
    account_non_locked: Annotated[bool | None, Query(alias="accountNonLocked")] = None,
    credentials_non_expired: Annotated[bool | None, Query(alias="credentialsNonExpired")] = None,
    enabled: Annotated[bool | None, Query()] = None,
    id: Annotated[Int64 | None, Query()] = None,
    locale: Annotated[str | None, Query(max_length=35)] = None,
    registration_date: Annotated[AwareDatetime | None, Query(alias="registrationDate")] = None,
    tenant_id: Annotated[Int64 | None, Query(alias="tenantId")] = None,
    tenant_uuid: Annotated[uuid.UUID | None, Query(alias="tenantUuid")] = None,
    tenant_purpose: Annotated[TenantPurpose | None, Query(alias="tenantPurpose")] = None,
    username: Annotated[str | None, Query(max_length=200)] = None,
) -> VltlUser:
    """The `user` object of the query, flattened into query parameters."""
    return VltlUser(
        account_non_expired=account_non_expired,
        account_non_locked=account_non_locked,
        credentials_non_expired=credentials_non_expired,
        enabled=enabled,
        id=id,
        locale=locale,
        registration_date=registration_date,
        tenant_id=tenant_id,
        tenant_uuid=tenant_uuid,
        tenant_purpose=tenant_purpose,
        username=username,
    )


UserDep = Annotated[VltlUser, Depends(_user)]


def _check_user(user: VltlUser, principal: Principal) -> None:
    if not user.model_dump(exclude_none=True):
        raise field_error(
            "user",
            "is required: send the user's fields as query parameters (username, tenantUuid, "
            "enabled, ...)",
        )
    if user.tenant_id is not None and user.tenant_id != principal.tenant_id:
        raise field_error("tenantId", "is not the tenant of the bearer token")
    if user.tenant_uuid is not None and str(user.tenant_uuid) != principal.tenant_uuid:
        raise field_error("tenantUuid", "is not the tenant of the bearer token")
    for name, value in (
        ("enabled", user.enabled),
        ("accountNonExpired", user.account_non_expired),
        ("accountNonLocked", user.account_non_locked),
        ("credentialsNonExpired", user.credentials_non_expired),
    ):
        if value is False:
            raise ApiError(403, f"The user cannot quote: {name} is false")
    if user.tenant_purpose is TenantPurpose.ARCHIVED:
        raise ApiError(403, "An archived tenant cannot quote")


# --- freight -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Line:
    """One line of freight in pounds and inches, whatever units the request used."""

    count: int
    weight_lb: float
    freight_class: str
    dims_in: tuple[float, float, float] | None
    stackable: bool
    hazmat: bool


def _dims(dimensions: Any, length_unit: str) -> tuple[float, float, float] | None:
    if dimensions is None:
        return None
    return (
        engine.inches(dimensions.length, length_unit),
        engine.inches(dimensions.width, length_unit),
        engine.inches(dimensions.height, length_unit),
    )


def _item_lines(
    items: Sequence[LineItem], weight_unit: str, length_unit: str, problems: list[tuple[str, str]]
) -> list[_Line]:
    lines = []
    for index, item in enumerate(items):
        path = f"lineItems[{index}]"
        count = item.total_packages or item.total_pieces or 1
        dims = _dims(item.package_dimensions, length_unit)
        if item.total_weight is None:
            problems.append((f"{path}.totalWeight", "is required"))
            continue
        weight = engine.pounds(item.total_weight, weight_unit)
        freight_class = item.freight_class
        if freight_class is None and dims is not None:
            freight_class = engine.density_class(weight / count, *dims)
        if freight_class is None:
            problems.append((f"{path}.freightClass", "is required (or give packageDimensions)"))
            continue
        lines.append(
            _Line(
                count, weight, freight_class, dims, item.stackable, item.hazmat_detail is not None
            )
        )
    return lines


def _unit_lines(
    units: Sequence[EnhancedHandlingUnit],
    weight_unit: str,
    length_unit: str,
    problems: list[tuple[str, str]],
) -> list[_Line]:
    lines = []
    for index, unit in enumerate(units):
        path = f"enhancedHandlingUnits[{index}]"
        dims = _dims(unit.handling_unit_dimensions, length_unit)
        if unit.weight_per_handling_unit is not None:
            weight = unit.weight_per_handling_unit * unit.handling_unit_quantity
        else:
            weight = sum(
                (p.weight_per_package or 0) * (p.package_quantity or 1) for p in unit.packages
            )
        if weight <= 0:
            problems.append((f"{path}.weightPerHandlingUnit", "is required"))
            continue
        weight = engine.pounds(weight, weight_unit)
        classes = list(unit.freight_classes) + [
            p.freight_class for p in unit.packages if p.freight_class
        ]
        # Several classes on one unit: the carrier bills the highest.
        freight_class = max(classes, key=float) if classes else None
        if freight_class is None and dims is not None:
            freight_class = engine.density_class(weight / unit.handling_unit_quantity, *dims)
        if freight_class is None:
            problems.append(
                (f"{path}.freightClasses", "is required (or give handlingUnitDimensions)")
            )
            continue
        hazmat = any(c.hazmat_details for p in unit.packages for c in p.package_contents)
        lines.append(
            _Line(unit.handling_unit_quantity, weight, freight_class, dims, unit.stackable, hazmat)
        )
    return lines


def _linear_feet(
    session: Session, tenant_id: int, given: int | None, lines: Sequence[_Line]
) -> int:
    if given is not None:
        return given
    tenant = session.get(Tenant, tenant_id)
    enabled = bool((tenant.features or {}).get(VOLUME_FEATURE, True)) if tenant else True
    if not enabled:
        raise field_error(
            "totalLinearFeet", f"is required (the {VOLUME_FEATURE} feature is off for this tenant)"
        )
    if any(line.dims_in is None for line in lines):
        raise field_error(
            "totalLinearFeet",
            "is required unless every line item gives its dimensions to compute it from",
        )
    return engine.linear_feet(
        engine.FloorUnits(line.count, *line.dims_in, stackable=line.stackable)  # type: ignore[misc]
        for line in lines
    )


def _address(address: Address, path: str) -> Address:
    try:
        clean = normalize_address(address)
    except InvalidAddressError as exc:
        raise field_errors((f"{path}.{p.source}", p.message) for p in exc.problems) from None
    if not clean.postal_code:
        raise field_error(f"{path}.postalCode", "is required")
    return clean


def _lane_miles(origin: Address, destination: Address) -> float:
    start = locate(origin, None, "originAddress")
    end = locate(destination, None, "destinationAddress")
    return engine.route_miles([(start, end)])


# --- carriers ------------------------------------------------------------------------------


def _account_scac(code: str, path: str) -> str:
    scac = carrier_profiles.normalize_scac(code)
    if not scac.isalpha() or not 2 <= len(scac) <= 4:
        raise field_error(path, "must be the carrier's SCAC (2 to 4 letters)")
    return scac


def _group_carriers(
    session: Session, tenant_id: int, group: AccountGroupSelection | None, fallback: bool
) -> tuple[list[str], list[QuoteAlert]]:
    """SCACs to quote: the accounts named, else the group's carriers, else the default group."""
    alerts: list[QuoteAlert] = []
    if group is not None and group.accounts:
        path = "capacityProviderAccountGroup.accounts"
        scacs = [_account_scac(a.code, f"{path}[{i}].code") for i, a in enumerate(group.accounts)]
        return list(dict.fromkeys(scacs)), alerts
    if group is not None and group.code is not None:
        members: list[str] = []
        if carrier_profiles.account_group_exists(session, tenant_id, group.code):
            members = carrier_profiles.group_members(session, tenant_id, group.code)
        if members:
            return members, alerts
        if not fallback:
            raise field_error(
                "capacityProviderAccountGroup.code",
                f"no account group {group.code!r} with carriers; set "
                "apiConfiguration.fallBackToDefaultAccountGroup to use the default group",
            )
        alerts.append(
            QuoteAlert(
                code="DEFAULT_ACCOUNT_GROUP",
                severity=AlertSeverity.INFO,
                message=f"account group {group.code!r} has no carriers; the default group quoted",
            )
        )
    default = [
        p.scac
        for p in carrier_profiles.connected(session, tenant_id)
        if CarrierMode.VLTL in p.modes
    ]
    return default, alerts


def _unit_problem(profile: CarrierProfile, weight_unit: str, length_unit: str) -> str | None:
    system = profile.system_of_measurement
    if weight_unit == _NATIVE_WEIGHT[system] and length_unit in _NATIVE_LENGTHS[system]:
        return None
    units = f"{_NATIVE_WEIGHT[system]} and {'/'.join(sorted(_NATIVE_LENGTHS[system]))}"
    return (
        f"{profile.name} rates in {units}; set apiConfiguration.enableUnitConversion to have "
        f"{weight_unit} and {length_unit} converted"
    )


# --- quotes --------------------------------------------------------------------------------


@dataclass
class _QuoteJob:
    """Everything a carrier prices, worked out once for the request."""

    miles: float
    linear_feet: int
    item_lines: list[_Line]
    unit_lines: list[_Line]
    accessorials: list[str]
    service_levels: list[str]
    inside_variants: bool
    pickup: date
    alerts: list[QuoteAlert] = field(default_factory=list)


def _service_levels(body: VltlQuoteRequest, codes: Iterable[str]) -> list[str]:
    chosen = [engine.SERVICE_FOR_CODE[c] for c in codes if c in engine.SERVICE_FOR_CODE]
    if len(set(chosen)) > 1:
        raise field_error(
            "accessorialServices", "ask for one of GUR, GURAM or EXPEDITE, not several"
        )
    levels = [chosen[0] if chosen else "STANDARD"]
    config = (
        body.api_configuration.accessorial_service_configuration if body.api_configuration else None
    )
    if config is not None and config.fetch_all_service_levels:
        levels += list(engine.VLTL_SERVICE_LEVELS)
    if config is not None and config.fetch_all_guaranteed:
        levels += ["GUARANTEED_PM", "GUARANTEED_AM"]
    return list(dict.fromkeys(levels))


def _quote_job(
    session: Session, tenant_id: int, body: VltlQuoteRequest, now: datetime
) -> _QuoteJob:
    problems: list[tuple[str, str]] = []
    if not body.line_items and not body.enhanced_handling_units:
        raise field_error(
            "lineItems", "at least one of lineItems or enhancedHandlingUnits is required"
        )
    origin = _address(body.origin_address, "originAddress")
    destination = _address(body.destination_address, "destinationAddress")
    weight_unit, length_unit = body.weight_unit.value, body.length_unit.value
    item_lines = _item_lines(body.line_items, weight_unit, length_unit, problems)
    unit_lines = _unit_lines(body.enhanced_handling_units, weight_unit, length_unit, problems)
    if problems:
        raise field_errors(problems)
    config = (
        body.api_configuration.accessorial_service_configuration if body.api_configuration else None
    )
    allow_unaccepted = bool(config and config.allow_unaccepted_accessorials)
    alerts: list[QuoteAlert] = []
    codes: list[str] = []
    for index, service in enumerate(body.accessorial_services):
        code = service.code.strip().upper()
        if code in engine.VLTL_ACCESSORIALS:
            codes.append(code)
        elif allow_unaccepted:
            alerts.append(
                QuoteAlert(
                    code="ACCESSORIAL_NOT_ACCEPTED",
                    severity=AlertSeverity.WARNING,
                    message=f"{code} is not offered; quoted without it",
                )
            )
        else:
            raise field_error(
                f"accessorialServices[{index}].code",
                f"{code!r} is not offered; use one of {', '.join(engine.VLTL_ACCESSORIALS)} or set "
                "apiConfiguration.accessorialServiceConfiguration.allowUnacceptedAccessorials",
            )
    lines = unit_lines or item_lines
    window = body.pickup_window
    for name, chosen in (("pickupWindow", window), ("deliveryWindow", body.delivery_window)):
        problem = engine.date_problem(chosen.date, now.date()) if chosen else None
        if problem is not None:
            raise field_error(f"{name}.date", problem)
    return _QuoteJob(
        miles=_lane_miles(origin, destination),
        linear_feet=_linear_feet(session, tenant_id, body.total_linear_feet, lines),
        item_lines=item_lines,
        unit_lines=unit_lines,
        accessorials=sorted(set(codes) - set(engine.VLTL_SERVICE_CODES)),
        service_levels=_service_levels(body, codes),
        inside_variants=bool(config and config.fetch_all_inside_delivery),
        pickup=window.date if window is not None else now.date(),
        alerts=alerts,
    )


def _refusal(profile: CarrierProfile, body: VltlQuoteRequest, job: _QuoteJob) -> str | None:
    """Why this carrier cannot quote the request, or None."""
    if CarrierMode.VLTL not in profile.modes:
        return f"{profile.name} does not haul volume LTL"
    timeout = body.api_configuration.timeout if body.api_configuration else None
    if timeout is not None and profile.quote_delay_seconds > timeout:
        return f"{profile.name} did not answer within {timeout} s"
    if not job.item_lines and not profile.supports_enhanced_handling_units:
        return f"{profile.name} does not take enhancedHandlingUnits; send lineItems"
    count = len(
        job.unit_lines
        if profile.supports_enhanced_handling_units and job.unit_lines
        else job.item_lines
    )
    if count > profile.max_line_items:
        return f"{profile.name} takes at most {profile.max_line_items} line items, not {count}"
    conversion = bool(body.api_configuration and body.api_configuration.enable_unit_conversion)
    if not conversion:
        return _unit_problem(profile, body.weight_unit.value, body.length_unit.value)
    return None


def _carrier_quotes(
    profile: CarrierProfile, body: VltlQuoteRequest, job: _QuoteJob, now: datetime
) -> list[tuple[RateQuote, float]]:
    group = AccountGroupSelection(
        code=body.capacity_provider_account_group.code
        if body.capacity_provider_account_group
        else None,
        accounts=[AccountRef(code=profile.scac)],
    )
    base = {
        "carrierCode": profile.scac,
        "carrierName": profile.name,
        "capacityProviderAccountGroup": group.wire(),
    }
    refusal = _refusal(profile, body, job)
    if refusal is not None:
        alert = QuoteAlert(code="NOT_QUOTED", severity=AlertSeverity.ERROR, message=refusal)
        refused = [a.wire() for a in (alert, *job.alerts)]
        return [
            (RateQuote.model_validate({"id": uuid.uuid4(), **base, "alerts": refused}), math.inf)
        ]
    lines = (
        job.unit_lines
        if profile.supports_enhanced_handling_units and job.unit_lines
        else job.item_lines
    )
    weight = sum(line.weight_lb for line in lines)
    hazmat = any(line.hazmat for line in lines)
    alerts = list(job.alerts)
    direction, terms = body.direction_override, body.payment_terms_override
    if (direction or terms) and not profile.accepts_terms_overrides:
        alerts.append(
            QuoteAlert(
                code="OVERRIDE_NOT_ALLOWED",
                severity=AlertSeverity.WARNING,
                message=f"the account with {profile.name} does not allow direction or payment "
                "terms overrides; its own terms apply",
            )
        )
        direction = terms = None
    currency = body.preferred_currency.value if body.preferred_currency else profile.currency.value
    metric = (
        body.preferred_system_of_measurement is PreferredSystemOfMeasurement.METRIC
        if body.preferred_system_of_measurement is not None
        else profile.system_of_measurement is SystemOfMeasurement.METRIC
    )
    variants = [(level, tuple(job.accessorials)) for level in job.service_levels]
    if job.inside_variants and "INDEL" not in job.accessorials:
        variants += [(level, (*job.accessorials, "INDEL")) for level in job.service_levels]
    terms_of = carrier_profiles.terms(profile)
    quotes = []
    for level, codes in variants:
        load = engine.VolumeLoad(job.linear_feet, weight, codes, hazmat, level)
        price = engine.price_volume_ltl(terms_of, load, job.miles)
        charges = [
            _charge("LINE_HAUL", "Line haul", price.line_haul, currency),
            _charge("FUEL_SURCHARGE", "Fuel surcharge", price.fuel, currency),
            *(_charge(c.code, c.description, c.usd, currency) for c in price.accessorials),
        ]
        subtotal = engine.convert(price.line_haul, currency)
        billed = engine.kilograms(weight, "LB") if metric else weight
        level_spec = engine.VLTL_SERVICE_LEVELS[level]
        quote = RateQuote.model_validate(
            {
                "id": uuid.uuid4(),
                **base,
                "capacityProviderQuoteNumber": f"{profile.scac}-V{uuid.uuid4().hex[:10].upper()}",
                "serviceLevel": {"code": level, "description": level_spec.description},
                "transitDays": price.transit_days,
                "deliveryDate": engine.delivery_date(
                    job.pickup, price.transit_days, business_days=True
                ),
                "currencyCode": currency,
                "rateQuoteDetail": {
                    "total": engine.convert(price.total, currency),
                    "subtotal": subtotal,
                    "charges": charges,
                },
                "totalLinearFeet": job.linear_feet,
                "billedWeight": {"value": round(billed, 1), "unit": "KG" if metric else "LB"},
                "direction": (direction.value if direction else "SHIPPER"),
                "paymentTerms": (terms.value if terms else "PREPAID"),
                "expirationDateTime": now + QUOTE_VALIDITY,
                "alerts": [a.wire() for a in alerts],
            }
        )
        quotes.append((quote, price.total))
    return quotes


def _charge(code: str, description: str, usd: float, currency: str) -> dict[str, Any]:
    return {"code": code, "description": description, "amount": engine.convert(usd, currency)}


def _quote(
    session: Session, principal: Principal, body: VltlQuoteRequest, now: datetime
) -> RateQuoteList:
    job = _quote_job(session, principal.tenant_id, body, now)
    fallback = bool(
        body.api_configuration and body.api_configuration.fall_back_to_default_account_group
    )
    scacs, group_alerts = _group_carriers(
        session, principal.tenant_id, body.capacity_provider_account_group, fallback
    )
    job.alerts.extend(group_alerts)
    profiles = carrier_profiles.resolve(session, principal.tenant_id, scacs)
    priced: list[tuple[RateQuote, float]] = []
    for scac in scacs:
        priced.extend(_carrier_quotes(profiles[scac], body, job, now))
    priced.sort(key=lambda pair: pair[1])
    for quote, usd in priced:
        if quote.capacity_provider_quote_number is None:
            continue
        assert quote.expiration_date_time is not None and quote.service_level is not None
        session.add(
            VltlQuoteRow(
                id=str(quote.id),
                tenant_id=principal.tenant_id,
                quote_number=quote.capacity_provider_quote_number,
                scac=quote.carrier_code,
                service_level=quote.service_level.code,
                total_usd=usd,
                expires_at=quote.expiration_date_time.astimezone(UTC),
                document=quote.wire(),
                created_at=now,
            )
        )
    return RateQuoteList(rate_quotes=[quote for quote, _usd in priced])


def _rate_query(
    body: VltlQuoteRequest, user: VltlUser, principal: Principal, context: Any
) -> RateQuoteList:
    _check_user(user, principal)
    with transaction(context.sessions) as session:
        return _quote(session, principal, body, utcnow())


@router.post("/api/v2/vltl/quotes/rates/query", responses=ERRORS, response_model_exclude_none=True)
def query_rates_v2(
    body: VltlQuoteRequest,
    _strict: StrictQuote,
    user: UserDep,
    principal: PrincipalDep,
    context: ContextDep,
) -> RateQuoteList:
    """Volume LTL rate quotes from every carrier of the account group (v2 path)."""
    return _rate_query(body, user, principal, context)


@router.post(
    "/api/v3/vltl/shipments/rates/query", responses=ERRORS, response_model_exclude_none=True
)
def query_rates_v3(
    body: VltlQuoteRequest,
    _strict: StrictQuote,
    user: UserDep,
    principal: PrincipalDep,
    context: ContextDep,
) -> RateQuoteList:
    """Volume LTL rate quotes from every carrier of the account group (v3 path)."""
    return _rate_query(body, user, principal, context)


# --- dispatch ------------------------------------------------------------------------------


def _contact(given: LtlContact | None, default: LtlContact | None) -> LtlContact:
    """The location's contact, its missing fields taken from the account's default contact."""
    if given is None:
        return default or LtlContact()
    if default is None:
        return given
    return default.model_copy(update=given.model_dump(exclude_none=True))


def _location(
    location: LtlLocation,
    path: str,
    default: LtlContact | None,
    problems: list[tuple[str, str]],
    *,
    needs_email: bool = False,
) -> LtlLocation:
    address = location.address
    clean: Address | None = None
    if address is None:
        problems.append((f"{path}.address", "is required"))
    else:
        lines = [line for line in address.address_lines if line.strip()]
        missing = [
            name
            for name, value in (
                ("postalCode", address.postal_code),
                ("addressLines", lines),
                ("city", address.city),
                ("state", address.state),
            )
            if not value
        ]
        problems.extend((f"{path}.address.{name}", "is required") for name in missing)
        if not missing:
            try:
                clean = normalize_address(address)
            except InvalidAddressError as exc:
                problems.extend((f"{path}.address.{p.source}", p.message) for p in exc.problems)
    contact = _contact(location.contact, default)
    required = ["companyName", "contactName", "phoneNumber"] + (["email"] if needs_email else [])
    for name in required:
        if not getattr(contact, _snake(name)):
            problems.append(
                (
                    f"{path}.contact.{name}",
                    "is required (or set a default contact on the carrier account)",
                )
            )
    return LtlLocation(address=clean or address, contact=contact)


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _check_window(
    window: LocalDateWindow, path: str, today: date, problems: list[tuple[str, str]]
) -> None:
    for name, value in (("startTime", window.start_time), ("endTime", window.end_time)):
        if value is None:
            problems.append((f"{path}.{name}", "is required (hh:mm)"))
    if window.start_time and window.end_time and window.end_time <= window.start_time:
        problems.append((f"{path}.endTime", "must be after startTime"))
    problem = engine.date_problem(window.date, today)
    if problem is not None:
        problems.append((f"{path}.date", problem))


def _check_items(body: DispatchRequest, problems: list[tuple[str, str]]) -> None:
    for index, item in enumerate(body.line_items):
        path = f"lineItems[{index}]"
        for name, value in (
            ("totalWeight", item.total_weight),
            ("packageDimensions", item.package_dimensions),
            ("freightClass", item.freight_class),
        ):
            if value is None:
                problems.append((f"{path}.{name}", "is required"))


def _check_identifiers(body: DispatchRequest, problems: list[tuple[str, str]]) -> None:
    seen: dict[str, int] = {}
    for index, identifier in enumerate(body.shipment_identifiers):
        path = f"shipmentIdentifiers[{index}].type"
        kind = identifier.type
        if kind == "SYSTEM_GENERATED":
            problems.append((path, "SYSTEM_GENERATED is assigned by the service; do not send it"))
        elif kind not in _ACCEPTED_IDENTIFIERS:
            allowed = ", ".join(sorted(_ACCEPTED_IDENTIFIERS))
            problems.append((path, f"{kind} is not accepted; use {allowed}"))
        elif kind in seen:
            problems.append(
                (
                    path,
                    f"one identifier per type: {kind} is already shipmentIdentifiers[{seen[kind]}]",
                )
            )
        else:
            seen[kind] = index


def _pickup_scac(profile: CarrierProfile, carrier_code: str | None) -> str:
    scacs = [profile.scac, *profile.alternate_scacs]
    if carrier_code is None:
        if len(scacs) > 1:
            raise field_error(
                "carrierCode",
                f"is required: {profile.name} picks up under several SCACs ({', '.join(scacs)})",
            )
        return profile.scac
    code = carrier_profiles.normalize_scac(carrier_code)
    if code not in scacs:
        raise field_error("carrierCode", f"{profile.name} picks up as {' or '.join(scacs)}")
    return code


def _pickup_note(
    body: DispatchRequest, note_only: list[str], alerts: list[QuoteAlert]
) -> str | None:
    """The note the carrier gets, built from the sections the note configuration names."""
    config = body.api_configuration.note_configuration if body.api_configuration else None
    names = (
        [s.name.value for s in config.note_sections]
        if config is not None and config.note_sections
        else ["PICKUP_NOTE", "DELIVERY_NOTE", "UNSUPPORTED_ACCESSORIALS"]
    )
    parts = {
        "PICKUP_NOTE": body.pickup_note,
        "DELIVERY_NOTE": f"Delivery: {body.delivery_note}" if body.delivery_note else None,
        "UNSUPPORTED_ACCESSORIALS": f"Services: {', '.join(note_only)}" if note_only else None,
    }
    note = " | ".join(text for name in names if (text := parts[name]))
    if len(note) <= PICKUP_NOTE_LIMIT:
        return note or None
    if config is None or not config.enable_truncation:
        raise field_error(
            "pickupNote",
            f"the note sent to the carrier would be {len(note)} characters, and the carrier "
            f"takes {PICKUP_NOTE_LIMIT}; shorten the notes or set "
            "apiConfiguration.noteConfiguration.enableTruncation",
        )
    alerts.append(
        QuoteAlert(
            code="PICKUP_NOTE_TRUNCATED",
            severity=AlertSeverity.WARNING,
            message=f"the pickup note was cut to {PICKUP_NOTE_LIMIT} characters",
        )
    )
    return note[:PICKUP_NOTE_LIMIT]


def _note_accessorials(
    body: DispatchRequest, allow_unsupported: bool, problems: list[tuple[str, str]]
) -> tuple[list[str], list[str]]:
    """(codes the carrier's API takes, descriptions that go in the pickup note)."""
    sent: list[str] = []
    noted: list[str] = []
    for index, service in enumerate(body.accessorial_services):
        code = service.code.strip().upper()
        known = engine.VLTL_ACCESSORIALS.get(code)
        if known is not None and known.api_field:
            sent.append(code)
        elif known is not None:
            noted.append(known.description)
        elif allow_unsupported:
            noted.append(code)
        else:
            problems.append(
                (
                    f"accessorialServices[{index}].code",
                    f"{code!r} is not supported; set apiConfiguration.allowUnsupportedAccessorials "
                    "to send it in the pickup note",
                )
            )
    return sent, noted


def _linked_quote(
    session: Session, tenant_id: int, body: DispatchRequest, scac: str, now: datetime
) -> VltlQuoteRow | None:
    number = body.capacity_provider_quote_number.strip()
    if body.rate_quote_id is not None:
        quote = session.get(VltlQuoteRow, str(body.rate_quote_id))
        if quote is None or quote.tenant_id != tenant_id:
            raise field_error("rateQuoteId", "names no volume LTL quote of yours")
        if quote.quote_number != number:
            raise field_error(
                "capacityProviderQuoteNumber",
                f"is not the number of quote rateQuoteId ({quote.quote_number})",
            )
    else:
        quote = session.scalar(
            select(VltlQuoteRow).where(
                VltlQuoteRow.tenant_id == tenant_id, VltlQuoteRow.quote_number == number
            )
        )
        if quote is None:
            return None  # a number the carrier gave outside this service
    if quote.scac != scac:
        raise field_error(
            "capacityProviderAccountGroup.accounts[0].code",
            f"quote {quote.quote_number} is from carrier {quote.scac}",
        )
    if quote.expires_at <= now:
        raise conflict(f"Quote {quote.quote_number} expired at {quote.expires_at.isoformat()}")
    return quote


def _numbers(
    scac: str, seed: uuid.UUID, cfg_pickup_only: bool, cfg_prescheduled: bool
) -> dict[str, str]:
    digits = f"{int(seed) % 10**10:010d}"
    numbers = {"SYSTEM_GENERATED": f"FD{uuid.uuid4().hex[:12].upper()}"}
    if not cfg_prescheduled:
        numbers["PICKUP"] = f"{scac}P{digits[-7:]}"
    if not cfg_pickup_only:
        numbers["PRO"] = digits
    return numbers


def _dispatch(
    session: Session, principal: Principal, body: DispatchRequest, now: datetime
) -> DispatchedShipment:
    tenant_id = principal.tenant_id
    cfg = body.api_configuration
    group = body.capacity_provider_account_group
    alerts: list[QuoteAlert] = []
    if len(group.accounts) != 1:
        raise field_error(
            "capacityProviderAccountGroup.accounts",
            "a dispatch goes to one carrier account: give exactly one",
        )
    scac = _account_scac(group.accounts[0].code, "capacityProviderAccountGroup.accounts[0].code")
    if group.code is not None and not carrier_profiles.account_group_exists(
        session, tenant_id, group.code
    ):
        if not (cfg and cfg.fall_back_to_default_account_group):
            raise field_error(
                "capacityProviderAccountGroup.code",
                f"there is no account group {group.code!r}; set "
                "apiConfiguration.fallBackToDefaultAccountGroup to use the default group",
            )
        alerts.append(
            QuoteAlert(
                code="DEFAULT_ACCOUNT_GROUP",
                severity=AlertSeverity.INFO,
                message=f"account group {group.code!r} does not exist; the default group was used",
            )
        )
    profile = carrier_profiles.resolve(session, tenant_id, [scac])[scac]
    if CarrierMode.VLTL not in profile.modes:
        raise field_error(
            "capacityProviderAccountGroup.accounts[0].code",
            f"{profile.name} does not haul volume LTL",
        )
    pickup_scac = _pickup_scac(profile, body.carrier_code)
    if cfg and cfg.pickup_only and cfg.pre_scheduled_pickup:
        raise field_error(
            "apiConfiguration.preScheduledPickup",
            "cannot go with pickupOnly: nothing would be sent",
        )
    if not (cfg and cfg.enable_unit_conversion):
        problem = _unit_problem(profile, body.weight_unit.value, body.length_unit.value)
        if problem is not None:
            native = _NATIVE_WEIGHT[profile.system_of_measurement]
            raise field_error(
                "weightUnit" if body.weight_unit.value != native else "lengthUnit", problem
            )

    problems: list[tuple[str, str]] = []
    defaults = profile.default_contacts
    origin = _location(
        body.origin_location, "originLocation", defaults.origin if defaults else None, problems
    )
    destination = _location(
        body.destination_location,
        "destinationLocation",
        defaults.destination if defaults else None,
        problems,
    )
    _location(
        body.requester_location,
        "requesterLocation",
        defaults.requester if defaults else None,
        problems,
        needs_email=True,
    )
    if not body.line_items and not body.enhanced_handling_units:
        problems.append(
            ("lineItems", "at least one of lineItems or enhancedHandlingUnits is required")
        )
    elif not body.line_items and not profile.supports_enhanced_handling_units:
        problems.append(
            ("enhancedHandlingUnits", f"{profile.name} does not take them; send lineItems")
        )
    if len(body.line_items) > profile.max_line_items:
        problems.append(
            ("lineItems", f"{profile.name} takes at most {profile.max_line_items} line items")
        )
    _check_items(body, problems)
    weight_unit, length_unit = body.weight_unit.value, body.length_unit.value
    lines = _item_lines(body.line_items, weight_unit, length_unit, [])
    if not body.line_items:
        lines = _unit_lines(body.enhanced_handling_units, weight_unit, length_unit, problems)
    hazmat = any(line.hazmat for line in lines) or any(
        c.hazmat_details
        for u in body.enhanced_handling_units
        for p in u.packages
        for c in p.package_contents
    )
    codes = {service.code.strip().upper() for service in body.accessorial_services}
    if "HAZM" in codes and not hazmat:
        problems.append(("lineItems", "HAZM needs a hazmatDetail on the hazardous line items"))
    if hazmat:
        contact = body.emergency_contact
        if contact is None:
            problems.append(
                ("emergencyContact", "is required when the shipment has hazardous materials")
            )
        else:
            problems.extend(
                (f"emergencyContact.{name}", "is required for hazardous materials")
                for name in ("contactName", "phoneNumber")
                if not getattr(contact, _snake(name))
            )
    today = now.date()
    _check_window(body.pickup_window, "pickupWindow", today, problems)
    if body.delivery_window is not None:
        _check_window(body.delivery_window, "deliveryWindow", today, problems)
        if body.delivery_window.date < body.pickup_window.date:
            problems.append(("deliveryWindow.date", "must not be before pickupWindow.date"))
    elif codes & set(engine.VLTL_SERVICE_CODES):
        problems.append(("deliveryWindow", "is required for guaranteed or expedited service"))
    _check_identifiers(body, problems)
    allow_unsupported = bool(cfg and cfg.allow_unsupported_accessorials)
    _sent, noted = _note_accessorials(body, allow_unsupported, problems)
    if problems:
        raise field_errors(problems)

    quote = _linked_quote(session, tenant_id, body, scac, now)
    linear = _linear_feet(session, tenant_id, body.total_linear_feet, lines)
    note = _pickup_note(body, noted, alerts)
    dispatch_id = uuid.uuid4()
    numbers = _numbers(
        pickup_scac,
        dispatch_id,
        bool(cfg and cfg.pickup_only),
        bool(cfg and cfg.pre_scheduled_pickup),
    )
    identifiers = [i.wire() for i in body.shipment_identifiers]
    if not any(i["type"] == "BILL_OF_LADING" for i in identifiers):
        identifiers.append(
            {"type": "BILL_OF_LADING", "value": f"BOL{int(dispatch_id) % 10**9:09d}"}
        )
    identifiers.append({"type": "SYSTEM_GENERATED", "value": numbers["SYSTEM_GENERATED"]})
    shipment_id = _track(session, tenant_id, pickup_scac, origin, destination, identifiers, numbers)
    answer = DispatchedShipment.model_validate(
        {
            "id": dispatch_id,
            "shipmentId": shipment_id,
            "capacityProviderQuoteNumber": body.capacity_provider_quote_number.strip(),
            "carrierCode": pickup_scac,
            "carrierName": profile.name,
            "pickupNumber": numbers.get("PICKUP"),
            "proNumber": numbers.get("PRO"),
            "shipmentIdentifiers": identifiers,
            "status": "DISPATCHED",
            "pickupWindow": body.pickup_window.wire(),
            "pickupNote": note,
            "rateQuoteId": quote.id if quote else None,
            "createdDateTime": now,
            "alerts": [a.wire() for a in alerts],
        }
    )
    request = body.model_dump(mode="json", by_alias=True, exclude_none=True)
    request["totalLinearFeet"] = linear
    session.add(
        VltlDispatchRow(
            id=str(dispatch_id),
            tenant_id=tenant_id,
            scac=pickup_scac,
            quote_number=answer.capacity_provider_quote_number,
            rate_quote_id=quote.id if quote else None,
            master_shipment_id=shipment_id,
            request=request,
            answer=answer.wire(),
            created_at=now,
        )
    )
    return answer


def _track(
    session: Session,
    tenant_id: int,
    scac: str,
    origin: LtlLocation,
    destination: LtlLocation,
    identifiers: list[dict[str, Any]],
    numbers: dict[str, str],
) -> str:
    """Create the tracked shipment: carrier, PRO, BOL, pickup number and purchase orders as
    identifiers; EXTERNAL and CUSTOMER_REFERENCE (which tracking does not take) as attributes."""
    tracked = [{"type": "CARRIER_SCAC", "value": scac}]
    tracked += [
        {"type": kind, "value": numbers[kind]} for kind in ("PRO", "PICKUP") if kind in numbers
    ]
    tracked += [i for i in identifiers if i["type"] in ("BILL_OF_LADING", "PURCHASE_ORDER")]
    attributes: dict[str, list[str]] = {}
    for identifier in identifiers:
        if identifier["type"] in ("EXTERNAL", "CUSTOMER_REFERENCE"):
            attributes.setdefault(identifier["type"], []).append(identifier["value"])
    stops = [
        {"type": kind, "location": {"address": location.address.wire()}}
        for kind, location in (("PICKUP", origin), ("DELIVERY", destination))
        if location.address is not None
    ]
    body = TrackedShipmentInput.model_validate(
        {
            "identifiers": tracked,
            "attributes": [{"name": k, "values": v} for k, v in attributes.items()],
            "plan": {"expectedTransportationModes": ["VLTL"]},
            "routeInfo": {"stops": stops},
        }
    )
    return shipments.create_shipment(session, tenant_id, body)


@router.post("/api/v4/vltl/dispatchedshipments", responses=ERRORS, response_model_exclude_none=True)
def dispatch_shipment(
    body: DispatchRequest, _strict: StrictDispatch, principal: PrincipalDep, context: ContextDep
) -> DispatchedShipment:
    """Dispatch to the carrier account; the answer names the tracked shipment it created."""
    with transaction(context.sessions) as session:
        return _dispatch(session, principal, body, utcnow())
