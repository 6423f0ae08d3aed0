"""`freightdesk serve` never outlives the app that started it, and one data directory has one
service: real processes, their real pipe and lock."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx

from freightdesk import lifetime
from tests.processes import SERVE, Processes, gone_within, processes, read_until

LISTENING = r"listening on (http://\S+)"
# Starting a Python process with the service's imports on a machine with a load of 10.
START_SECONDS = 120


def _answers(url: str) -> bool:
    return httpx.get(f"{url}/health", timeout=30).status_code == 200


def _serve_for_app(
    started: Processes, data_dir: Path, *options: str
) -> tuple[subprocess.Popen[bytes], int]:
    """`freightdesk serve` as the app starts it: with the read end of a pipe whose write end
    (returned) stands for the app."""
    read_end, write_end = os.pipe()
    try:
        command = [*SERVE, "--data-dir", str(data_dir), *options]
        pipe = [lifetime.PARENT_PIPE_OPTION, str(read_end)]
        started.fds.append(write_end)
        return started.start([*command, *pipe], pass_fds=(read_end,)), write_end
    finally:
        os.close(read_end)


def _read_by_peer(client: socket.socket, seconds: float = 30.0) -> None:
    """Wait until the process at the other end of `client` (on 127.0.0.1) has read all that
    was sent to it: the kernel holds none of it in that end's receive queue any more."""
    local, remote = client.getsockname()[1], client.getpeername()[1]
    ends = f"{remote:04X} {local:04X}"  # its end: from its port to ours
    deadline = time.monotonic() + seconds
    while True:
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            ports = f"{fields[1].rsplit(':', 1)[1]} {fields[2].rsplit(':', 1)[1]}"
            if ports == ends and int(fields[4].rsplit(":", 1)[1], 16) == 0:
                return
        assert time.monotonic() < deadline, "the service did not read the request"
        time.sleep(0.01)


def test_the_service_stops_cleanly_when_its_app_ends(tmp_path: Path) -> None:
    data_dir = tmp_path / "service"
    with processes() as started:
        service, write_end = _serve_for_app(started, data_dir, "--log-level", "info")
        url = read_until(service, LISTENING, START_SECONDS).group(1)
        assert _answers(url)
        assert lifetime.holder(data_dir) == lifetime.Holder(pid=service.pid, url=url)

        started.close_fd(write_end)  # what the OS does when the app ends, however it ends

        assert gone_within(service.pid, 5.0) < 5.0
        service.wait(timeout=5)
        log = (data_dir / "logs" / "service.log").read_text()
        assert "the app that started this local service has ended: stopping" in log
        # Stopped as on SIGTERM: the workers (simulator, push processing) stopped, not cut off.
        assert "Application shutdown complete" in log
        assert "exiting at once" not in log
        assert service.returncode == -signal.SIGTERM
        assert lifetime.holder(data_dir) is None  # the next start may serve the directory


def test_the_service_stops_when_its_app_ends_before_it_listens(tmp_path: Path) -> None:
    """The app killed while its service opens the database or seeds the demo."""
    data_dir = tmp_path / "service"
    with processes() as started:
        service, write_end = _serve_for_app(started, data_dir, "--demo", "--simulate")
        deadline = time.monotonic() + START_SECONDS
        while lifetime.holder(data_dir) is None:  # it has taken its data directory
            assert service.poll() is None, service.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "the service never locked its data directory"
            time.sleep(0.05)

        started.close_fd(write_end)

        assert gone_within(service.pid, 5.0) < 5.0
        assert lifetime.holder(data_dir) is None


def test_a_second_service_on_the_same_data_directory_refuses_to_start(tmp_path: Path) -> None:
    data_dir = tmp_path / "service"
    with processes() as started:
        first = started.start([*SERVE, "--data-dir", str(data_dir)])
        url = read_until(first, LISTENING, START_SECONDS).group(1)

        second = started.start([*SERVE, "--data-dir", str(data_dir), "--demo", "--simulate"])
        _out, err = second.communicate(timeout=START_SECONDS)

        assert second.returncode == 2
        assert err.decode().strip().splitlines()[-1] == (
            f"freightdesk: the data directory {data_dir} is already served by the local "
            f"service at {url} (pid {first.pid})"
        )
        assert _answers(url)  # the first one serves on, untouched
        assert first.poll() is None

        # However the first ends, the directory is free for the next one at once.
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        assert lifetime.holder(data_dir) is None
        third = started.start([*SERVE, "--data-dir", str(data_dir)])
        third_url = read_until(third, LISTENING, START_SECONDS).group(1)
        assert _answers(third_url)
        assert lifetime.holder(data_dir) == lifetime.Holder(pid=third.pid, url=third_url)


def test_ctrl_c_stops_the_service_quietly(tmp_path: Path) -> None:
    """`freightdesk serve` in a terminal, stopped with Ctrl+C: the service shuts down as on
    SIGTERM, frees its data directory and says it stopped, with no traceback."""
    data_dir = tmp_path / "service"
    with processes() as started:
        service = started.start([*SERVE, "--data-dir", str(data_dir)])
        url = read_until(service, LISTENING, START_SECONDS).group(1)
        assert _answers(url)

        service.send_signal(signal.SIGINT)

        _out, err = service.communicate(timeout=START_SECONDS)
        assert "Traceback" not in err.decode(), err.decode()[-2000:]
        assert err.decode().strip().splitlines()[-1] == "freightdesk: the local service stopped"
        assert service.returncode == 0
        assert lifetime.holder(data_dir) is None


def test_a_document_request_whose_app_quit_does_not_hold_the_stop(tmp_path: Path) -> None:
    """The app asks for the OpenAPI document as it connects. Quit before the service has built
    it (seconds of CPU on a busy machine), its request goes with it: the service's stop does
    not wait, up to its graceful second, for a document nobody reads."""
    data_dir = tmp_path / "service"
    with processes() as started:
        service, write_end = _serve_for_app(started, data_dir, "--log-level", "info")
        url = read_until(service, LISTENING, START_SECONDS).group(1)
        host, port = url.removeprefix("http://").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as app:
            app.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: desk\r\n\r\n")
            _read_by_peer(app)  # by the service, the document being built
        started.close_fd(write_end)  # the app has ended

        gone_within(service.pid, 5.0)
        log = (data_dir / "logs" / "service.log").read_text()
        assert "GET /openapi.json 499" in log  # answered to nobody as soon as the app left
        assert "Waiting for background tasks" not in log
