"""The served OpenAPI document passes the Redocly linter's recommended rules (redocly.yaml
at the repository's root) with no error and no warning, as JSON and as YAML."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx

from tests.support import LiveService, missing

# The version .ci/run installs (`npm install --prefix .ci/node @redocly/cli@...`).
REDOCLY_VERSION = "2.77.0"
ROOT = Path(__file__).resolve().parents[2]
INSTALL = f"npm install --prefix .ci/node @redocly/cli@{REDOCLY_VERSION}"


def redocly() -> str:
    """The pinned linter: the project's own install in .ci/node, else one on PATH."""
    local = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "redocly"
    found = str(local) if local.exists() else shutil.which("redocly")
    if found is None:
        missing(f"the Redocly linter is not installed: `{INSTALL}`")
    version = run([found, "--version"], timeout=120).stdout.strip().splitlines()[-1:]
    if version != [REDOCLY_VERSION]:
        missing(f"{found} is Redocly {version}, not the pinned {REDOCLY_VERSION}: `{INSTALL}`")
    return found


def run(command: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        # No usage report sent, no look-up of a newer release (no network but the registries).
        "REDOCLY_TELEMETRY": "off",
        "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    }
    return subprocess.run(
        command,
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_served_document_passes_the_recommended_rules(
    sqlite_service: LiveService, tmp_path: Path
) -> None:
    linter = redocly()
    for name in ("openapi.json", "openapi.yaml"):
        answer = httpx.get(f"{sqlite_service.url}/{name}", timeout=120)
        answer.raise_for_status()
        served = tmp_path / name
        served.write_bytes(answer.content)
        done = run(
            [linter, "lint", "--config", str(ROOT / "redocly.yaml"), "--format=json", str(served)],
            timeout=300,
        )
        # The report is JSON on stdout; a banner (e.g. of Node.js support) goes to stderr.
        assert done.stdout.strip(), done.stderr
        report: dict[str, Any] = json.loads(done.stdout)
        problems = [
            f"{problem['severity']} {problem['ruleId']}: {problem['message']} "
            f"at {problem['location'][0]['pointer']}"
            for problem in report["problems"]
        ]
        assert problems == [], (name, "\n".join(problems))
        assert report["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, name
        assert report["version"] == REDOCLY_VERSION
        assert done.returncode == 0, done.stderr
