"""Exports loaded on first use, for the packages scripts import from (`freightdesk.api`,
`freightdesk.models`): importing one of their modules does not load all the others."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any


def lazy_exports(
    package: str, names: Iterable[str], modules: Sequence[str]
) -> Callable[[str], Any]:
    """A module `__getattr__` finding each of `names` in the first of `modules` that has it."""
    exported = frozenset(names)

    def find(name: str) -> Any:
        if name in exported:
            for module in modules:
                found = importlib.import_module(module)
                if hasattr(found, name):
                    return getattr(found, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return find
