"""Demo data for a fresh local service (`freightdesk serve --demo`).

`seed_demo` fills an empty database with the demo tenant "FreightDesk Demo" (Customer Admin
`demo:demo`), one client application, and a few hundred shipments of every mode on real lanes
in North America and Europe, with their histories, positions, exceptions, costs, stop
locations, push configurations and documents. See `progress` for how `serve --demo` prepares
it while answering, `seed` for the writing and `portfolio` for what is generated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from freightdesk.server.demo.progress import (
        DEMO_ADMIN,
        DEMO_TENANT_NAME,
        DESKTOP_CLIENT_NAME,
        DemoCredentials,
    )
    from freightdesk.server.demo.seed import seed_demo

__all__ = [
    "DEMO_ADMIN",
    "DEMO_TENANT_NAME",
    "DESKTOP_CLIENT_NAME",
    "DemoCredentials",
    "seed_demo",
]


def __getattr__(name: str) -> Any:
    # `seed` imports most of the service and plans the demo's world: only when asked for, so
    # that the service's start does not pay for it when a module only needs `demo.carriers`
    # or the demo's names.
    if name == "seed_demo":
        from freightdesk.server.demo import seed

        return seed.seed_demo
    if name in __all__:
        from freightdesk.server.demo import progress

        return getattr(progress, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
