"""Postal address validation for the local service.

The rules themselves are the pure :func:`freightdesk.models.addresses.normalize_address`
(shared with the app's forms, which may not import the server); this module turns its
problems into the interface's Error body, with field paths under a prefix such as `address.`.
"""

from __future__ import annotations

from freightdesk.models.addresses import (
    AddressInput,
    AddressProblem,
    InvalidAddressError,
    normalize_address,
)
from freightdesk.models.common import Address
from freightdesk.server.errors import field_errors

__all__ = ["address_problems", "normalize_address", "normalize_or_raise"]


def address_problems(
    address: AddressInput | Address, prefix: str = ""
) -> tuple[Address | None, list[tuple[str, str]]]:
    """The normalized address, or None and the (source, message) pairs of its problems.

    For callers that report the address's problems together with problems of other fields.
    """
    try:
        return normalize_address(address), []
    except InvalidAddressError as exc:
        return None, [_pair(problem, prefix) for problem in exc.problems]


def normalize_or_raise(address: AddressInput | Address, prefix: str = "") -> Address:
    """The normalized address, or a 400 naming every problem (`prefix` + field name)."""
    normalized, problems = address_problems(address, prefix)
    if normalized is None:
        raise field_errors(problems)
    return normalized


def _pair(problem: AddressProblem, prefix: str) -> tuple[str, str]:
    return f"{prefix}{problem.source}", problem.message
