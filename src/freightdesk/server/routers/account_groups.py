"""Capacity provider account groups: list, create (201), delete (204)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from freightdesk.models.account_groups import AccountGroup, AccountGroupCreate, AccountGroupList
from freightdesk.models.common import Int64
from freightdesk.server.auth import PrincipalDep
from freightdesk.server.context import ContextDep, SessionDep, cheap_read
from freightdesk.server.db import transaction
from freightdesk.server.errors import conflict, not_found
from freightdesk.server.openapi import ERRORS
from freightdesk.server.tables.account_groups import AccountGroupRow

router = APIRouter(prefix="/api/v4/capacityprovideraccountgroups", tags=["Account groups"])


def _view(row: AccountGroupRow) -> AccountGroup:
    return AccountGroup(id=row.id, code=row.code, name=row.name)


@router.get("", responses=ERRORS)
async def list_account_groups(principal: PrincipalDep, session: SessionDep) -> AccountGroupList:
    def read() -> AccountGroupList:
        rows = session.scalars(
            select(AccountGroupRow)
            .where(AccountGroupRow.tenant_id == principal.tenant_id)
            .order_by(AccountGroupRow.code)
        )
        return AccountGroupList(groups=[_view(row) for row in rows])

    return await cheap_read(session, read)


@router.post("", status_code=201, responses=ERRORS)
def create_account_group(
    body: AccountGroupCreate, principal: PrincipalDep, context: ContextDep
) -> AccountGroup:
    code = body.code.strip()
    duplicate = conflict(f"An account group with code {code!r} already exists", source="code")
    try:
        with transaction(context.sessions) as session:
            taken = session.scalar(
                select(AccountGroupRow.id).where(
                    AccountGroupRow.tenant_id == principal.tenant_id, AccountGroupRow.code == code
                )
            )
            if taken is not None:
                raise duplicate
            row = AccountGroupRow(tenant_id=principal.tenant_id, code=code, name=body.name.strip())
            session.add(row)
            session.flush()
            return _view(row)
    except IntegrityError:  # a concurrent create of the same code won the race
        raise duplicate from None


@router.delete("/{id}", status_code=204, responses=ERRORS)
def delete_account_group(
    group_id: Annotated[Int64, Path(alias="id")], principal: PrincipalDep, context: ContextDep
) -> None:
    with transaction(context.sessions) as session:
        row = session.get(AccountGroupRow, group_id)
        if row is None or row.tenant_id != principal.tenant_id:
            raise not_found(f"Account group {group_id}")
        session.delete(row)
