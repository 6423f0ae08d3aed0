"""The interface's Error body."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from freightdesk.models.base import WireModel


class Severity(StrEnum):
    ERROR = "ERROR"
    WARNING = "WARNING"
    INFO = "INFO"


class ErrorDetail(WireModel):
    """One entry of `errors[]` (its fields are a gap of the spec; see docs/spec-gaps.md).

    `source` names the field path the message is about (for example
    `routeInfo.stops[2].location.address.country`), or the component for non-field errors.
    """

    severity: Severity = Severity.ERROR
    message: str
    diagnostic: str | None = None
    source: str | None = None


class ErrorBody(WireModel):
    http_status_code: int
    http_message: str
    error_message: str
    errors: list[ErrorDetail] = Field(default_factory=list)
    support_reference_id: str | None = None
