"""Capacity provider account groups: a tenant's codes are unique whatever their case, and
name their group whatever their case.

The interface calls `code` unique and user-provided, and shipments and rate requests name a
group by it: `WEST` and `west` side by side would be two groups a person reads as one, so a
code that differs from a taken one only in case is refused like the same code (409 `code`,
naming the group that has it), and every lookup by code (`find_group`) finds the group in
any case. Codes are kept as given; answers show them so. The rule is `code_key` in
models/account_groups.py, which the app uses too.
"""

from __future__ import annotations

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from freightdesk.models.account_groups import (
    AccountGroupCreate,
    AccountGroupUpdate,
    code_key,
    find_code,
)
from freightdesk.server.db import utcnow
from freightdesk.server.errors import ApiError, conflict, field_error, not_found
from freightdesk.server.tables.account_groups import AccountGroupRow
from freightdesk.server.tables.booking import CarrierProfileRow


def code_taken(code: str, taken: str | None = None) -> ApiError:
    """The 409 for `code`, which `taken` (a group's code, the same or in another case) has."""
    if taken is None or taken == code:
        return conflict(f"An account group with code {code!r} already exists", source="code")
    return conflict(
        f"The account group {taken!r} has this code: codes are unique whatever their case",
        source="code",
    )


def by_lowered_code(tenant_id: int, code: str) -> Select[AccountGroupRow]:
    """The tenant's groups whose code the database's lower() folds as it folds `code`: one
    probe of the unique index on (tenant, lower(code)), on SQLite and PostgreSQL."""
    return select(AccountGroupRow).where(
        AccountGroupRow.tenant_id == tenant_id,
        func.lower(AccountGroupRow.code) == func.lower(code.strip()),
    )


def find_group(session: Session, tenant_id: int, code: str) -> AccountGroupRow | None:
    """The tenant's group that `code` names (by `code_key`), or None.

    Asked first by the unique index (`by_lowered_code`), which finds every code of ASCII
    letters in one probe on SQLite and PostgreSQL alike. The databases' lower() is not
    casefold (SQLite folds ASCII letters only, neither maps `ß` to `ss`), so a miss looks
    through the tenant's codes before saying none: a tenant's groups are few (the list is
    answered whole), and a miss is a refusal or a new code."""
    wanted = code_key(code)
    for row in session.scalars(by_lowered_code(tenant_id, code)):
        if code_key(row.code) == wanted:
            return row
    every = select(AccountGroupRow).where(AccountGroupRow.tenant_id == tenant_id)
    return next((r for r in session.scalars(every) if code_key(r.code) == wanted), None)


def group_code(session: Session, tenant_id: int, code: str) -> str | None:
    """The stored spelling of the tenant's group that `code` names, or None."""
    row = find_group(session, tenant_id, code)
    return None if row is None else row.code


def create_group(session: Session, tenant_id: int, body: AccountGroupCreate) -> AccountGroupRow:
    code = body.code.strip()
    taken = find_group(session, tenant_id, code)
    if taken is not None:
        raise code_taken(code, taken.code)
    row = AccountGroupRow(tenant_id=tenant_id, code=code, name=body.name.strip())
    session.add(row)
    session.flush()
    return row


def update_group(
    session: Session, tenant_id: int, group_id: int, body: AccountGroupUpdate
) -> AccountGroupRow:
    """A group's new code and name. Its own code in another case is no conflict."""
    if body.id != group_id:
        raise field_error("id", f"must be the path's id ({group_id})")
    row = session.get(AccountGroupRow, group_id)
    if row is None or row.tenant_id != tenant_id:
        raise not_found(f"Account group {group_id}")
    code = body.code.strip()
    taken = find_group(session, tenant_id, code)
    if taken is not None and taken.id != row.id:
        raise code_taken(code, taken.code)
    _rename_in_carrier_profiles(session, tenant_id, row.code, code)
    row.code = code
    row.name = body.name.strip()
    session.flush()
    return row


def _rename_in_carrier_profiles(session: Session, tenant_id: int, old: str, new: str) -> None:
    """The carriers in the group stay in it under its new code: profiles name it by code."""
    if old == new:
        return
    for profile in session.scalars(
        select(CarrierProfileRow).where(CarrierProfileRow.tenant_id == tenant_id)
    ):
        codes = profile.settings.get("accountGroupCodes") or []
        if find_code(codes, old) is None:
            continue
        renamed = [new if code_key(c) == code_key(old) else c for c in codes]
        # A new dict: the JSON column sees a replaced value, not one changed in place.
        profile.settings = {**profile.settings, "accountGroupCodes": list(dict.fromkeys(renamed))}
        profile.updated_at = utcnow()
