"""Volume LTL dispatch.

A dispatch goes to one carrier account, is answered with the carrier's pickup and PRO numbers,
and creates a tracked shipment (mode VLTL) found by the answer's `shipmentId`. It may name a
quote of this service (`rateQuoteId` or the quote's number), which must be the carrier's and
not expired.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models import vltl_rules
from freightdesk.models.booking import CarrierMode, CarrierProfile
from freightdesk.models.common import LtlLocation
from freightdesk.models.tracking import TrackedShipmentInput
from freightdesk.models.vltl import AlertSeverity, DispatchedShipment, DispatchRequest, QuoteAlert
from freightdesk.server.domain import carrier_profiles, shipments
from freightdesk.server.domain import rate_engine as engine
from freightdesk.server.domain.account_groups import group_code
from freightdesk.server.domain.vltl import rules, units
from freightdesk.server.errors import conflict, field_error, field_errors
from freightdesk.server.tables.vltl import VltlDispatchRow, VltlQuoteRow

PICKUP_NOTE_LIMIT = 250


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


def _carrier(
    session: Session, tenant_id: int, body: DispatchRequest, alerts: list[QuoteAlert]
) -> tuple[str, CarrierProfile, str]:
    """(the account's SCAC, its carrier, the SCAC it picks up under): the one carrier account
    of the request, able to take this dispatch as sent."""
    cfg = body.api_configuration
    group = body.capacity_provider_account_group
    if len(group.accounts) != 1:
        raise field_error(
            "capacityProviderAccountGroup.accounts",
            "a dispatch goes to one carrier account: give exactly one",
        )
    scac = rules.account_scac(
        group.accounts[0].code, "capacityProviderAccountGroup.accounts[0].code"
    )
    stored = None if group.code is None else group_code(session, tenant_id, group.code)
    if stored is not None:
        group.code = stored  # the dispatch is kept, and answered, with the group's spelling
    elif group.code is not None:
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
        problem = units.unit_problem(profile, body.weight_unit.value, body.length_unit.value)
        if problem is not None:
            native = units.NATIVE_WEIGHT[profile.system_of_measurement]
            raise field_error(
                "weightUnit" if body.weight_unit.value != native else "lengthUnit", problem
            )
    return scac, profile, pickup_scac


@dataclass(frozen=True)
class _Checked:
    """What a dispatch that meets every rule sends: its locations (contacts completed from the
    account's defaults), its freight and the services that go in the pickup note."""

    origin: LtlLocation
    destination: LtlLocation
    lines: list[units.Line]
    noted: list[str]


def _check_request(body: DispatchRequest, profile: CarrierProfile, today: date) -> _Checked:
    """The request checked against every rule for this carrier; one 400 names every problem."""
    problems: list[tuple[str, str]] = []
    defaults = profile.default_contacts
    origin = vltl_rules.checked_location(
        body.origin_location, "originLocation", defaults.origin if defaults else None, problems
    )
    destination = vltl_rules.checked_location(
        body.destination_location,
        "destinationLocation",
        defaults.destination if defaults else None,
        problems,
    )
    vltl_rules.checked_location(
        body.requester_location,
        "requesterLocation",
        defaults.requester if defaults else None,
        problems,
        needs_email=True,
    )
    codes = {service.code.strip().upper() for service in body.accessorial_services}
    lines = _check_freight(body, profile, codes, problems)
    vltl_rules.window_problems(body, problems)
    rules.check_days(body, today, problems)
    vltl_rules.identifier_problems(body, problems)
    cfg = body.api_configuration
    allow_unsupported = bool(cfg and cfg.allow_unsupported_accessorials)
    _sent, noted = _note_accessorials(body, allow_unsupported, problems)
    if problems:
        raise field_errors(problems)
    return _Checked(origin, destination, lines, noted)


def _check_freight(
    body: DispatchRequest,
    profile: CarrierProfile,
    codes: set[str],
    problems: list[tuple[str, str]],
) -> list[units.Line]:
    """The freight as lines, checked: what the carrier takes, and what hazardous materials
    need (HAZM, an emergency contact)."""
    vltl_rules.freight_problems(body.line_items, body.enhanced_handling_units, problems)
    units_only = body.enhanced_handling_units and not body.line_items
    if units_only and not profile.supports_enhanced_handling_units:
        problems.append(
            ("enhancedHandlingUnits", f"{profile.name} does not take them; send lineItems")
        )
    if len(body.line_items) > profile.max_line_items:
        problems.append(
            ("lineItems", f"{profile.name} takes at most {profile.max_line_items} line items")
        )
    vltl_rules.item_problems(body.line_items, problems)
    weight_unit, length_unit = body.weight_unit.value, body.length_unit.value
    lines = units.item_lines(body.line_items, weight_unit, length_unit, [])
    if not body.line_items:
        lines = units.unit_lines(body.enhanced_handling_units, weight_unit, length_unit, problems)
    if "HAZM" in codes and not vltl_rules.carries_hazmat(
        body.line_items, body.enhanced_handling_units
    ):
        problems.append(("lineItems", "HAZM needs a hazmatDetail on the hazardous line items"))
    vltl_rules.emergency_contact_problems(body, problems)
    return lines


def _identifiers(
    body: DispatchRequest, dispatch_id: uuid.UUID, numbers: dict[str, str]
) -> list[dict[str, Any]]:
    """The request's identifiers, a bill of lading made up when it gives none, and ours."""
    identifiers = [i.wire() for i in body.shipment_identifiers]
    if not any(i["type"] == "BILL_OF_LADING" for i in identifiers):
        identifiers.append(
            {"type": "BILL_OF_LADING", "value": f"BOL{int(dispatch_id) % 10**9:09d}"}
        )
    identifiers.append({"type": "SYSTEM_GENERATED", "value": numbers["SYSTEM_GENERATED"]})
    return identifiers


def dispatch(
    session: Session, tenant_id: int, body: DispatchRequest, now: datetime
) -> DispatchedShipment:
    """Dispatch to the request's carrier account: the carrier's answer, the tracked shipment
    it creates and the dispatch kept (`VltlDispatchRow`)."""
    cfg = body.api_configuration
    alerts: list[QuoteAlert] = []
    scac, profile, pickup_scac = _carrier(session, tenant_id, body, alerts)
    checked = _check_request(body, profile, now.date())

    quote = _linked_quote(session, tenant_id, body, scac, now)
    linear = units.linear_feet(session, tenant_id, body.total_linear_feet, checked.lines)
    note = _pickup_note(body, checked.noted, alerts)
    dispatch_id = uuid.uuid4()
    numbers = _numbers(
        pickup_scac,
        dispatch_id,
        bool(cfg and cfg.pickup_only),
        bool(cfg and cfg.pre_scheduled_pickup),
    )
    identifiers = _identifiers(body, dispatch_id, numbers)
    shipment_id = _track(
        session, tenant_id, pickup_scac, checked.origin, checked.destination, identifiers, numbers
    )
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
