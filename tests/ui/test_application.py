"""The app's start, run as `freightdesk` runs it (`launch.run`) in a process of its own: the
cached list is painted before the rest of the app is loaded, and the first screen kept at
the last close is exactly the top of the list the app then reads whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from freightdesk.service.cache import Cache
from freightdesk.service.paths import AppPaths
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, row_json
from tests.ui.offline_home import offline_team_home, team_profile

BASE = datetime(2026, 11, 1, tzinfo=UTC)
COUNT = 3000

# Starts the app; at its first paint, reports what is loaded and shown, then lets it run
# on (connecting to an unreachable team server) and, once that has settled, reports the list
# again and quits as a user would (File > Quit).
START = textwrap.dedent(
    """
    import json, os, sys
    from datetime import datetime, UTC
    BASE = datetime(2026, 11, 1, tzinfo=UTC)
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["FREIGHTDESK_HOME"] = sys.argv[1]
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from freightdesk.ui import launch
    from freightdesk.ui.main_window import MainWindow

    # Also the form dialogs' and time fields' modules, imported when first needed.
    HEAVY = ["pydantic", "pydantic_core", "asyncio", "qasync", "httpx", "keyring", "folium",
             "PySide6.QtWebEngineCore", "freightdesk.api.client", "freightdesk.ui.maps.page",
             "freightdesk.ui.widgets.form_dialog", "freightdesk.ui.dialogs.name_dialog",
             "freightdesk.ui.widgets.time_edit"]

    def window():
        return next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))

    def report(when):
        main = window()
        pane = main.pane("shipments")
        model = pane.model
        first = [model.index(0, c).data() for c in range(3)]
        print(json.dumps({
            "when": when,
            "loaded": [m for m in HEAVY if m in sys.modules],
            "made": [k for k in ("map", "documents", "webhooks", "bookings") if main.is_made(k)],
            "rows": model.rowCount(),
            "complete": model.complete,
            "first": first,
            "first_id": model.summary_at(0).id,
            "beyond_first_screen": model.index(500, 0).data(),
            "count": pane.count_label.text(),
            "status": main.indicator.state_label.text(),
            "detail": main.pane("shipments").is_attached(),
        }), flush=True)

    def painted():
        report("painted")
        if sys.argv[2:] == ["quit-at-once"]:
            window().close()  # as the window manager's close button would, while starting
            return
        def later():
            report("later")
            if sys.argv[2:] == ["sort-by-origin-then-quit"]:  # the dispatcher sorts, then quits
                from PySide6.QtCore import Qt
                from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX
                table = window().pane("shipments").table
                table.sortByColumn(COLUMN_INDEX["origin"], Qt.SortOrder.AscendingOrder)
                report("sorted")
            if sys.argv[2:] == ["kill-once-kept"]:  # ends as a crash does: no close
                kill_once_kept()
                return
            if sys.argv[2:] == ["edit-then-kill"]:
                edit_then_kill()
                return
            window().close()
        def edit_then_kill():
            # An edit saved to the cache (as the session saves one, before the list shows
            # it); the top is kept at that moment, and the app is killed before the list
            # updates.
            import signal
            from datetime import timedelta
            from freightdesk.service.summary_rows import SUMMARIES, row_json
            pane = window().pane("shipments")
            edited = pane.model.summary_at(2000)._replace(
                primary_identifier="EDITED", last_modified=BASE + timedelta(days=60))
            pane.session.cache.put_many(SUMMARIES, [(edited.id, row_json(edited))])
            pane.keep_first_screen()
            print(json.dumps({"edited": edited.id}), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        def kill_once_kept():
            # Once the running app has kept its first screen, as a crash would end it.
            import signal, time
            from freightdesk.service.cache import Cache
            from freightdesk.service.first_screen import first_screen
            pane = window().pane("shipments")
            path = pane.session.cache.path
            give_up = time.monotonic() + 30
            def check():
                cache = Cache(path)
                try:
                    kept = first_screen(cache, pane.model.sort_name())
                finally:
                    cache.close()
                if kept is not None and kept[0][0].id == pane.model.summary_at(0).id:
                    os.kill(os.getpid(), signal.SIGKILL)
                elif time.monotonic() > give_up:
                    print("the first screen was never kept", flush=True)
                    os._exit(3)
                QTimer.singleShot(200, check)
            QTimer.singleShot(200, check)
        # Later: once the session has tried the server, the list is indexed and the idle
        # moments have made the capacity panes (or after 60 s, and the test says what is not).
        import time
        deadline = time.monotonic() + 60
        def settled():
            main = window()
            done = (
                not main.indicator.state_label.text().startswith("Connecting")
                and main.pane("shipments").model.complete
                and main.is_made("bookings")
            )
            if done or time.monotonic() > deadline:
                later()
            else:
                QTimer.singleShot(100, settled)
        QTimer.singleShot(100, settled)

    sys.exit(launch.run([], on_first_paint=painted))
    """
)


def _row(n: int) -> SummaryRow:
    return SummaryRow(
        id=f"id-{n:05d}",
        identifiers=(("PRO", f"PRO{n:05d}"),),
        primary_identifier=f"PRO{n:05d}",
        mode="LTL",
        current_state="IN_TRANSIT",
        origin_name="Chicago, IL",
        destination_name="Dallas, TX",
        next_eta=None,
        latest_event_type="DEPARTED",
        latest_event_time=BASE,
        latest_event_description=None,
        open_exception_count=0,
        carrier="ODFL",
        created=BASE,
        # Not in the order of the ids: the list is sorted, newest first.
        last_modified=BASE + timedelta(minutes=(n * 7919) % COUNT),
    )


def _home(root: Path) -> Path:
    """A dispatcher of a team server (unreachable now) with 3,000 cached shipments."""
    paths = offline_team_home(root)
    cache = Cache(paths.cache_file("team"))
    cache.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in map(_row, range(COUNT))])
    cache.close()
    return root


def _start(home: Path, *how: str) -> list[dict[str, Any]]:
    result = subprocess.run(
        [sys.executable, "-c", START, str(home), *how],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    killed = how in (("kill-once-kept",), ("edit-then-kill",))
    expected = -signal.SIGKILL if killed else 0
    assert result.returncode == expected, result.stdout[-500:] + result.stderr[-3000:]
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_the_cached_list_is_painted_before_the_rest_of_the_app_loads(tmp_path: Path) -> None:
    painted, later = _start(_home(tmp_path / "home"))
    newest = max(map(_row, range(COUNT)), key=lambda r: r.last_modified)

    assert painted["when"] == "painted"
    # Nothing kept yet: the list's top is found from the keys the cache keeps per row and
    # only its rows are read (not even the JSON parser of the whole list is loaded); the
    # whole list follows once the session has read it.
    assert painted["loaded"] == []
    assert painted["made"] == []
    assert painted["rows"] == COUNT and not painted["complete"]
    assert painted["first_id"] == newest.id
    assert painted["first"][0] == newest.primary_identifier
    assert painted["count"] == "3,000 shipments"
    assert painted["status"] == "Connecting · Team server"
    assert not painted["detail"]

    # Then the rest: the session attached (offline: the server cannot be reached), the
    # same list, the capacity panes made in idle moments (the maps are warmed up after them).
    assert later["detail"]
    assert later["status"] == "Offline · Team server"
    assert later["rows"] == COUNT and later["first_id"] == newest.id and later["complete"]
    assert "qasync" in later["loaded"] and "freightdesk.api.client" in later["loaded"]
    assert later["made"] == ["bookings"]


def test_the_next_start_paints_the_first_screen_kept_at_close_then_the_whole_list(
    tmp_path: Path,
) -> None:
    home = _home(tmp_path / "home")
    first_run = _start(home)[0]
    painted, later = _start(home)

    # The top of the list, as the last run showed it, without reading the whole list: not
    # even a JSON parser beyond the standard library's is loaded.
    assert painted["loaded"] == []
    assert not painted["complete"]
    assert painted["rows"] == COUNT
    assert painted["first_id"] == first_run["first_id"]
    assert painted["first"] == first_run["first"]
    assert painted["count"] == "3,000 shipments"
    assert painted["beyond_first_screen"] is None  # not read yet: blank
    # The whole list replaced it once the session read it, with the same rows on top.
    assert later["complete"] and later["rows"] == COUNT
    assert later["first_id"] == first_run["first_id"]
    assert later["beyond_first_screen"]

    # Sorted otherwise before the close: the next start shows the top of that sort.
    sorted_by_origin = _start(home, "sort-by-origin-then-quit")[2]
    assert sorted_by_origin["first_id"] != first_run["first_id"]  # (ties: in list order)
    painted, later = _start(home)
    assert painted["loaded"] == [] and not painted["complete"]
    assert painted["first_id"] == sorted_by_origin["first_id"] == later["first_id"]

    # A list changed since (another app on the same cache, a crash before the close):
    # the kept screen is not used.
    paths = AppPaths.under(home)
    cache = Cache(paths.cache_file("team"))
    # (The list is sorted by origin now: this one comes first.)
    newer = _row(COUNT)._replace(origin_name="Aachen", last_modified=BASE + timedelta(days=30))
    cache.put_many(SUMMARIES, [(newer.id, row_json(newer))])
    cache.close()
    painted, later = _start(home)
    assert painted["loaded"] == []  # its top found without reading the list
    assert painted["rows"] == COUNT + 1 and later["complete"]
    assert painted["first_id"] == later["first_id"] == newer.id


def test_a_window_closed_while_it_starts_ends_the_app(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    (painted,) = _start(home, "quit-at-once")  # returns: the app did not go on without it
    assert painted["rows"] == COUNT
    log = (AppPaths.under(home).log_file).read_text()
    assert "FreightDesk closed while starting" in log


def test_after_a_crash_the_next_start_paints_the_first_screen_the_running_app_kept(
    tmp_path: Path,
) -> None:
    home = _home(tmp_path / "home")
    paths = AppPaths.under(home)
    newest = max(map(_row, range(COUNT)), key=lambda r: r.last_modified)

    # The app runs with the list, and is killed: no close, nothing kept at a close.
    painted, _later = _start(home, "kill-once-kept")
    # Nothing kept yet: the top found from the cache's keys, the list read after.
    assert "pydantic_core" not in painted["loaded"] and painted["first_id"] == newest.id
    painted, later = _start(home, "kill-once-kept")
    # Painted from the screen kept while it ran: the right top, before the list is read.
    assert "pydantic_core" not in painted["loaded"] and not painted["complete"]
    assert painted["rows"] == COUNT and painted["count"] == "3,000 shipments"
    assert painted["first_id"] == newest.id == later["first_id"]
    assert painted["beyond_first_screen"] is None and later["complete"]

    # The list changes (as a sync saves it); the running app keeps its new top, and is killed.
    cache = Cache(paths.cache_file("team"))
    newer = _row(COUNT)._replace(last_modified=BASE + timedelta(days=30))
    cache.put_many(SUMMARIES, [(newer.id, row_json(newer))])
    cache.close()
    painted, later = _start(home, "kill-once-kept")
    # The kept screen is of the old list: the change is merged into it, not the list read.
    assert "pydantic_core" not in painted["loaded"] and not painted["complete"]
    assert painted["rows"] == COUNT + 1 and painted["count"] == "3,001 shipments"
    assert painted["first_id"] == later["first_id"] == newer.id
    painted, later = _start(home)
    assert "pydantic_core" not in painted["loaded"] and painted["rows"] == COUNT + 1
    assert painted["first_id"] == newer.id == later["first_id"]

    # Another profile, active now, with a list of its own: never the team's rows.
    other = Cache(paths.cache_file("depot"))
    theirs = [_row(n)._replace(id=f"depot-{n}", primary_identifier=f"DEP{n}") for n in range(50)]
    other.replace_kind(SUMMARIES, [(r.id, row_json(r)) for r in theirs])
    other.close()
    profiles = [team_profile("team", "Team server"), team_profile("depot", "Depot")]
    paths.profiles_file.write_text(json.dumps({"active": "depot", "profiles": profiles}))
    painted, later = _start(home, "kill-once-kept")
    assert painted["first_id"].startswith("depot-") and painted["rows"] == 50
    assert later["first_id"].startswith("depot-") and later["rows"] == 50


def test_an_edit_saved_just_before_a_kill_is_on_top_at_the_next_start(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    newest = max(map(_row, range(COUNT)), key=lambda r: r.last_modified)
    _start(home)  # closed: its top kept

    # The edit is in the cache, not yet in the list, when the top is kept; then a kill.
    *_shown, edited = _start(home, "edit-then-kill")
    painted, later = _start(home)

    # At once the edited shipment on top, as the cache has it, before the list is read.
    assert "pydantic_core" not in painted["loaded"] and not painted["complete"]
    assert painted["first_id"] == edited["edited"] == later["first_id"]
    assert painted["first"][0] == "EDITED"
    assert painted["rows"] == COUNT
    # The rest of the top as before, below it.
    assert later["complete"] and later["rows"] == COUNT and newest.id != edited["edited"]
