"""A start after a kill paints the kept top without waiting on the cache: it only reads it
(`Cache.to_read`), so neither the write-ahead log a killed app left unmerged nor another
connection in the middle of a write (the next session's sync, another instance) holds the
first paint. A start that opened the cache to write would wait for that writer's lock
(sqlite3's 5 s busy timeout) and then paint nothing."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtWidgets import QApplication

import freightdesk
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import Profile, ProfileKind
from freightdesk.ui.first_paint import KEPT_ROWS, read_cached_list
from freightdesk.ui.panes.shipments.model import ShipmentTableModel

# The running app's side: the list cached, its top kept as `FirstScreenKeeper` keeps it
# (the top in the default sort, the time the table held every change), then a kill: the
# process ends without closing the cache, so its last writes stay in the write-ahead log.
KILLED = textwrap.dedent(
    """
    import os, sys
    from datetime import UTC, datetime, timedelta
    from pathlib import Path
    from freightdesk.service.cache import Cache
    from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, row_json
    from freightdesk.service.first_screen import KEPT_SINCE_KEY, remember_first_screen
    from freightdesk.ui.first_paint import KEPT_ROWS

    base = datetime(2026, 11, 1, tzinfo=UTC)
    rows = [
        SummaryRow(
            f"id-{n:05d}", (("PRO", f"PRO{n:05d}"),), f"PRO{n:05d}", "LTL", "IN_TRANSIT",
            "Chicago, IL", "Dallas, TX", None, None, None, None, 0, "ODFL", base,
            base + timedelta(minutes=n),
        )
        for n in range(int(sys.argv[3]))
    ]
    cache = Cache(Path(sys.argv[1]))
    cache.put_many(SUMMARIES, ((r.id, row_json(r)) for r in rows))
    newest = [r.id for r in reversed(rows)][:KEPT_ROWS]
    remember_first_screen(cache, sys.argv[2], len(rows), newest)
    cache.set_meta(KEPT_SINCE_KEY, repr(cache.saved_at(SUMMARIES)))
    os._exit(0)
    """
)


def test_a_start_after_a_kill_paints_the_kept_top_while_another_connection_writes(
    qapp: QApplication, tmp_path: Path
) -> None:
    paths = AppPaths.under(tmp_path)
    profile = Profile(id="team", name="Team", kind=ProfileKind.REMOTE)
    path = paths.cache_file(profile.id)
    model = ShipmentTableModel()  # the default sort: Attention, the newest change first
    count = 1000
    src = str(Path(freightdesk.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    subprocess.run(
        [sys.executable, "-c", KILLED, str(path), model.sort_name(), str(count)],
        check=True,
        timeout=120,
        env=env,
    )
    wal = path.with_name(path.name + "-wal")
    assert wal.exists() and wal.stat().st_size > 0  # left unmerged, as a kill leaves it

    writer = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('busy', 'yes')")

        rows, total, since, _facts = read_cached_list(paths, profile, model)

        assert total == count
        assert since is not None
        expected = [f"id-{n:05d}" for n in reversed(range(count))][:KEPT_ROWS]
        assert [r.id for r in rows] == expected
    finally:
        writer.execute("ROLLBACK")
        writer.close()
