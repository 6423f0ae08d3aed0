"""Postal address validation for the local service.

The rules themselves are the pure :func:`freightdesk.models.addresses.normalize_address`
and `address_problems` (shared with the app's forms, which may not import the server); this
module turns their problems into the interface's Error body, with field paths under a prefix
such as `address.`.
"""

from __future__ import annotations

from freightdesk.models.addresses import AddressInput, address_problems
from freightdesk.models.common import Address
from freightdesk.server.errors import field_errors

__all__ = ["normalize_or_raise"]


def normalize_or_raise(address: AddressInput | Address, prefix: str = "") -> Address:
    """The normalized address, or a 400 naming every problem (`prefix` + field name)."""
    normalized, problems = address_problems(address, prefix)
    if normalized is None:
        raise field_errors(problems)
    return normalized
