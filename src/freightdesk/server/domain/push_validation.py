"""Push validation beyond the models: the service's clock (the models' `future_problems`)
and the customer tenant.

Both run before a push is accepted, so a refused push is never stored. They are kept cheap
because they are on the ingestion path (a thousand pushes a second): the clock rule is pure
and tenant lookups are cached (tenants are never renamed to another uuid nor change kind).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from freightdesk.models.push import ParcelStatusUpdate, TruckloadTrackingUpdate, future_problems
from freightdesk.server.context import ServiceContext
from freightdesk.server.errors import ApiError, field_errors
from freightdesk.server.principal import Principal
from freightdesk.server.tables.tenancy import Tenant

CARRIER_KIND = "CARRIER"


def check_clock(update: TruckloadTrackingUpdate | ParcelStatusUpdate, now: datetime) -> None:
    problems = future_problems(update, now)
    if problems:
        raise field_errors(problems)


@dataclass(frozen=True)
class _TenantFacts:
    id: int
    kind: str


class TenantDirectory:
    """Tenant uuid -> id and id -> kind, remembered once seen (tenants are never altered)."""

    def __init__(self, context: ServiceContext) -> None:
        self._context = context
        self._lock = threading.Lock()
        self._by_uuid: dict[str, _TenantFacts] = {}
        self._by_id: dict[int, _TenantFacts] = {}

    def cached_target(self, principal: Principal, account: str | None) -> int | None:
        """The target tenant id when it is decided without the database, else None."""
        if account is None or account.lower() == principal.tenant_uuid.lower():
            return principal.tenant_id
        with self._lock:
            caller = self._by_id.get(principal.tenant_id)
            target = self._by_uuid.get(account.lower())
        if caller is None or target is None:
            return None
        return _allowed(caller, target)

    def target(self, principal: Principal, account: str | None) -> int:
        """The tenant the push is for; may read the database (call it from a thread)."""
        cached = self.cached_target(principal, account)
        if cached is not None:
            return cached
        assert account is not None
        with self._context.sessions() as session:
            caller_row = session.get(Tenant, principal.tenant_id)
            target_row = session.scalar(select(Tenant).where(Tenant.uuid == account.lower()))
        if caller_row is None:  # the caller's tenant was deleted under its own token
            raise ApiError(401, "The tenant of this token no longer exists")
        caller = self._remember(caller_row)
        if caller.kind != CARRIER_KIND:
            raise _not_a_carrier()
        if target_row is None:
            raise field_errors(
                [
                    (
                        "customerAccountNumber",
                        "names no customer tenant; give the customer's tenant id (a uuid)",
                    )
                ]
            )
        return _allowed(caller, self._remember(target_row))

    def _remember(self, row: Tenant) -> _TenantFacts:
        facts = _TenantFacts(row.id, row.kind)
        with self._lock:
            if len(self._by_uuid) > 50_000:
                self._by_uuid.clear()
                self._by_id.clear()
            self._by_uuid[row.uuid.lower()] = facts
            self._by_id[row.id] = facts
        return facts


def _allowed(caller: _TenantFacts, target: _TenantFacts) -> int:
    if caller.id != target.id and caller.kind != CARRIER_KIND:
        raise _not_a_carrier()
    return target.id


def _not_a_carrier() -> ApiError:
    return field_errors(
        [
            (
                "customerAccountNumber",
                "only a carrier tenant may push updates for another tenant; leave it out to "
                "update your own shipments",
            )
        ],
        status=403,
    )


def tenant_directory(context: ServiceContext) -> TenantDirectory:
    directory = context.services.get("push_tenants")
    if directory is None:
        directory = context.services.setdefault("push_tenants", TenantDirectory(context))
    assert isinstance(directory, TenantDirectory)
    return directory
