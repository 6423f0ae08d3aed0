"""Capacity provider account groups."""

from __future__ import annotations

from pydantic import Field

from freightdesk.models.base import StrictWireModel, WireModel


class AccountGroupCreate(StrictWireModel):
    """A new group: `id` is service-generated and must not be supplied."""

    code: str = Field(min_length=1, max_length=100)
    name: str = Field(min_length=1, max_length=200)


class AccountGroup(WireModel):
    id: int
    code: str
    name: str


class AccountGroupList(WireModel):
    groups: list[AccountGroup]
