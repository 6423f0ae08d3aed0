"""The administration commands, run as a user would (real subprocesses, real SQLite file)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support import running_service


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "freightdesk.cli", *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_tenant_add_is_idempotent_and_prints_the_uuid(tmp_path: Path) -> None:
    first = _cli(tmp_path, "tenant", "add", "Acme", "--admin", "ops:secret")
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"[0-9a-f-]{36}\n", first.stdout)
    again = _cli(tmp_path, "tenant", "add", "Acme", "--admin", "ops:other")
    assert again.stdout == first.stdout
    bad = _cli(tmp_path, "tenant", "add", "Beta", "--admin", "no-colon")
    assert bad.returncode == 2 and "USER:PASSWORD" in bad.stderr


def test_client_rotate_gives_working_credentials(tmp_path: Path) -> None:
    assert _cli(tmp_path, "tenant", "add", "Acme", "--admin", "ops:secret").returncode == 0
    first = _cli(tmp_path, "client", "rotate", "Acme", "desk")
    second = _cli(tmp_path, "client", "rotate", "Acme", "desk")
    old = re.search(r"client id (\S+), client secret (\S+)", first.stdout)
    new = re.search(r"client id (\S+), client secret (\S+)", second.stdout)
    assert old and new and old.group(1) == new.group(1) and old.group(2) != new.group(2)
    url = f"sqlite:///{tmp_path / 'freightdesk.sqlite3'}"
    with running_service(url) as service:
        token = httpx.post(
            f"{service.url}/api/v4/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(new.group(1), new.group(2)),
        )
        assert token.status_code == 200
        stale = httpx.post(
            f"{service.url}/api/v4/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(old.group(1), old.group(2)),
        )
        assert stale.status_code == 401


def test_carrier_behaviour_is_set_listed_and_reset(tmp_path: Path) -> None:
    assert _cli(tmp_path, "tenant", "add", "Acme", "--admin", "ops:secret").returncode == 0
    assert (
        _cli(tmp_path, "carrier", "set", "Acme", "odfl", "--behaviour", "DECLINE").returncode == 0
    )
    listed = _cli(tmp_path, "carrier", "list", "Acme").stdout
    assert re.search(r"^ODFL\t.*\tDECLINE$", listed, re.MULTILINE)
    refused = _cli(tmp_path, "carrier", "set", "Acme", "ODFL", "--account-group", "NOPE")
    assert refused.returncode == 2 and "NOPE" in refused.stderr
    assert _cli(tmp_path, "carrier", "reset", "Acme", "odfl").returncode == 0
    assert "DECLINE" not in _cli(tmp_path, "carrier", "list", "Acme").stdout
    missing = _cli(tmp_path, "carrier", "list", "Nobody")
    assert missing.returncode == 2 and "no tenant" in missing.stderr
