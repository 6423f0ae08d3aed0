"""Capacity provider account groups: a tenant's codes are unique whatever their case.

The interface calls `code` unique and user-provided, and shipments and rate requests name a
group by it: `WEST` and `west` side by side would be two groups a person reads as one, so a
code that differs from a taken one only in case is refused like the same code (409 `code`,
naming the group that has it). Codes are kept as given.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.account_groups import AccountGroupCreate
from freightdesk.server.errors import ApiError, conflict
from freightdesk.server.tables.account_groups import AccountGroupRow


def code_taken(code: str, taken: str | None = None) -> ApiError:
    """The 409 for `code`, which `taken` (a group's code, the same or in another case) has."""
    if taken is None or taken == code:
        return conflict(f"An account group with code {code!r} already exists", source="code")
    return conflict(
        f"The account group {taken!r} has this code: codes are unique whatever their case",
        source="code",
    )


def create_group(session: Session, tenant_id: int, body: AccountGroupCreate) -> AccountGroupRow:
    code = body.code.strip()
    folded = code.casefold()
    # A tenant's groups are few (the list is answered whole): compared here, not by the
    # database's lower(), which folds ASCII letters only on SQLite.
    codes = session.scalars(
        select(AccountGroupRow.code).where(AccountGroupRow.tenant_id == tenant_id)
    )
    taken = next((c for c in codes if c.casefold() == folded), None)
    if taken is not None:
        raise code_taken(code, taken)
    row = AccountGroupRow(tenant_id=tenant_id, code=code, name=body.name.strip())
    session.add(row)
    session.flush()
    return row
