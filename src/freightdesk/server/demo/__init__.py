"""Demo data for a fresh local service (`freightdesk serve --demo`).

`seed_demo` fills an empty database with the demo tenant "FreightDesk Demo" (Customer Admin
`demo:demo`), one client application, and a few hundred shipments of every mode on real lanes
in North America and Europe, with their histories, positions, exceptions, costs, stop
locations, push configurations and documents. See `seed` for the writing and `portfolio` for
what is generated.
"""

from __future__ import annotations

from freightdesk.server.demo.seed import (
    DEMO_ADMIN,
    DEMO_TENANT_NAME,
    DESKTOP_CLIENT_NAME,
    DemoCredentials,
    seed_demo,
)

__all__ = [
    "DEMO_ADMIN",
    "DEMO_TENANT_NAME",
    "DESKTOP_CLIENT_NAME",
    "DemoCredentials",
    "seed_demo",
]
