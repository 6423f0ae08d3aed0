"""The shipment list's first screen at a start, read from the profile's cache before the
session exists, and its top kept for the next start while the app runs.

Reading 10,000 rows takes as long as Qt takes to show a window, so a start reads only the
top of the list in the table's sort: the top kept for that sort with the changes logged since
merged in (`kept_top`), else the top the cache's keys tell (`indexed_top`), else the whole
list. The table's sort values come with the sort (`ListSort.values`, the table's own
functions): every top read is checked against them, so a rule changed on one side only is
never painted wrong. The triage facts the cache keeps of the rows read (`triage.FACTS`) are
read with them: the Attention sort is theirs from the first paint, as it is once the session
has read every kept fact (the rows would jump under the pointer then).

Like the start itself, this imports nothing heavy (no pydantic, asyncio or API client): a few
rows are read with `json`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple, cast

from freightdesk.service.cache import Cache, Reading
from freightdesk.service.summary_keys import MAPPED, PLAIN, attention_sql, mapped_sql
from freightdesk.service.summary_rows import SUMMARIES, SummaryRow, cached_rows, rows_from_cache
from freightdesk.service.triage import FACTS, Facts, TriageSettings, facts_of

log = logging.getLogger(__name__)

# A sort value of the table's (`ui/panes/shipments/columns.py`): str for text, float for
# times, int for counts; None when the row has none.
SortValue = str | float | int

# Rows kept beyond a screen, so that the changes made since the top was kept can be merged
# in (`kept_top`) and still fill a screen.
KEPT_BEYOND_SCREEN = 80
# What the top of the list showed when it was last kept (`remember_first_screen`).
FIRST_SCREEN_KEY = "shipments:first_screen"
# The cache's time up to which every change of the list was in the table when its top was
# last kept (`keep_top`): a start merges the changes logged after it (`Cache.changed_since`)
# into the kept top, so a kept top older than the cache (a kill just after a change, another
# app changing the cache) is brought up to date, never shown as it was.
KEPT_SINCE_KEY = "shipments:first_screen_since"
# At most this many changes since then are merged at start; more, and the list is read whole.
MERGE_AT_MOST = 2000
# Changes since the last check compared one by one up to this many; more (the first sync of
# a list, say), and the table is compared with the whole cached list.
CHECK_AT_MOST = 5000


def kept_rows(screen: int) -> int:
    """The rows kept for the next start's first paint when a screen shows `screen`."""
    return screen + KEPT_BEYOND_SCREEN


class Triaged(NamedTuple):
    """The moment and settings a list triaged without facts (as the start's is) was triaged
    at: the cache's keys tell its Attention sort (`summary_keys.attention_sql`)."""

    now: datetime
    settings: TriageSettings

    def sql(self) -> tuple[str, list[object], list[tuple[str, list[object]]]]:
        """The Attention sort's value in SQL, and its runs (`summary_keys.attention_sql`)."""
        return attention_sql(self.now, self.settings.silence, self.settings.silence_for(None))


# The triage facts of no row.
NO_FACTS: Mapping[str, Facts] = MappingProxyType({})


class ListSort(NamedTuple):
    """The table's sort, as reading its first screen needs it."""

    name: str  # as `remember_first_screen` names it: "attention desc"
    key: str  # the sorted column's key ("attention", `summary_keys.PLAIN`, `MAPPED`)
    descending: bool
    # The table's sort values of rows, by its own functions (its triage's for Attention,
    # with the triage facts given of those rows).
    values: Callable[[Sequence[SummaryRow], Mapping[str, Facts]], list[SortValue | None]]
    # The triage the Attention sort is of, as the keys hold it: without facts (the rows
    # with kept facts are read and sorted by `values` with them, `kept_top`); None when the
    # triage has facts the cache's keys do not (or there is none): they cannot tell it then.
    triaged: Triaged | None = None


class FirstScreen(NamedTuple):
    rows: list[SummaryRow]  # the whole list, or its top when `total` is more
    total: int
    # A cache time up to which the list the session reads holds every change (None: not
    # known), where the keeper of the top (`keep_top`) starts checking from.
    since: float | None
    # The triage facts the cache keeps of `rows`, read with them: the table is to triage
    # them with these from the first paint (the order `values` sorted `rows` in).
    facts: Mapping[str, Facts] = NO_FACTS


