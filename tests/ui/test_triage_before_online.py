"""A start with no service yet (the local one still starting, or the team server away)
triages the cached list with the facts kept at the last run: a shipment that was late is
counted late at once, not first "Late (0)" and a wrong "No signal" until the service answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from freightdesk.service.session import AppSession
from freightdesk.service.summary_rows import SUMMARIES, row_json
from freightdesk.service.triage import FACTS, Attention, Facts, facts_json
from freightdesk.ui.panes.shipments.pane import ShipmentsPane
from tests.support import wait_until
from tests.ui.test_shipment_model import row


async def test_the_cached_list_is_triaged_with_the_kept_facts_before_the_service_answers(
    qtbot: QtBot, session: AppSession, settings: QSettings
) -> None:
    now = datetime.now(UTC)
    heard = now - timedelta(days=3)  # the last event: silent for days without the facts
    rows = [
        row(n)._replace(next_eta=now + timedelta(hours=5 + n), latest_event_time=heard)
        for n in range(6)
    ]
    # The first is due 3 h after its appointment window; every one sent a position 10 min ago.
    kept = {
        r.id: Facts(
            etas=((r.next_eta, r.next_eta - timedelta(hours=3 if n == 0 else -24)),),
            last_position=now - timedelta(minutes=10),
            read_at=r.last_modified,
        )
        for n, r in enumerate(rows)
        if r.next_eta is not None
    }
    cache = session.open_cache(session.profiles.active)
    cache.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in rows])
    cache.put_many(FACTS, [(key, facts_json(key, facts)) for key, facts in kept.items()])

    pane = ShipmentsPane(None, settings)
    qtbot.addWidget(pane)
    pane.show()
    pane.show_cached(rows)  # the app's first paint read the whole (short) list
    pane.attach(session)  # no service: the session never connects in this test
    await pane.cached_list_shown()
    buttons = pane.attention.buttons

    def counts() -> tuple[str, str]:
        return buttons[Attention.LATE].text(), buttons[Attention.NO_SIGNAL].text()

    await wait_until(lambda: counts()[0].endswith("Late (1)"), seconds=20)
    assert counts()[1].endswith("No signal (0)"), counts()
    pane.shutdown()


async def test_a_first_screen_shows_no_counts_until_the_whole_list_is_in(
    qtbot: QtBot, session: AppSession, settings: QSettings
) -> None:
    """The top of a kept list, painted before the cache is read whole, is not the list: its
    kinds are not counted (a count of its top, triaged without facts, said "Late (0)" and a
    wrong "No signal (26)" of 307 until the list was whole)."""
    rows = [row(n) for n in range(30)]
    newest_first = sorted(rows, key=lambda r: r.last_modified, reverse=True)
    pane = ShipmentsPane(None, settings)
    qtbot.addWidget(pane)
    pane.show()
    pane.show_cached(newest_first[:12], total=30)
    buttons = pane.attention.buttons
    assert pane.count_label.text() == "30 shipments"
    assert not any("(" in button.text() for button in buttons.values()), [
        b.text() for b in buttons.values()
    ]
    assert pane.mode.itemText(pane.mode.findData("LTL")) == "LTL"  # no count

    cache = session.open_cache(session.profiles.active)
    cache.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in rows])
    pane.attach(session)
    await pane.cached_list_shown()
    await wait_until(lambda: buttons[Attention.NO_SIGNAL].text().endswith("No signal (30)"))
    assert pane.mode.itemText(pane.mode.findData("LTL")).endswith("(30)")
    pane.shutdown()
