"""`freightdesk serve --demo` as the app runs it: a child process on a fresh data directory."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

LISTENING = re.compile(r"listening on (http://\S+)")
CREDENTIALS = re.compile(r"client id (\S+), client secret (\S+)")


@contextmanager
def serve(data_dir: Path) -> Iterator[tuple[str, list[str]]]:
    """Run the service with --demo on a free port; yields its URL and the lines it printed
    before listening."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "freightdesk.cli",
            "serve",
            "--demo",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "FREIGHTDESK_DATABASE_URL": ""},
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(
        target=lambda: [lines.put(line) for line in process.stdout or []], daemon=True
    )
    reader.start()
    printed: list[str] = []
    try:
        deadline = time.monotonic() + 180
        while True:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            printed.append(line)
            if match := LISTENING.search(line):
                url = match.group(1)
                _wait_until_answering(url)
                yield url, printed
                return
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=5)


def _wait_until_answering(url: str) -> None:
    """The port is bound before the server accepts connections; wait as the app does."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.1)


def test_serve_demo_prints_credentials_once_and_they_work() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="fd-demo-cli-"))
    try:
        with serve(data_dir) as (url, printed):
            found = [m for line in printed if (m := CREDENTIALS.search(line))]
            assert len(found) == 1
            client_id, secret = found[0].groups()
            token = httpx.post(
                f"{url}/api/v4/oauth2/token",
                data={"grant_type": "client_credentials"},
                auth=(client_id, secret),
            )
            assert token.status_code == 200
            shipments = httpx.post(
                f"{url}/api/v4/shipments/search?pageSize=1",
                json={"transportationModes": ["OCEAN"]},
                headers={"Authorization": f"Bearer {token.json()['access_token']}"},
            )
            assert shipments.status_code == 200
            assert shipments.json()["paginationInfo"]["total"] >= 20
        # Started again on the same data: nothing new is seeded and no secret is printed.
        with serve(data_dir) as (_url, printed):
            assert not any(CREDENTIALS.search(line) for line in printed)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
