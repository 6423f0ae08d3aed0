"""Rules of a volume LTL request beyond its model: who may quote, addresses, carrier accounts,
the days a window may fall on. What a dispatch must carry (locations with their contacts,
times, items, identifiers, an emergency contact) is in `freightdesk.models.vltl_rules`, which
the app checks before sending."""

from __future__ import annotations

from datetime import date

from freightdesk.models.common import Address
from freightdesk.models.rating_rules import date_problem
from freightdesk.models.vltl import DispatchRequest, TenantPurpose, VltlUser
from freightdesk.models.vltl_rules import quote_address
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.errors import ApiError, field_error, field_errors


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
    problems: list[tuple[str, str]] = []
    clean = quote_address(address, path, problems)
    if problems:
        raise field_errors(problems)
    return clean


def account_scac(code: str, path: str) -> str:
    scac = carrier_profiles.normalize_scac(code)
    if not scac.isalpha() or not 2 <= len(scac) <= 4:
        raise field_error(path, "must be the carrier's SCAC (2 to 4 letters)")
    return scac


def check_days(body: DispatchRequest, today: date, problems: list[tuple[str, str]]) -> None:
    """The dispatch's windows fall on days the service books (their times are the models'
    rules)."""
    for path, window in (
        ("pickupWindow", body.pickup_window),
        ("deliveryWindow", body.delivery_window),
    ):
        problem = None if window is None else date_problem(window.date, today)
        if problem is not None:
            problems.append((f"{path}.date", problem))
