"""What a form says once the service has validated the address typed in it (the rate
request's stops and the stop location form alike)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from freightdesk.models.common import Address
from freightdesk.ui.formatting import address_text


def address_checked(normal: Address, entered: Mapping[str, Any]) -> tuple[str, Address | None]:
    """The words for the service's `normal` form of the address `entered` (as the request
    sends it), and the suggestion to offer: None when the address is valid as entered."""
    typed = Address.model_validate({k: v for k, v in entered.items() if v is not None})
    if normal == typed:
        return "✓ The address is valid.", None
    return f"Suggested: {address_text(normal)}", normal
