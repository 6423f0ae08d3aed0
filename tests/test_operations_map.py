"""docs/developing.md maps every operation to the pane or dialog that reaches it (issue 15's
"Done when"): each operation of the OpenAPI document the local service serves has its row,
with the same method and path, and a pane or "none yet" said."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from tests.support import LiveService

DEVELOPING = Path(__file__).resolve().parents[1] / "docs" / "developing.md"
SECTION = "## Operations and their panes"
METHODS = {"get", "put", "post", "delete", "patch"}
# | METHOD `path` | `operationId` | client call | pane |
ROW = re.compile(r"^\| (GET|PUT|POST|DELETE|PATCH) `([^`]+)` \| `(\w+)` \| ([^|]+) \| (.+) \|$")


def table_rows(text: str) -> dict[str, tuple[str, str]]:
    """operationId -> (`METHOD path`, pane) of the section's table."""
    section = text[text.index(SECTION) :]
    following = section.find("\n## ", len(SECTION))
    lines = section[: following if following > 0 else None].splitlines()
    table = [line for line in lines if line.startswith("| ") and not line.startswith("| Op")]
    found: dict[str, tuple[str, str]] = {}
    for line in table:
        match = ROW.match(line)
        assert match is not None, f"a row of the table does not read as one: {line!r}"
        method, path, operation_id, _call, pane = match.groups()
        assert operation_id not in found, f"{operation_id} has two rows"
        found[operation_id] = (f"{method} {path}", pane.strip())
    return found


def test_the_table_reads_as_rows() -> None:
    rows = table_rows(DEVELOPING.read_text(encoding="utf-8"))
    assert rows["listYardSites"] == (
        "GET /services/appointments/v1/sites",
        "Yard slots: the sites (an extension)",
    )
    broken = f"{SECTION}\n\n| GET /health | `getHealth` | x | y |\n"
    try:
        table_rows(broken)
    except AssertionError as exc:
        assert "does not read as one" in str(exc)
    else:
        raise AssertionError("a row without its path in backquotes was read")


def test_every_served_operation_has_its_pane(sqlite_service: LiveService) -> None:
    answer = httpx.get(f"{sqlite_service.url}/openapi.json", timeout=120)
    answer.raise_for_status()
    served = {
        operation["operationId"]: f"{method.upper()} {path}"
        for path, item in answer.json()["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    }
    rows = table_rows(DEVELOPING.read_text(encoding="utf-8"))
    missing = sorted(f"{served[o]} ({o})" for o in served.keys() - rows.keys())
    assert missing == [], f"operations without a row in docs/developing.md: {missing}"
    gone = sorted(rows.keys() - served.keys())
    assert gone == [], f"rows of operations the service no longer serves: {gone}"
    wrong = {o: (rows[o][0], served[o]) for o in served if rows[o][0] != served[o]}
    assert wrong == {}, f"rows naming another method or path: {wrong}"
    unsaid = [o for o, (_op, pane) in rows.items() if not pane]
    assert unsaid == []
