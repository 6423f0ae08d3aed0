"""A home whose active profile is a team server that cannot be reached now (port 9): the
app starts from its cache alone, as a dispatcher's laptop does offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from freightdesk.service.paths import AppPaths


def team_profile(id_: str, name: str) -> dict[str, Any]:
    """A remote profile at an address nothing answers, polled too rarely to matter."""
    return {
        "id": id_,
        "name": name,
        "kind": "remote",
        "base_url": "http://127.0.0.1:9",
        "client_id": "someone",
        "credentials_in": "basic",
        "poll_interval": 3600.0,
    }


def offline_team_home(root: Path, *others: dict[str, Any]) -> AppPaths:
    """`root` as such a home, its active profile "team" (and `others` beside it)."""
    paths = AppPaths.under(root)
    paths.config_dir.mkdir(parents=True)
    profiles = [team_profile("team", "Team server"), *others]
    paths.profiles_file.write_text(json.dumps({"active": "team", "profiles": profiles}))
    return paths
