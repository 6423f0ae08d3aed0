"""The code's own checks run with the suite: ruff, mypy strict, the layer contracts, the size
of a module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A module past this many lines holds more than one thing: split it by what it holds.
MAX_MODULE_LINES = 700
# Data tables, whose length is their rows, not their logic.
DATA_TABLES = {"src/freightdesk/models/regions.py"}


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=900
    )


def test_ruff_lint() -> None:
    result = _run("ruff", "check", "src", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run("ruff", "format", "--check", "src", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_strict() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_layer_contracts() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_module_is_over_700_lines() -> None:
    lengths = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(ROOT.glob("src/**/*.py"))
    }
    too_long = {
        name: lines
        for name, lines in lengths.items()
        if lines > MAX_MODULE_LINES and name not in DATA_TABLES
    }
    assert not too_long, f"split these by what they hold (or list a data table): {too_long}"
    assert lengths.keys() >= DATA_TABLES, "a data table is gone: take it off DATA_TABLES"
