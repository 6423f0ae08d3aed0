"""What keeping the shipment list's keys (`service/summary_keys.py`) costs the cache's writes.

The list as a sync writes it: 100,000 rows replaced whole (`Cache.replace_summaries`, the
first sync or a full refresh) and 1,000 of them saved (`Cache.put_summaries`, a background
sync), CPU of each, beside the same rows written as another kind of the same cache, which
keeps no keys (`replace_kind`, `put_many`); and the file's size with and without the keys.
No target: the figures say what the first paint's `indexed_top` is paid with.

Run: python -m bench.bench_cache_keys [--count 100000] [--changed 1000] [--runs 3]
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import Figure, publish
from freightdesk.service.summary_rows import SummaryRow


def _cpu(action: Callable[[], None]) -> float:
    started = time.process_time()
    action()
    return time.process_time() - started


def _once(
    tmp: Path, rows: list[SummaryRow], some: list[SummaryRow]
) -> tuple[dict[str, float], dict[str, int]]:
    from freightdesk.service.cache import Cache
    from freightdesk.service.summary_rows import row_json

    keyed, plain = Cache(tmp / "keys.sqlite3"), Cache(tmp / "plain.sqlite3")
    # The rows' JSON is made inside each timing, as `replace_summaries` makes it.
    seconds = {
        "keys": _cpu(lambda: keyed.replace_summaries(rows)),
        "plain": _cpu(lambda: plain.replace_kind("rows", [(r.id, row_json(r)) for r in rows])),
        "put keys": _cpu(lambda: keyed.put_summaries(some)),
        "put plain": _cpu(lambda: plain.put_many("rows", [(r.id, row_json(r)) for r in some])),
    }
    keyed.close()
    plain.close()
    sizes = {name: (tmp / f"{name}.sqlite3").stat().st_size for name in ("keys", "plain")}
    return seconds, sizes


def measure(count: int, changed: int, runs: int) -> list[Figure]:
    from bench.gui import cached_home
    from freightdesk.service.cache import Cache
    from freightdesk.service.paths import AppPaths
    from freightdesk.service.summary_rows import cached_rows

    # The start-up benchmark's list, made once under /tmp (the same summaries, seed 3, as
    # making them here would give, in a tenth of the time).
    cache = Cache(AppPaths.under(cached_home(count)).cache_file("team"))
    rows = cached_rows(cache)
    cache.close()
    some = random.Random(1).sample(rows, changed)
    timings: dict[str, list[float]] = {k: [] for k in ("keys", "plain", "put keys", "put plain")}
    sizes: dict[str, int] = {}
    for _ in range(runs):  # interleaved, so both see the same load
        with tempfile.TemporaryDirectory() as tmp:
            once, sizes = _once(Path(tmp), rows, some)
        for key, seconds in once.items():
            timings[key].append(seconds)

    def median_ms(key: str) -> float:
        return statistics.median(timings[key]) * 1000

    without = "the same rows, no keys kept"
    return [
        Figure(
            "cache_keys",
            f"{count:,} shipment rows replaced whole, CPU, median of {runs}",
            median_ms("keys"),
            baseline=median_ms("plain"),
            baseline_what=without,
        ),
        Figure(
            "cache_keys",
            f"{changed:,} of them saved, CPU, median of {runs}",
            median_ms("put keys"),
            baseline=median_ms("put plain"),
            baseline_what=without,
        ),
        Figure(
            "cache_keys",
            f"the cache file with {count:,} rows",
            sizes["keys"] / 2**20,
            unit="MiB",
            baseline=sizes["plain"] / 2**20,
            baseline_what=without,
        ),
    ]


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    publish(measure(args.count, args.changed, args.runs))


if __name__ == "__main__":
    main()