def read_first_screen(path: Path, sort: ListSort, screen: int) -> FirstScreen:
    """The cached shipment list at `path` sorted by `sort` and its length: only its top when
    one was kept (`kept_top`) or the cache's keys tell it (`indexed_top`), else every row.
    Nothing when there is no cache yet or it cannot be read (the session reads it again, and
    says what is wrong). `screen`: the rows a first screen shows."""
    if not path.exists():
        return FirstScreen([], 0, None)
    try:
        cache = Cache.to_read(path)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be opened")
        return FirstScreen([], 0, None)
    try:
        top = kept_top(cache, sort, screen)
        if top is None:
            top = indexed_top(cache, sort, screen)
        if top is not None:
            return top
        since = cache.saved_at(SUMMARIES)  # before the rows: they hold at least this
        rows = cached_rows(cache)
        # A short list's every fact: the table finds its top with them (`show_top_of`). A
        # long one read whole (keys behind it, an older version's cache) is slow already:
        # its facts come with the session (parsing 10,000 took 0.2 s at a load of 10).
        short = len(rows) <= kept_rows(screen)
        facts = facts_of(cache.load(FACTS)) if short else NO_FACTS
        return FirstScreen(rows, len(rows), since, facts)
    except sqlite3.Error:
        log.exception("the cached shipment list could not be read")
        return FirstScreen([], 0, None)
    finally:
        cache.close()


def kept_top(cache: Cache, sort: ListSort, screen: int) -> FirstScreen | None:
    """The top of the cached list in `sort`, read without reading the list, and the list's
    length; None when it cannot be told so (nothing kept for this sort, or too much changed
    since: the list is read whole then).

    The rows are those kept at the top when the list was last kept (`keep_top`, while the
    app ran or at its close) with the changes the cache logged since the time up to which
    that list held every change (`KEPT_SINCE_KEY`): the rows changed or deleted since are
    taken out, their current form put in, and the few rows are sorted as the table sorts.
    A row never read (below the kept ones) ranks at or after the last kept row that did not
    change, so only the rows sorted before that one are surely the top. Of the rows changed,
    only those the cache's keys sort before that row are read (at most a screen and more:
    `_changed_ahead`); every one when the keys cannot tell. All is read as of one moment
    (`Cache.reading`), so the top and its time always belong together, and with them the
    triage facts kept of its rows (`FirstScreen.facts`), which the Attention sort is of.

    The keys hold the Attention sort without facts: a row with facts may sort anywhere,
    whatever its keys say. So in that sort the facts of the kept and the changed rows are
    read first (one query, their bodies not parsed), every changed row with facts is read,
    and the keys tell only which of the others to read, bounded by a last kept row without
    facts (with them, every changed row is read)."""
    limit = kept_rows(screen)
    attention = sort.key == "attention"
    with cache.reading() as read:
        found = _kept_screen(read, sort.name)
        if found is None:
            return None
        ids, since = found
        changed = read.changed_since(SUMMARIES, since, MERGE_AT_MOST)
        if changed is None or not ids:
            return None
        _saved, keys = changed
        gone = set(keys)
        kept = [i for i in ids if i not in gone]
        total = read.count(SUMMARIES)
        known = read.get_many(FACTS, kept + keys) if attention else {}
        ahead = None
        if kept and total > len(kept) + len(keys) and kept[-1] not in known:
            ahead = _changed_ahead(read, sort, since, kept[-1], limit)
        wanted = kept + keys
        if ahead is not None:
            moved = [k for k in keys if k in known and k not in ahead.values]
            wanted = kept + list(ahead.values) + moved
        bodies = read.get_many(SUMMARIES, wanted)
        if not attention:  # for the Attention column's words
            known = read.get_many(FACTS, wanted)
    if any(i not in bodies for i in kept):
        return None  # the log and the list disagree: read the list
    if not keys:
        # Nothing changed: the top as it was kept, in its order (its ties as shown then).
        rows = rows_from_cache((bodies[i] for i in ids), parse=json.loads)
        facts = facts_of(known[i] for i in ids if i in known)
        return FirstScreen(rows, total, since, facts) if len(rows) == len(ids) else None
    present = sorted(i for i in set(wanted) if i in bodies)
    rows = rows_from_cache((bodies[i] for i in present), parse=json.loads)
    if len(rows) != len(present):
        return None
    facts = facts_of(known[i] for i in present if i in known)
    # Sorted as the table sorts the whole list: by value, ties in the cache's order (keys).
    values = sort.values(rows, facts)
    judged: Iterable[str] = facts if attention else ()
    if ahead is not None and not ahead.agrees(present, values, kept[-1], judged):
        log.warning("the cached keys sort %s otherwise than the list: read whole", sort.key)
        return None
    order = sorted_positions(values, sort.descending)
    if len(rows) < total:
        # Only the rows before the last unchanged kept row (ties with it excluded: a row
        # never read may share its value and come first).
        last = present.index(kept[-1]) if kept else None
        if last is None:
            return None
        bound = _rank(values[last])
        order = [p for p in order if _before(_rank(values[p]), bound, sort.descending)]
        if len(order) < min(screen, total):
            return None
    top = [rows[p] for p in order[:limit]]
    return FirstScreen(top, total, since, {r.id: facts[r.id] for r in top if r.id in facts})


