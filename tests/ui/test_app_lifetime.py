"""The app's local service never outlives the app: `freightdesk` started as a user starts it
(a process of its own, a fresh home), its service found where it announces itself, then the
app ended as a crash or the system would end it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from freightdesk import lifetime
from freightdesk.server.app import build_context
from freightdesk.server.db import transaction
from freightdesk.server.demo import DEMO_TENANT_NAME
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.settings import ServerSettings
from freightdesk.service.paths import AppPaths
from tests.processes import Processes, alive, gone_within, processes

# The app and then its service start on a machine with a load of 10.
START_SECONDS = 180


@pytest.fixture
def started() -> Iterator[Processes]:
    with processes() as owner:
        yield owner


def _home(root: Path) -> AppPaths:
    """A fresh home whose Local sandbox database exists already (as on every day after the
    first), so the service does not spend a minute seeding the demo."""
    paths = AppPaths.under(root / "freightdesk")
    service_dir = paths.local_service_dir
    context = build_context(ServerSettings.from_options(data_dir=service_dir))
    try:
        with transaction(context.sessions) as session:
            ensure_tenant(session, DEMO_TENANT_NAME, "demo", "demo", "SHIPPER")
    finally:
        context.engine.dispose()
    return paths


def _start_app(
    started: Processes, tmp_path: Path, name: str = "app"
) -> tuple[subprocess.Popen[bytes], int]:
    """The app (a second one with another `name` on the same home), and the pid of the local
    service it uses once that answers."""
    paths = AppPaths.under(tmp_path / "freightdesk")
    if not paths.local_service_dir.exists():
        _home(tmp_path)
    started.watched_dirs.append(paths.local_service_dir)
    user = tmp_path / "user"
    runtime = user / "runtime"
    runtime.mkdir(parents=True, mode=0o700, exist_ok=True)
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "FREIGHTDESK_HOME": str(paths.config_dir.parent),
        "HOME": str(user),
        "XDG_CONFIG_HOME": str(user / "config"),
        "XDG_DATA_HOME": str(user / "data"),
        "XDG_CACHE_HOME": str(user / "cache"),
        "XDG_STATE_HOME": str(user / "state"),
        "XDG_RUNTIME_DIR": str(runtime),
    }
    output_file = tmp_path / f"{name}-output.txt"
    output = output_file.open("wb")
    try:
        app = started.start(
            [sys.executable, "-m", "freightdesk.cli"], env=env, stdout=output, stderr=output
        )
    finally:
        output.close()
    deadline = time.monotonic() + START_SECONDS
    while True:
        assert app.poll() is None, output_file.read_text()[-3000:]
        assert time.monotonic() < deadline, "the app's local service never answered"
        found = lifetime.holder(paths.local_service_dir)
        if found is not None and found.url is not None and _answers(found.url):
            break
        time.sleep(0.1)
    return app, found.pid


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=10).status_code == 200
    except httpx.TransportError:
        return False


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_the_service_ends_within_5_s_of_the_app_killed(started: Processes, tmp_path: Path) -> None:
    app, service = _start_app(started, tmp_path)
    assert _parent_of(service) == app.pid  # the app's own child

    app.send_signal(signal.SIGKILL)  # no goodbye: nothing of the app runs after this

    assert gone_within(service, 5.0) < 5.0
    app.wait(timeout=30)


def test_the_service_ends_within_5_s_of_the_app_terminated(
    started: Processes, tmp_path: Path
) -> None:
    app, service = _start_app(started, tmp_path)
    assert _parent_of(service) == app.pid

    app.send_signal(signal.SIGTERM)  # logout, shutdown, `kill`

    assert gone_within(service, 5.0) < 5.0
    assert app.wait(timeout=60) == 0
    assert not alive(service)


def test_a_second_app_on_the_same_profile_uses_the_running_service(
    started: Processes, tmp_path: Path
) -> None:
    first, service = _start_app(started, tmp_path, "first")
    second, _ = _start_app(started, tmp_path, "second")
    paths = AppPaths.under(tmp_path / "freightdesk")
    found = lifetime.holder(paths.local_service_dir)
    assert found == lifetime.Holder(pid=service, url=found.url) and found.url is not None

    # The second app uses the first one's service: one service (one simulator) for both.
    deadline = time.monotonic() + START_SECONDS
    while f"using the local service at {found.url} (pid {service})" not in _log(paths):
        assert second.poll() is None and time.monotonic() < deadline, _log(paths)[-3000:]
        time.sleep(0.1)
    assert _services(paths.local_service_dir) == [service]

    # The first app is killed: its service goes with it, and the second app, still running,
    # starts its own on the same address.
    first.send_signal(signal.SIGKILL)
    assert gone_within(service, 5.0) < 5.0
    deadline = time.monotonic() + START_SECONDS
    while (
        (now := lifetime.holder(paths.local_service_dir)) is None
        or now.pid == service
        or not now.url
    ):
        assert second.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    assert now.url == found.url and _answers(now.url)
    assert _parent_of(now.pid) == second.pid
    assert _services(paths.local_service_dir) == [now.pid]
    first.wait(timeout=30)


def _log(paths: AppPaths) -> str:
    """The apps' log (both write to the one of their home)."""
    return paths.log_file.read_text() if paths.log_file.exists() else ""


def _services(service_dir: Path) -> list[int]:
    """The running `freightdesk serve` processes of a data directory."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in command and str(service_dir).encode() in command and alive(int(entry.name)):
            found.append(int(entry.name))
    return sorted(found)
