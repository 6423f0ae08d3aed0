"""The names of the carriers the service knows by code, whatever they are known for: the
demo's carriers and forwarders, the co-op's carriers with vehicles, the ocean carriers of the
sailing schedules. A carrier's profile starts from this name (`carrier_profiles`), and a
tenant's profile may rename it."""

from __future__ import annotations

from functools import cache

from freightdesk.server.domain import carrier_directory, schedules, vehicles


@cache
def known_names() -> dict[str, str]:
    """Name by SCAC (the sources agree where they share a code)."""
    names = {c.scac: c.name for c in (*carrier_directory.CARRIERS, *carrier_directory.FORWARDERS)}
    names.update(schedules.carrier_names())
    names.update((scac, name) for scac, name, _country in vehicles.CARRIERS)
    return names
