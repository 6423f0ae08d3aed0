"""Volume LTL rate quotes (the v2 and v3 operations behave the same).

Quotes are priced at once by the rate engine for every carrier of the account group; a
carrier that cannot quote answers a RateQuote with ERROR alerts saying why. Each priced quote
is kept (`VltlQuoteRow`) until it expires, so that a dispatch can name it.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from freightdesk.models import vltl_rules
from freightdesk.models.booking import CarrierMode, CarrierProfile, SystemOfMeasurement
from freightdesk.models.common import Address
from freightdesk.models.rating import AccountRef
from freightdesk.models.rating_rules import date_problem
from freightdesk.models.vltl import (
    AccountGroupSelection,
    AlertSeverity,
    PreferredSystemOfMeasurement,
    QuoteAlert,
    RateQuote,
    RateQuoteList,
    VltlQuoteRequest,
)
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.domain import rate_engine as engine
from freightdesk.server.domain.account_groups import group_code
from freightdesk.server.domain.rating_quotes import locate
from freightdesk.server.domain.vltl import rules, units
from freightdesk.server.errors import field_error, field_errors
from freightdesk.server.tables.vltl import VltlQuoteRow

QUOTE_VALIDITY = timedelta(hours=72)


@dataclass
class _QuoteJob:
    """Everything a carrier prices, worked out once for the request."""

    miles: float
    linear_feet: int
    item_lines: list[units.Line]
    unit_lines: list[units.Line]
    accessorials: list[str]
    service_levels: list[str]
    inside_variants: bool
    pickup: date
    alerts: list[QuoteAlert] = field(default_factory=list)


def _lane_miles(origin: Address, destination: Address) -> float:
    start = locate(origin, None, "originAddress")
    end = locate(destination, None, "destinationAddress")
    return engine.route_miles([(start, end)])


def _group_carriers(
    session: Session, tenant_id: int, group: AccountGroupSelection | None, fallback: bool
) -> tuple[list[str], list[QuoteAlert]]:
    """SCACs to quote: the accounts named, else the group's carriers, else the default group."""
    alerts: list[QuoteAlert] = []
    if group is not None and group.accounts:
        path = "capacityProviderAccountGroup.accounts"
        scacs = [
            rules.account_scac(a.code, f"{path}[{i}].code") for i, a in enumerate(group.accounts)
        ]
        return list(dict.fromkeys(scacs)), alerts
    if group is not None and group.code is not None:
        members: list[str] = []
        code = group_code(session, tenant_id, group.code)
        if code is not None:
            group.code = code  # quotes show the group's own spelling
            members = carrier_profiles.group_members(session, tenant_id, code)
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
    vltl_rules.freight_problems(body.line_items, body.enhanced_handling_units, problems)
    if problems:
        raise field_errors(problems)
    origin = rules.clean_address(body.origin_address, "originAddress")
    destination = rules.clean_address(body.destination_address, "destinationAddress")
    weight_unit, length_unit = body.weight_unit.value, body.length_unit.value
    item_lines = units.item_lines(body.line_items, weight_unit, length_unit, problems)
    unit_lines = units.unit_lines(body.enhanced_handling_units, weight_unit, length_unit, problems)
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
        problem = date_problem(chosen.date, now.date()) if chosen else None
        if problem is not None:
            raise field_error(f"{name}.date", problem)
    return _QuoteJob(
        miles=_lane_miles(origin, destination),
        linear_feet=units.linear_feet(session, tenant_id, body.total_linear_feet, lines),
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
        return units.unit_problem(profile, body.weight_unit.value, body.length_unit.value)
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


def quote_rates(
    session: Session, tenant_id: int, body: VltlQuoteRequest, now: datetime
) -> RateQuoteList:
    job = _quote_job(session, tenant_id, body, now)
    fallback = bool(
        body.api_configuration and body.api_configuration.fall_back_to_default_account_group
    )
    scacs, group_alerts = _group_carriers(
        session, tenant_id, body.capacity_provider_account_group, fallback
    )
    job.alerts.extend(group_alerts)
    profiles = carrier_profiles.resolve(session, tenant_id, scacs)
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
                tenant_id=tenant_id,
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