def sorted_positions(values: Sequence[SortValue | None], descending: bool) -> list[int]:
    """The positions of `values` in the table's order: rows without a value last ascending,
    first descending; ties in their order in `values` (the sort is stable either way)."""
    return sorted(range(len(values)), key=lambda p: _rank(values[p]), reverse=descending)


def _kept_screen(read: Reading, order: str) -> tuple[list[str], float] | None:
    """The ids of the top kept for the sort `order`, and the cache time up to which that
    list held every change; None when none is kept for it."""
    try:
        screen = json.loads(read.meta(FIRST_SCREEN_KEY) or "null")
        since = json.loads(read.meta(KEPT_SINCE_KEY) or "null")
        if not isinstance(screen, dict) or screen.get("order") != order:
            return None
        return [str(i) for i in screen["ids"]], float(since)
    except (ValueError, KeyError, TypeError):
        return None


class _Ahead(NamedTuple):
    """The changed rows the cache's keys sort before the last unchanged kept row (`last`),
    the first of them a kept top holds, with their sort values and `last`'s by the keys."""

    values: dict[str, SortValue | None]
    last: SortValue | None

    def agrees(
        self, keys: list[str], values: list[SortValue | None], last: str, judged: Iterable[str]
    ) -> bool:
        """Whether the table's own sort values of the rows read (`keys`, `values`) are those
        the keys gave: else the keys may have left out a row of the top. Not those of the
        rows `judged` with facts (the keys know none)."""
        mine = dict(zip(keys, values, strict=True))
        skip = set(judged)
        return mine.get(last) == self.last and all(
            mine.get(key) == value for key, value in self.values.items() if key not in skip
        )


def _key_sql(sort: ListSort) -> tuple[str, list[object]] | None:
    """The SQL expression of the `summary_keys` columns that sorts as `sort` does, and its
    parameters; None for a sort the keys cannot tell by one expression (the mode's or the
    state's: `indexed_top` maps them; Attention with facts)."""
    if sort.key == "attention":
        if sort.triaged is None:
            return None
        value, params, _runs = sort.triaged.sql()
        return value, params
    if sort.key in PLAIN:
        return PLAIN[sort.key], []
    return None


def _changed_ahead(
    read: Reading, sort: ListSort, since: float, last: str, limit: int
) -> _Ahead | None:
    """Of the rows changed after `since` (when the top was kept), those that may reach the
    top: a row sorted at or after `last` (the last kept row that did not change) cannot, nor
    one after `limit` other changed rows. Told inside SQLite from the sort values the cache
    keeps per row (`summary_keys`), the rows themselves not read; None when the keys cannot
    tell (a sort they do not hold, a triage with facts, keys behind the list). Not the
    mode's or the state's: of a few values each, they tie too many rows with the last kept
    one for a kept top to tell the top (the list is read whole)."""
    sql = _key_sql(sort)
    if sql is None:
        return None
    value, params = sql
    ahead = read.changed_ahead(since, value, params, last, sort.descending, limit)
    if ahead is None:
        return None
    # The keys' values, checked against the table's own once the rows are read (`agrees`).
    bound, top = cast("tuple[SortValue | None, list[tuple[str, SortValue | None]]]", ahead)
    return _Ahead(dict(top), bound)


