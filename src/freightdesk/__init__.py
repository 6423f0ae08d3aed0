"""FreightDesk: the desktop tool for freight visibility data, and a faithful local service."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ApiClient", "__version__"]


def __getattr__(name: str) -> Any:
    # Both on first use: the app's first paint imports this package and pays for neither.
    # The version has one source, the package's metadata (pyproject.toml's [project] version).
    if name == "__version__":
        from importlib.metadata import version

        return version("freightdesk")
    if name == "ApiClient":  # for scripts (typed: `from freightdesk.api import ApiClient`)
        # Looked up by name: the local service imports this package and must not be seen to
        # import the client (an import-linter contract).
        return importlib.import_module("freightdesk.api.client").ApiClient
    raise AttributeError(f"module 'freightdesk' has no attribute {name!r}")
