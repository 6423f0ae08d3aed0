"""OpenAPI helpers: the Error body on every operation, extensions marked as such."""

from __future__ import annotations

from typing import Any

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

# By reference: /health names the model itself (server/app.py), so that FastAPI does not build
# a validator and serializer of the Error body for each of the ~700 responses (0.1-0.25 s of
# every start). The document is the same.
_ERROR_BODY = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"content": _ERROR_BODY, "description": text} for code, text in _ERROR_CODES.items()
}

# Operations the interface does not describe; marked in the OpenAPI document.
EXTENSION: dict[str, Any] = {"x-freightdesk-extension": True}
