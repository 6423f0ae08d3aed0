"""A teardown that hangs after its test failed still ends the run (tests/conftest.py arms
pytest-timeout again, which a failure disarms): the suite, run as CI runs it (the thread
method), prints the stacks and exits instead of hanging mute."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from tests.processes import pytest_of

ROOT = Path(__file__).resolve().parent.parent

HANGING = """
import time

import pytest


@pytest.fixture
def hangs_after():
    yield
    time.sleep(120)


def test_fails(hangs_after):
    assert False
"""


def test_a_teardown_hanging_after_a_failure_is_ended_by_the_timeout(tmp_path: Path) -> None:
    (tmp_path / "test_hang.py").write_text(HANGING, encoding="utf-8")
    started = time.monotonic()
    result = subprocess.run(
        pytest_of(tmp_path / "test_hang.py", "--timeout", "3", "-o", "timeout_method=thread"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=100,
    )
    took = time.monotonic() - started
    assert result.returncode != 0
    assert "Timeout" in result.stdout + result.stderr
    assert "hangs_after" in result.stdout + result.stderr  # the stack says where it hung
    assert took < 100, took
