"""Where the app keeps its settings, cache, logs and the Local sandbox's data."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "freightdesk"


@dataclass(frozen=True)
class AppPaths:
    config_dir: Path
    cache_dir: Path
    data_dir: Path
    log_dir: Path

    @classmethod
    def for_user(cls) -> AppPaths:
        """The user's platform directories, or all under FREIGHTDESK_HOME when it is set."""
        home = os.environ.get("FREIGHTDESK_HOME")
        if home:
            return cls.under(Path(home))
        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            cache_dir=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
            data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
            log_dir=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
        )

    @classmethod
    def under(cls, root: Path) -> AppPaths:
        return cls(root / "config", root / "cache", root / "data", root / "logs")

    @property
    def profiles_file(self) -> Path:
        return self.config_dir / "profiles.json"

    @property
    def local_service_dir(self) -> Path:
        # The same place `freightdesk serve` uses by default, so both see one database.
        return self.data_dir / "service"

    def cache_file(self, profile_id: str) -> Path:
        return self.cache_dir / f"{profile_id}.sqlite3"

    @property
    def log_file(self) -> Path:
        return self.log_dir / "freightdesk.log"