def indexed_top(cache: Cache, sort: ListSort, screen: int) -> FirstScreen | None:
    """The top of the cached list in `sort`, found from the keys the cache keeps per row
    (`service/summary_keys.py`: one scan in SQLite instead of decoding every row), and the
    list's length; None when the keys cannot tell it (a sort they do not hold, a triage
    with facts, keys behind the list) or the list is short enough to read whole.

    Only the top's rows are decoded; their sort values, worked out by the table's own
    functions, must be those the keys gave, else the list is read whole."""
    runs: list[tuple[str, list[object]]] = []
    if sort.key == "attention":
        # The keys hold the triage without facts, as the table's is before the session.
        if sort.triaged is None:
            return None
        value, params, kinds = sort.triaged.sql()
        runs = kinds if sort.descending else []  # the default sort: through the indexes
    elif sort.key in PLAIN:
        value, params = PLAIN[sort.key], []
    elif sort.key in MAPPED:
        field = MAPPED[sort.key]
        probe = _PROBES[field]
        found = [v for v in cache.summary_values(field) if v]
        mapped = sort.values([probe(v) for v in found], NO_FACTS)
        value, params = mapped_sql(field, dict(zip(found, mapped, strict=True)))
    else:
        return None
    limit = kept_rows(screen)
    total = cache.count(SUMMARIES)
    if total <= limit:
        return None
    top = cache.summary_top(value, params, sort.descending, limit, runs)
    if top is None:
        return None
    saved, pairs = top
    keys = [k for k, _ in pairs]
    bodies = cache.get_many(SUMMARIES, keys)
    rows = rows_from_cache((bodies[k] for k in keys if k in bodies), parse=json.loads)
    if len(rows) != len(keys) or [r.id for r in rows] != keys:
        return None
    values = sort.values(rows, NO_FACTS)  # as the keys tell it
    if values != [v for _, v in pairs] or (runs and not _descending(values)):
        log.warning("the cached keys sort %s otherwise than the list: read whole", sort.key)
        return None
    # Their facts too, for the Attention column's words and their order among themselves
    # (a row below them that its facts make late comes once the session has read them).
    facts = facts_of(cache.get_many(FACTS, keys).values())
    return FirstScreen(rows, total, saved, facts)


def _descending(values: list[SortValue | None]) -> bool:
    # The runs (the Attention sort's kinds) hold the sort's order only while every last
    # change is within their bounds (a time after 2286 would not be).
    numbers = [v for v in values if isinstance(v, float)]
    return len(numbers) == len(values) and numbers == sorted(numbers, reverse=True)


# A row to learn the sort value of a kept-as-is column's value from (`indexed_top`).
_EPOCH = datetime.fromtimestamp(0, UTC)
_PROBE = SummaryRow(
    "", (), None, None, None, None, None, None, None, None, None, 0, None, _EPOCH, _EPOCH
)
_PROBES: dict[str, Callable[[str], SummaryRow]] = {
    "mode": lambda value: _PROBE._replace(mode=value),
    "state": lambda value: _PROBE._replace(current_state=value),
}


def _rank(value: object) -> tuple[int, object] | tuple[int]:
    # The table's order: rows without a value after the others ascending, first descending.
    return (1,) if value is None else (0, value)


def _before(rank: tuple[object, ...], bound: tuple[object, ...], descending: bool) -> bool:
    return rank > bound if descending else rank < bound


def remember_first_screen(
    cache: Cache, order: str, total: int, ids: Sequence[str], saved: float | None = None
) -> None:
    """Keep the ids at the top of the list as shown, in `order` (a name for the list's
    sort), so the next start can paint them before reading the whole list. `saved`: the
    cache's change time (`Cache.saved_at`) of the list they are the top of, when it was read
    before (a writer in another thread must not pair the ids with a later list's time)."""
    if saved is None:
        saved = cache.saved_at(SUMMARIES)
    screen = {"order": order, "total": total, "ids": list(ids), "saved": saved}
    cache.set_meta(FIRST_SCREEN_KEY, json.dumps(screen))


