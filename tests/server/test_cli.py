"""The administration commands, run as a user would (real subprocesses): on each database (a
SQLite file in the data directory, or PostgreSQL named with `--database postgresql://...`)
where they store credentials."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx

from tests.processes import SERVE, processes, read_until
from tests.support import database_option


def _cli(data_dir: Path, database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "freightdesk.cli",
            *args,
            "--data-dir",
            str(data_dir),
            *database_option(database_url),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_tenant_add_is_idempotent_and_prints_the_uuid(tmp_path: Path, database_url: str) -> None:
    first = _cli(tmp_path, database_url, "tenant", "add", "Acme", "--admin", "ops:secret")
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"[0-9a-f-]{36}\n", first.stdout)
    again = _cli(tmp_path, database_url, "tenant", "add", "Acme", "--admin", "ops:other")
    assert again.stdout == first.stdout
    bad = _cli(tmp_path, database_url, "tenant", "add", "Beta", "--admin", "no-colon")
    assert bad.returncode == 2 and "USER:PASSWORD" in bad.stderr
    assert (tmp_path / "freightdesk.sqlite3").exists() == database_url.startswith("sqlite")


def test_client_rotate_gives_credentials_that_serve_takes(
    tmp_path: Path, database_url: str
) -> None:
    added = _cli(tmp_path, database_url, "tenant", "add", "Acme", "--admin", "ops:secret")
    assert added.returncode == 0, added.stderr
    first = _cli(tmp_path, database_url, "client", "rotate", "Acme", "desk")
    second = _cli(tmp_path, database_url, "client", "rotate", "Acme", "desk")
    old = re.search(r"client id (\S+), client secret (\S+)", first.stdout)
    new = re.search(r"client id (\S+), client secret (\S+)", second.stdout)
    assert old and new and old.group(1) == new.group(1) and old.group(2) != new.group(2)
    with processes() as started:
        service = started.start(
            [*SERVE, "--data-dir", str(tmp_path), *database_option(database_url)]
        )
        url = read_until(service, r"listening on (http://\S+)", 120).group(1)
        token = httpx.post(
            f"{url}/api/v4/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(new.group(1), new.group(2)),
            timeout=30,
        )
        assert token.status_code == 200, token.text
        stale = httpx.post(
            f"{url}/api/v4/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(old.group(1), old.group(2)),
            timeout=30,
        )
        assert stale.status_code == 401
    # Each used the database it was given, not the data directory's SQLite file.
    assert (tmp_path / "freightdesk.sqlite3").exists() == database_url.startswith("sqlite")


def test_carrier_behaviour_is_set_listed_and_reset(tmp_path: Path) -> None:
    # On SQLite only: seven commands of a second each, and the rows are plain ones that every
    # test of the `tenant` fixture stores on both databases.
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return _cli(tmp_path, "sqlite", *args)

    assert cli("tenant", "add", "Acme", "--admin", "ops:secret").returncode == 0
    assert cli("carrier", "set", "Acme", "odfl", "--behaviour", "DECLINE").returncode == 0
    listed = cli("carrier", "list", "Acme").stdout
    assert re.search(r"^ODFL\t.*\tDECLINE$", listed, re.MULTILINE)
    refused = cli("carrier", "set", "Acme", "ODFL", "--account-group", "NOPE")
    assert refused.returncode == 2 and "NOPE" in refused.stderr
    assert cli("carrier", "reset", "Acme", "odfl").returncode == 0
    assert "DECLINE" not in cli("carrier", "list", "Acme").stdout
    missing = cli("carrier", "list", "Nobody")
    assert missing.returncode == 2 and "no tenant" in missing.stderr
