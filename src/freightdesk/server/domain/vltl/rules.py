"""Rules of a volume LTL request beyond its model: who may quote, addresses, carrier accounts,
and what a dispatch must carry (locations with their contacts, windows, items, identifiers)."""

from __future__ import annotations

from datetime import date

from freightdesk.models.addresses import InvalidAddressError, normalize_address
from freightdesk.models.common import Address, LocalDateWindow, LtlContact, LtlLocation
from freightdesk.models.vltl import DispatchRequest, TenantPurpose, VltlUser
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.domain import rate_engine as engine
from freightdesk.server.errors import ApiError, field_error, field_errors

_SENT_IDENTIFIERS = {"BILL_OF_LADING", "PURCHASE_ORDER", "CUSTOMER_REFERENCE"}
_ACCEPTED_IDENTIFIERS = _SENT_IDENTIFIERS | {"EXTERNAL"}


def check_user(user: VltlUser, tenant_id: int, tenant_uuid: str) -> None:
    """The `user` of a quote query: given, of the bearer token's tenant, and able to quote."""
    if not user.model_dump(exclude_none=True):
        raise field_error(
            "user",
            "is required: send the user's fields as query parameters (username, tenantUuid, "
            "enabled, ...)",
        )
    if user.tenant_id is not None and user.tenant_id != tenant_id:
        raise field_error("tenantId", "is not the tenant of the bearer token")
    if user.tenant_uuid is not None and str(user.tenant_uuid) != tenant_uuid:
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


def clean_address(address: Address, path: str) -> Address:
    try:
        clean = normalize_address(address)
    except InvalidAddressError as exc:
        raise field_errors((f"{path}.{p.source}", p.message) for p in exc.problems) from None
    if not clean.postal_code:
        raise field_error(f"{path}.postalCode", "is required")
    return clean


def account_scac(code: str, path: str) -> str:
    scac = carrier_profiles.normalize_scac(code)
    if not scac.isalpha() or not 2 <= len(scac) <= 4:
        raise field_error(path, "must be the carrier's SCAC (2 to 4 letters)")
    return scac


def _contact(given: LtlContact | None, default: LtlContact | None) -> LtlContact:
    """The location's contact, its missing fields taken from the account's default contact."""
    if given is None:
        return default or LtlContact()
    if default is None:
        return given
    return default.model_copy(update=given.model_dump(exclude_none=True))


def checked_location(
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
        if not getattr(contact, snake_name(name)):
            problems.append(
                (
                    f"{path}.contact.{name}",
                    "is required (or set a default contact on the carrier account)",
                )
            )
    return LtlLocation(address=clean or address, contact=contact)


def snake_name(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def check_window(
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


def check_items(body: DispatchRequest, problems: list[tuple[str, str]]) -> None:
    for index, item in enumerate(body.line_items):
        path = f"lineItems[{index}]"
        for name, value in (
            ("totalWeight", item.total_weight),
            ("packageDimensions", item.package_dimensions),
            ("freightClass", item.freight_class),
        ):
            if value is None:
                problems.append((f"{path}.{name}", "is required"))


def check_identifiers(body: DispatchRequest, problems: list[tuple[str, str]]) -> None:
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
