"""The common result of the benchmarks: a figure beside the baseline measured in the same run.

A benchmark measures as it always has and then hands its figures to `publish`, which prints
them as one table (figure, baseline, ratio, target, met, load average) and, when run by
`python -m bench` (the BENCH_FIGURES environment variable names a file), also appends them
there as JSON lines, so that one command can gather every benchmark's figures in one table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

FIGURES_ENV = "BENCH_FIGURES"


def load_average() -> float:
    return os.getloadavg()[0]


@dataclass(frozen=True)
class Figure:
    """One measured figure (`value`, in `unit`) and what it is held against.

    `limit` is the absolute target in the same unit, `max_ratio` the target as a ratio to the
    baseline (`min_ratio` and `higher_is_better` for throughputs). A figure without targets is
    reported for information (met: "-").
    """

    bench: str
    what: str
    value: float
    unit: str = "ms"
    baseline: float | None = None
    baseline_what: str = ""
    limit: float | None = None
    max_ratio: float | None = None
    min_ratio: float | None = None
    higher_is_better: bool = False
    load: float = field(default_factory=load_average)
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline == 0:
            return None
        return self.value / self.baseline

    @property
    def target(self) -> str:
        parts = []
        if self.limit is not None:
            sign = ">=" if self.higher_is_better else "<="
            parts.append(f"{sign} {_number(self.limit)} {self.unit}")
        if self.max_ratio is not None:
            parts.append(f"<= {self.max_ratio:g}x")
        if self.min_ratio is not None:
            parts.append(f">= {self.min_ratio:g}x")
        return ", ".join(parts) or "-"

    @property
    def met(self) -> bool | None:
        checks: list[bool] = []
        if self.limit is not None:
            checks.append(
                self.value >= self.limit if self.higher_is_better else self.value <= self.limit
            )
        ratio = self.ratio
        if self.max_ratio is not None and ratio is not None:
            checks.append(ratio <= self.max_ratio)
        if self.min_ratio is not None and ratio is not None:
            checks.append(ratio >= self.min_ratio)
        return all(checks) if checks else None


def _number(value: float) -> str:
    if value != value:  # NaN
        return "nan"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _met(figure: Figure) -> str:
    met = figure.met
    return "-" if met is None else ("met" if met else "MISSED")


def table(figures: Iterable[Figure], *, markdown: bool = False) -> str:
    """The figures as a table: plain columns for a terminal, or Markdown."""
    header = ["bench", "figure", "value", "baseline", "ratio", "target", "met", "load"]
    rows = []
    for f in figures:
        baseline = (
            f"{_number(f.baseline)} {f.unit} ({f.baseline_what})" if f.baseline is not None else "-"
        )
        ratio = f"{f.ratio:.2f}x" if f.ratio is not None else "-"
        what = f"{f.what} [{f.note}]" if f.note else f.what
        rows.append(
            [
                f.bench,
                what,
                f"{_number(f.value)} {f.unit}",
                baseline,
                ratio,
                f.target,
                _met(f),
                f"{f.load:.1f}",
            ]
        )
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def publish(figures: list[Figure], *, handed_over: bool = False) -> None:
    """Print the figures as a table, and hand them to `python -m bench` when it runs us
    (`handed_over`: they were, a part at a time, by `hand_over`)."""
    print()
    print(table(figures))
    print(f"load average now: {load_average():.1f} on {os.cpu_count()} cores")
    if not handed_over:
        hand_over(figures)


def hand_over(figures: list[Figure]) -> None:
    """Give figures to `python -m bench` (when it runs us) as soon as they are measured: a
    run stopped at its time limit keeps those."""
    target = os.environ.get(FIGURES_ENV)
    if target:
        with Path(target).open("a", encoding="utf-8") as out:
            for figure in figures:
                out.write(json.dumps(asdict(figure)) + "\n")


def read(path: Path) -> list[Figure]:
    if not path.exists():
        return []
    return [Figure(**json.loads(line)) for line in path.read_text().splitlines() if line]
