"""OpenAPI helpers: the Error body on every operation, extensions marked as such."""

from __future__ import annotations

from typing import Any

from freightdesk.models.errors import ErrorBody

_ERROR_CODES = {
    400: "The request is not valid",
    401: "Missing, invalid or expired credentials",
    403: "Not allowed for this caller",
    404: "Not found (or not visible to this tenant)",
    409: "Conflicts with the current state",
    413: "Payload too large",
    415: "Unsupported content type",
    429: "Too many requests",
    500: "Internal error",
}

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text} for code, text in _ERROR_CODES.items()
}

# Operations the interface does not describe; marked in the OpenAPI document.
EXTENSION: dict[str, Any] = {"x-freightdesk-extension": True}
