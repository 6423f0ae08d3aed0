"""Capacity provider account groups."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from pydantic import AfterValidator, Field

from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import PRINTABLE, Int64, printable


def code_key(code: str) -> str:
    """What account group codes are compared by, everywhere (docs/spec-gaps.md): `WEST`,
    `west` and ` West ` name one group, whose stored spelling is the one answers show.
    Unicode case folding, so that `STRASSE` names `Straße` as it is refused beside it."""
    return code.strip().casefold()


def find_code(codes: Iterable[str], code: str) -> str | None:
    """The one of `codes` (stored spellings) that `code` names, or None."""
    key = code_key(code)
    return next((c for c in codes if code_key(c) == key), None)


def _filled(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


# A code and a name hold a character other than a space and no control characters (a tab in
# a code would be a difference no one sees); the service stores them trimmed.
Code = Annotated[
    str,
    Field(min_length=1, max_length=100, json_schema_extra=PRINTABLE),
    AfterValidator(_filled),
    AfterValidator(printable),
]
GroupName = Annotated[
    str,
    Field(min_length=1, max_length=200, json_schema_extra=PRINTABLE),
    AfterValidator(_filled),
    AfterValidator(printable),
]


class AccountGroupCreate(StrictWireModel):
    """A new group: `id` is service-generated and must not be supplied."""

    code: Code
    name: GroupName


class AccountGroupUpdate(AccountGroupCreate):
    """A group's new code and name: `id` is required (the interface) and must be the path's."""

    id: Int64


class AccountGroup(WireModel):
    id: int
    code: str
    name: str


class AccountGroupList(WireModel):
    groups: list[AccountGroup]
