"""`freightdesk yard site add|list|remove`, run as a user would, on a real SQLite file; the
service then answers with what the command stored."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx

from tests.server.test_cli import _cli as _cli_on
from tests.support import running_service


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command on the data directory's own SQLite file."""
    return _cli_on(data_dir, "sqlite", *args)


def test_yard_sites_are_added_listed_and_removed(tmp_path: Path) -> None:
    assert _cli(tmp_path, "tenant", "add", "Acme", "--admin", "ops:secret").returncode == 0
    added = _cli(
        tmp_path, "yard", "site", "add", "Acme", "den-1", "Denver Cross-Dock",
        "--time-zone", "America/Denver", "--doors", "4", "--slot-minutes", "30",
        "--hours", "MON-FRI 06:00-20:00; SAT 08:00-12:00",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "DEN-1 Denver Cross-Dock: 4 doors" in added.stdout
    listed = _cli(tmp_path, "yard", "site", "list", "Acme")
    assert listed.stdout == (
        "DEN-1\tDenver Cross-Dock\tAmerica/Denver\tMON-FRI 06:00-20:00; SAT 08:00-12:00\n"
    )

    client = re.search(r"client id (\S+), client secret (\S+)", _cli(
        tmp_path, "client", "add", "Acme", "desk").stdout)  # fmt: skip
    assert client is not None
    with running_service(f"sqlite:///{tmp_path / 'freightdesk.sqlite3'}") as service:
        token = httpx.post(
            f"{service.url}/api/v4/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(client.group(1), client.group(2)),
        ).json()["access_token"]
        sites = httpx.get(
            f"{service.url}/services/appointments/v1/sites",
            headers={"Authorization": f"Bearer {token}"},
        ).json()["sites"]
    assert [(s["code"], s["slotMinutes"], len(s["dockDoors"])) for s in sites] == [("DEN-1", 30, 4)]

    removed = _cli(tmp_path, "yard", "site", "remove", "Acme", "DEN-1")
    assert removed.returncode == 0, removed.stderr
    assert _cli(tmp_path, "yard", "site", "list", "Acme").stdout == ""


def test_yard_site_refusals_name_what_was_typed(tmp_path: Path) -> None:
    assert _cli(tmp_path, "tenant", "add", "Acme", "--admin", "ops:secret").returncode == 0
    base = ["yard", "site", "add", "Acme", "ATL", "Atlanta", "--time-zone", "America/New_York"]
    good = [*base, "--doors", "2", "--hours", "MON 08:00-10:00"]
    assert _cli(tmp_path, *good).returncode == 0
    duplicate = _cli(tmp_path, *good)
    assert duplicate.returncode == 2 and "already has a site" in duplicate.stderr
    doors = _cli(tmp_path, *base, "--doors", "0", "--hours", "MON 08:00-10:00")
    assert doors.returncode == 2 and "--doors" in doors.stderr
    hours = _cli(tmp_path, *base, "--doors", "2", "--hours", "Monday 8-10")
    assert hours.returncode == 2 and "--hours" in hours.stderr
    unknown = _cli(tmp_path, "yard", "site", "remove", "Acme", "NOPE")
    assert unknown.returncode == 2 and "NOPE" in unknown.stderr
    nobody = _cli(tmp_path, "yard", "site", "list", "Nobody")
    assert nobody.returncode == 2 and "no tenant" in nobody.stderr
