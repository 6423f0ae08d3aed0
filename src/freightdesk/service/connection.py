"""How the session's connection stands, as the status bar shows it.

Apart from the session so the window can show its status bar before the session's modules
(the API client's errors, pydantic) are imported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum


class ConnectionState(StrEnum):
    CONNECTING = "connecting"
    ONLINE = "online"
    DEGRADED = "degraded"
    OFFLINE = "offline"


@dataclass(frozen=True)
class ConnectionStatus:
    state: ConnectionState
    profile_name: str
    message: str = ""
    last_success: float | None = None
    busy: int = 0  # fetches under way, for the status bar's activity indicator
    # What the fetches under way do, in words beside the activity bar ("Updating shipments").
    doing: str = ""

    def age_text(self, now: float | None = None) -> str:
        if self.last_success is None:
            return "never updated"
        seconds = max(0, int((now or time.time()) - self.last_success))
        if seconds < 60:
            return "updated just now" if seconds < 5 else f"updated {seconds} s ago"
        if seconds < 3600:
            return f"updated {seconds // 60} min ago"
        return f"updated {seconds // 3600} h ago"
