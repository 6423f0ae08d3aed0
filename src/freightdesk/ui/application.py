"""Application start (placeholder until the desktop app lands)."""

from __future__ import annotations

import sys


def run() -> int:
    print("freightdesk: the desktop app is not built yet; run 'freightdesk serve'", file=sys.stderr)
    return 1
