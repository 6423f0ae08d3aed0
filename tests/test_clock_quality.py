"""One clock (issue 14.4): no module of the app but `service/clock.py` writes a time for a
person. A pane that formats a time itself (strftime, isoformat, an f-string `:%H`) fails
here; the few uses left write wire or storage formats, or a calendar day, and say so."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "freightdesk"
# strftime, isoformat, an f-string's `:%H`, Qt's own formats of a time (`toString("HH:mm")`).
FORMATTING = re.compile(
    r"\.strftime\(|\.isoformat\(|\{[^{}]*:%[A-Za-z]|toString\([^)]*(?:HH|hh|ISODate|RFC2822)"
)

# path (under src/freightdesk) -> (how many uses, why they are not a time shown to a person)
ALLOWED: dict[str, tuple[int, str]] = {
    "service/clock.py": (1, "the one clock itself (ISO 8601 for exports)"),
    "service/export.py": (1, "a calendar day in an export, ISO 8601"),
    "service/rating.py": (1, "wire: a quote's expiry sent to the API"),
    "service/shipments.py": (1, "storage: the sync cursor in the cache"),
    "service/triage.py": (1, "storage: a time in the cache"),
    "service/alerts.py": (4, "storage: alert times and baselines in the cache"),
    "service/yard.py": (2, "wire: a slot search's window sent to the API"),
    "ui/panes/rates/form.py": (1, "wire: the expiry sent to the API"),
    "ui/dialogs/booking_form.py": (1, "wire: the expiry sent to the API"),
    "ui/panes/vehicles/form.py": (2, "wire: an availability window sent to the API"),
    "ui/panes/push/forms.py": (2, "wire: the timestamp a carrier push sends"),
    "ui/panes/vltl/fields.py": (1, "wire: a pickup window's time of day"),
    "ui/panes/vltl/pane.py": (1, "times of day at the pickup (no day, no zone), 24-hour HH:MM"),
}


def _uses() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for layer in ("ui", "service"):
        for path in sorted((SRC / layer).rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if FORMATTING.search(line.split("#", 1)[0]):
                    key = path.relative_to(SRC).as_posix()
                    found.setdefault(key, []).append(f"{key}:{number}: {line.strip()}")
    return found


def test_only_the_clock_formats_times_for_people() -> None:
    found = _uses()
    unexpected = [
        line
        for key, lines in found.items()
        if key not in ALLOWED or len(lines) > ALLOWED[key][0]
        for line in lines
    ]
    assert not unexpected, (
        "Times are shown through freightdesk.service.clock (user_time, place_time, "
        "offset_time, iso_time); a wire or storage format goes in ALLOWED with its reason:\n"
        + "\n".join(unexpected)
    )


def test_the_allow_list_holds_no_stale_entries() -> None:
    found = _uses()
    stale = {key: count for key, (count, _) in ALLOWED.items() if len(found.get(key, [])) < count}
    assert not stale, f"fewer uses than allowed now, lower the counts: {stale}"


def test_the_check_catches_a_pane_formatting_on_its_own() -> None:
    assert FORMATTING.search('text = when.astimezone().strftime("%Y-%m-%d %H:%M")')
    assert FORMATTING.search('label = f"{when:%H:%M} CST"')
    assert FORMATTING.search("cell = when.isoformat()")
    assert FORMATTING.search('text = edit.dateTime().toString("yyyy-MM-dd HH:mm")')
    assert not FORMATTING.search("cell = user_time(when)")


def test_date_editors_write_days_as_the_clock_does() -> None:
    """A date editor's format is set in one place, ui/widgets/time_edit (`day_edit`,
    `clock_days`, `UserTimeEdit`): `Dec 3 2026`, not a pane's own `yyyy-MM-dd`."""
    own = [
        f"{path.relative_to(SRC).as_posix()}:{number}: {line.strip()}"
        for path in sorted((SRC / "ui").rglob("*.py"))
        if path != SRC / "ui" / "widgets" / "time_edit.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if "setDisplayFormat(" in line
    ]
    assert not own, "Use time_edit.day_edit or clock_days:\n" + "\n".join(own)
