"""The package workflow and the rules of a package's write, beyond its model's shapes.

    UNASSIGNED -> ASSIGNED -> CONFIRMED,  ASSIGNED -> UNASSIGNED,  CONFIRMED -> UNASSIGNED

A CONFIRMED package's contents are fixed until it is released. The local service refuses a
write that breaks these rules; the app runs the same functions to offer only the moves the
service takes and to show each problem beside its field before sending. Searches compare
text and postal codes by the same keys on both sides.
"""

from __future__ import annotations

from freightdesk.models.packaging import PackageStatus

Problems = list[tuple[str, str]]

SKU = "SKU"
# The next statuses of each, in the order a form offers them.
NEXT_STATUSES: dict[PackageStatus, tuple[PackageStatus, ...]] = {
    PackageStatus.UNASSIGNED: (PackageStatus.ASSIGNED,),
    PackageStatus.ASSIGNED: (PackageStatus.UNASSIGNED, PackageStatus.CONFIRMED),
    PackageStatus.CONFIRMED: (PackageStatus.UNASSIGNED,),
}
# The body fields a PUT replaces; status and timestamps are the service's.
CONTENT_FIELDS = (
    "items",
    "identifiers",
    "isStackable",
    "package",
    "accessorials",
    "originLocation",
    "destinationLocation",
)


def new_status_problem(status: PackageStatus | None) -> str | None:
    if status in (None, PackageStatus.UNASSIGNED):
        return None
    return "a new package starts UNASSIGNED; change its status afterwards with PUT"


def transition_problem(current: PackageStatus, requested: PackageStatus) -> str | None:
    if requested == current or requested in NEXT_STATUSES[current]:
        return None
    allowed = ", ".join(sorted(NEXT_STATUSES[current]))
    return f"A {current} package cannot become {requested}; from {current} it can become {allowed}"


def confirmed_change_problem(
    current: PackageStatus, requested: PackageStatus, *, content_changed: bool
) -> str | None:
    """A CONFIRMED package that stays CONFIRMED keeps its contents."""
    if current is PackageStatus.CONFIRMED and requested is current and content_changed:
        return "A CONFIRMED package cannot be changed; release it (status UNASSIGNED) first"
    return None


def identifier_problems(type_: str | None, value: str | None) -> Problems:
    """identifier.type and identifier.value come together (a search, a delete by identifier)."""
    problems: Problems = []
    if not (type_ or "").strip():
        problems.append(("identifier.type", "is required together with identifier.value"))
    if not (value or "").strip():
        problems.append(("identifier.value", "is required together with identifier.type"))
    return problems


def text_key(value: str | None) -> str | None:
    """Search comparisons ignore case and surrounding blanks."""
    if value is None:
        return None
    cleaned = " ".join(value.split()).casefold()
    return cleaned or None


def postal_code_key(value: str | None) -> str | None:
    """`M5V 3L9` and `m5v3l9` are the same postal code."""
    if value is None:
        return None
    cleaned = "".join(value.split()).upper()
    return cleaned or None
