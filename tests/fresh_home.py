"""A fresh home for the `freightdesk` command started as a process of its own, as a user starts
it: FreightDesk's home with its Local sandbox database made, and the environment of a user with
folders of their own (HOME and the XDG ones, empty). What the tests that start the app
(tests/ui/test_app_lifetime.py) and the quit bench (bench/bench_quit.py) share."""

from __future__ import annotations

import os
from pathlib import Path

from freightdesk.server.app import build_context
from freightdesk.server.db import transaction
from freightdesk.server.demo import DEMO_ADMIN, DEMO_TENANT_NAME
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings
from freightdesk.service.paths import AppPaths


def seeded_home(home: Path) -> AppPaths:
    """FreightDesk's home at `home`, whose Local sandbox database has the demo's tenant (as on
    every day after the first), so the service does not spend a minute seeding the demo."""
    paths = AppPaths.under(home)
    context = build_context(ServerSettings.from_options(data_dir=paths.local_service_dir))
    try:
        with transaction(context.sessions) as session:
            ensure_tenant(session, DEMO_TENANT_NAME, *DEMO_ADMIN, "SHIPPER")
    finally:
        context.engine.dispose()
    return paths


def user_env(home: Path, user: Path, display: str | None = None) -> dict[str, str]:
    """The environment of a user whose own folders are under `user` and whose FreightDesk home
    is `home`: the app on the X `display` (the xcb platform, as on a Linux desktop), or
    offscreen without one."""
    runtime = user / "runtime"
    runtime.mkdir(parents=True, mode=0o700, exist_ok=True)
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen" if display is None else "xcb",
        "FREIGHTDESK_HOME": str(home),
        "HOME": str(user),
        "XDG_CONFIG_HOME": str(user / "config"),
        "XDG_DATA_HOME": str(user / "data"),
        "XDG_CACHE_HOME": str(user / "cache"),
        "XDG_STATE_HOME": str(user / "state"),
        "XDG_RUNTIME_DIR": str(runtime),
    }
    if display is not None:
        env["DISPLAY"] = display
    env.pop("WAYLAND_DISPLAY", None)  # Qt would prefer it to the display asked for
    return env
