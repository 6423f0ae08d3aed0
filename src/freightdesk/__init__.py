"""FreightDesk: the desktop tool for freight visibility data, and a faithful local service.

Scripts import the client from `freightdesk.api` and the shapes from `freightdesk.models`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    # On first use: the app's first paint imports this package and does not pay for it.
    # The version has one source, the package's metadata (pyproject.toml's [project] version).
    if name == "__version__":
        from importlib.metadata import version

        return version("freightdesk")
    raise AttributeError(f"module 'freightdesk' has no attribute {name!r}")
