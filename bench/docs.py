"""docs/performance.md's figures, written from one run of `python -m bench`.

`python -m bench all --quick --write-docs` runs every benchmark and then replaces the part of
docs/performance.md between the two markers below with the run's table, the commit it ran at
and the load average; the prose around it (how each benchmark measures, what a missed target's
floor is) is kept. A run's figures are also kept in its log directory (`run.json`), so

    python -m bench.docs LOG_DIR

writes the same section again from that run without running anything.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.report import Figure, table

BEGIN = "<!-- figures: written by python -m bench --write-docs; edit the prose, not this -->"
END = "<!-- end of figures -->"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
RUN_FILE = "run.json"


@dataclass(frozen=True)
class Run:
    """One run of `python -m bench`: its figures and where and how it ran."""

    figures: list[Figure]
    commit: str
    dirty: bool
    minutes: float
    load_before: float
    load_after: float
    cores: int
    quick: bool

    def save(self, log_dir: Path) -> None:
        fields = asdict(self)
        fields["figures"] = [asdict(f) for f in self.figures]
        (log_dir / RUN_FILE).write_text(json.dumps(fields, indent=1))

    @classmethod
    def load(cls, log_dir: Path) -> Run:
        fields = json.loads((log_dir / RUN_FILE).read_text())
        fields["figures"] = [Figure(**f) for f in fields["figures"]]
        return cls(**fields)


def section(run: Run) -> str:
    """The generated part: how the run went, then its table."""
    missed = [f for f in run.figures if f.met is False]
    met = [f for f in run.figures if f.met is True]
    form = "quick forms" if run.quick else "default forms"
    commit = run.commit + (" (with uncommitted changes)" if run.dirty else "")
    lines = [
        BEGIN,
        "",
        f"Taken at {commit} by `python -m bench all {'--quick' if run.quick else '--long'}` "
        f"({form}, {run.minutes:.1f} minutes), on {run.cores} cores shared with "
        f"other work: load average {run.load_before:.1f} before and {run.load_after:.1f} after; "
        f"each row's own load average is in its last column. {len(met)} targets met, "
        f"{len(missed)} missed; rows without a target are for information.",
        "",
        table(run.figures, markdown=True),
        "",
        END,
    ]
    return "\n".join(lines)


def write(run: Run, path: Path = DOCS) -> None:
    """Replace the generated part of `path` with `run`'s (the markers must be there)."""
    text = path.read_text()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{path} has no generated part ({BEGIN!r} ... {END!r})")
    path.write_text(text[:start] + section(run) + text[end + len(END) :])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__)
        return 2
    write(Run.load(Path(args[0])))
    print(f"wrote the figures of {args[0]} into {DOCS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
