"""Plain rules of the saved views' names and order, apart from Qt so they are testable alone."""

from __future__ import annotations


def ordered(names: list[str], order: list[str]) -> list[str]:
    """The views in the user's order; views saved before any order existed (or since) follow,
    sorted, so old settings keep loading."""
    known = [name for name in order if name in names]
    return known + sorted(name for name in names if name not in known)


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a view, or None when it can (one already there is asked about)."""
    return None if name.strip() else "A view needs a name."


def offered_name(parts: list[str], names: list[str]) -> str:
    """The name offered for a new view: what its filters narrow to ("In transit · CHI"), or
    "My view", made unique with a number so Return alone never replaces another view."""
    base = " · ".join(p.strip() for p in parts if p.strip())[:60] or "My view"
    name, number = base, 2
    while name in names:
        name, number = f"{base} {number}", number + 1
    return name


def rename_problem(new: str, old: str, names: list[str]) -> str | None:
    """Why `old` cannot be renamed to `new`, or None when it can."""
    name = new.strip()
    if not name:
        return name_problem(name)
    if name != old and name in names:
        return f"There is already a view named “{name}”."
    return None


def moved(names: list[str], index: int, step: int) -> list[str]:
    """The order with the view at `index` moved by `step` places (clamped to the list)."""
    target = min(max(index + step, 0), len(names) - 1)
    result = list(names)
    result.insert(target, result.pop(index))
    return result