def first_screen(cache: Cache, order: str) -> tuple[list[SummaryRow], int] | None:
    """The rows `remember_first_screen` kept, in order, and the length of the whole list;
    None unless they are exactly the top of the cached list sorted by `order`: the same
    sort, and nothing of the list changed since (the cache records the time of every change,
    deletions too; counting the list instead would read all of it)."""
    try:
        screen = json.loads(cache.meta(FIRST_SCREEN_KEY) or "null")
        if not isinstance(screen, dict) or screen.get("order") != order:
            return None
        ids, total = [str(i) for i in screen["ids"]], int(screen["total"])
        saved = screen["saved"]
    except (ValueError, KeyError, TypeError):
        return None
    if saved is None or saved != cache.saved_at(SUMMARIES) or not ids:
        return None
    bodies = cache.get_many(SUMMARIES, ids)
    if len(bodies) != len(ids):
        return None
    rows = rows_from_cache((bodies[i] for i in ids), parse=json.loads)
    return (rows, total) if len(rows) == len(ids) else None


class TopToKeep(NamedTuple):
    """The top of the list as the table shows it, to keep for the next start (`keep_top`)."""

    cache: Cache
    order: str  # the sort's name (`ListSort.name`)
    total: int
    ids: tuple[str, ...]
    rows: dict[str, SummaryRow]  # every row of the table, by id
    # The cache time up to which the table held every change when last checked (None: not
    # known, the whole list is compared).
    since: float | None


class Kept(NamedTuple):
    """What `keep_top` did."""

    # The table does not hold every change the cache has yet: nothing kept, look again later.
    behind: bool
    # When kept: the cache time up to which the table holds every change, where the next
    # check starts.
    since: float | None


def keep_top(top: TopToKeep, index: bool = False) -> Kept:
    """Keeps `top.ids` as the top of the list for the next start's first paint, if the
    table's rows hold every change the cache has, with the cache time they hold them up to
    (`KEPT_SINCE_KEY`). A cache closed meanwhile (another profile) keeps nothing: only a
    quicker next start is lost. `index`: then build the list's keys if they are behind (a
    cache of an older version: for a start that finds nothing kept, `indexed_top`)."""
    kept = Kept(False, None)
    with contextlib.suppress(sqlite3.Error):
        verified = holds_every_change(top.cache, top.rows, top.since)
        if verified is None:
            return Kept(True, None)
        # The top first: with an older time beside it a start merges more, never less.
        remember_first_screen(top.cache, top.order, top.total, top.ids, verified)
        top.cache.set_meta(KEPT_SINCE_KEY, repr(verified))
        kept = Kept(False, verified)
    if index:
        with contextlib.suppress(sqlite3.Error):
            top.cache.index_summaries()
    return kept


def keep_top_in_thread(top: TopToKeep, then: Callable[[Kept], None]) -> threading.Thread:
    """`keep_top` (its keys built too) in a thread of its own, started (a read waits for the
    disk); `then` is called from that thread with what it did."""

    def keep() -> None:
        then(keep_top(top, index=True))

    thread = threading.Thread(target=keep, name="keep-first-screen", daemon=True)
    thread.start()
    return thread


def holds_every_change(
    cache: Cache, rows: dict[str, SummaryRow], since: float | None
) -> float | None:
    """The cache's time of its last change of the list when `rows` (the table's, by id) are
    the cached list as of then, else None. The table held every change up to `since` (when
    given): only the rows changed after it are compared."""
    changed = cache.changed_since(SUMMARIES, since, CHECK_AT_MOST) if since is not None else None
    if changed is None:
        saved = cache.saved_at(SUMMARIES)
        whole = cached_rows(cache)
        if saved is None or cache.saved_at(SUMMARIES) != saved or len(whole) != len(rows):
            return None
        return saved if all(rows.get(row.id) == row for row in whole) else None
    saved, keys = changed
    if saved is None:
        return None
    bodies: dict[str, bytes] = {}
    for start in range(0, len(keys), 500):
        bodies.update(cache.get_many(SUMMARIES, keys[start : start + 500]))
    for key in keys:
        body, mine = bodies.get(key), rows.get(key)
        if body is None:
            if mine is not None:
                return None  # deleted from the cache, still in the table
            continue
        cached = rows_from_cache([body], parse=json.loads)
        if not cached or cached[0] != mine:
            return None
    return saved
