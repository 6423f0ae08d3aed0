"""A later start paints the kept top of the Attention sort in its final order: the triage
facts the cache keeps of its rows (an ETA after its appointment window: late) are read with
them, so the rows do not jump under the pointer when the session reads the kept facts a
moment after the first paint."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from freightdesk.service.cache import Cache
from freightdesk.service.first_screen import KEPT_SINCE_KEY, remember_first_screen
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow
from freightdesk.service.triage import (
    FACTS,
    Facts,
    TriageSettings,
    facts_json,
    flags_of,
    late_seconds,
)
from freightdesk.ui.first_paint import KEPT_ROWS, app_settings, open_window
from freightdesk.ui.panes.shipments.model import ShipmentTableModel
from freightdesk.ui.panes.shipments.pane import FIRST_SCREEN_ROWS
from tests.support import wait_until
from tests.ui.conftest import close_session
from tests.ui.offline_home import offline_team_home

NOW = datetime.now(UTC)
COUNT = 600


def _row(n: int) -> SummaryRow:
    """In transit, heard from an hour ago (not silent), due in the next hours; the newest
    changed first."""
    eta = NOW + timedelta(minutes=30 + n)
    return SummaryRow(
        id=f"id-{n:05d}",
        identifiers=(("PRO", f"PRO{n:05d}"),),
        primary_identifier=f"PRO{n:05d}",
        mode="TL",
        current_state="IN_TRANSIT",
        origin_name="Chicago, IL",
        destination_name="Dallas, TX",
        next_eta=eta,
        latest_event_type="DEPARTED",
        latest_event_time=NOW - timedelta(hours=1),
        latest_event_description=None,
        open_exception_count=0,
        carrier="ODFL",
        created=NOW - timedelta(days=2),
        last_modified=NOW - timedelta(minutes=n),
    )


def _facts(row: SummaryRow, n: int) -> Facts | None:
    """Every seventh late by its appointment window (the later the row, the later it is):
    the facts move rows from all over the list to its top; every fifth on time; none for
    the others (their histories never read: the cache's keys tell where they sort)."""
    eta = row.next_eta
    assert eta is not None
    if n % 7 == 3:
        end = eta - timedelta(minutes=n)
    elif n % 5 == 0:
        end = eta + timedelta(hours=3)
    else:
        return None
    return Facts(((eta, end),), NOW - timedelta(minutes=30), row.last_modified)


def _home(tmp_path: Path, changed: bool) -> tuple[AppPaths, list[str], int]:
    """A team server's dispatcher (unreachable now) whose last run kept the top of the list
    as it showed it, triaged with the facts it had read; `changed`: then a sync saved a few
    rows before the app ended (the start merges them into the kept top). Returns the home
    and the ids the list shows first once everything cached is read, and the facts kept."""
    paths = offline_team_home(tmp_path / "home")
    rows = [_row(n) for n in range(COUNT)]
    found = {r.id: _facts(r, n) for n, r in enumerate(rows)}
    facts = {key: f for key, f in found.items() if f is not None}
    cache = Cache(paths.cache_file("team"))
    cache.replace_summaries(rows)
    cache.put_many(FACTS, [(key, facts_json(key, f)) for key, f in facts.items()])
    # The last run's table, as the kept facts triaged it (the Attention sort, the default).
    settings = TriageSettings()
    model = ShipmentTableModel()
    model.triage = lambda row: flags_of(row, facts.get(row.id), NOW, settings)
    model.late = lambda row: late_seconds(row, facts.get(row.id))
    model.set_summaries(rows)
    kept = [r.id for r in model.visible_summaries()[:KEPT_ROWS]]
    remember_first_screen(cache, model.sort_name(), COUNT, kept)
    cache.set_meta(KEPT_SINCE_KEY, repr(cache.saved_at(SUMMARIES)))
    if changed:
        # One changed last: on top of those not late (the cache's keys tell it reaches
        # the top); one on time with a new ETA, 2 h after its window's end: late by its
        # facts, though its keys sort it far below the kept top.
        newest = rows[502]._replace(last_modified=NOW + timedelta(seconds=1))
        eta = rows[400].next_eta
        assert eta is not None and 400 % 5 == 0 and 400 % 7 != 3 and 502 % 5 and 502 % 7 != 3
        later = rows[400]._replace(
            next_eta=eta + timedelta(hours=5), last_modified=NOW - timedelta(minutes=399)
        )
        moved = [newest, later]
        cache.put_summaries(moved)
        rows = [r for r in rows if r.id not in {m.id for m in moved}] + moved
    model.set_summaries(rows)
    cache.close()
    shown = [r.id for r in model.visible_summaries()[:FIRST_SCREEN_ROWS]]
    assert not changed or {newest.id, later.id} <= set(shown)
    return paths, shown, len(facts)


@pytest.mark.parametrize("changed", [False, True], ids=["as kept", "changed since"])
async def test_the_first_paint_shows_the_kept_top_in_the_order_the_kept_facts_give(
    qtbot: QtBot, tmp_path: Path, changed: bool
) -> None:
    paths, expected, kept_facts = _home(tmp_path, changed)
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    window, pane = open_window(paths, app_settings(paths), profiles)
    qtbot.addWidget(window)
    model = pane.model
    assert not model.complete  # the kept top only: the whole list is read by the session

    def top() -> list[str]:
        return [model.summary_at(r).id for r in range(FIRST_SCREEN_ROWS)]  # type: ignore[union-attr]

    painted = top()
    # Then the session: the whole list from the cache, every kept fact read (the server is
    # not reachable: none read anew), the list triaged again with them.
    session = AppSession(paths, profiles, simulate=False)
    try:
        window.attach(session)
        pane.attach(session)
        await pane.cached_list_shown()
        triage = pane.triage

        def settled() -> bool:
            facts = triage.facts
            read = facts is not None and len(facts.facts) == kept_facts
            return read and model.complete and not model.retriaging

        await wait_until(settled, 30)
        after = top()
        assert after == expected
        assert painted == after
    finally:
        window.close()
        await close_session(session)
