"""The name a carrier has when nobody named it: a carrier profile's default for a code the
service knows no name of. The app does not show it as a name (the code says as much)."""

from __future__ import annotations


def derived_carrier_name(scac: str) -> str:
    return f"Carrier {scac}"
