"""The Local sandbox supervisor starts the real `freightdesk serve`, restarts it, stops it."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import httpx
import pytest

from freightdesk import lifetime
from freightdesk.service import first_run
from freightdesk.service.local_service import LocalService, LocalServiceError, ServiceState
from tests.support import port_taken, wait_until


async def test_starts_restarts_after_a_crash_and_stops(tmp_path: Path) -> None:
    service = LocalService(tmp_path / "data", demo=False, simulate=False, max_backoff=0.5)
    states: list[ServiceState] = []
    service.listen(lambda state, _message: states.append(state))
    url = await service.start()
    try:
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.get("/health")).json()["status"] == "ok"
        first_pid = service.pid
        assert first_pid is not None
        os.kill(first_pid, signal.SIGKILL)
        await wait_until(
            lambda: service.state is ServiceState.RUNNING and service.pid != first_pid,
            seconds=120,
        )
        assert service.restarts == 1
        assert service.url == url  # the same port again, so the app's client keeps working
        async with httpx.AsyncClient(base_url=url) as http:
            assert (await http.get("/health")).status_code == 200
    finally:
        await service.stop()
    assert service.pid is None
    assert states[0] is ServiceState.STARTING
    assert ServiceState.RESTARTING in states
    assert states[-1] is ServiceState.STOPPED


async def test_a_service_that_cannot_start_says_why(tmp_path: Path) -> None:
    service = LocalService(
        tmp_path / "data",
        demo=False,
        simulate=False,
        extra_args=["--database", "nosuchdriver://x"],
        start_timeout=30,
    )
    with pytest.raises(LocalServiceError) as failed:
        await service.start()
    assert "cannot open the database" in str(failed.value)
    assert service.state is ServiceState.FAILED
    # What a caller reports of the child: how it ended and its last words.
    assert service.returncode == 2
    assert any("cannot open the database" in line for line in service.log_tail)
    await service.stop()


@pytest.mark.timeout(300)
async def test_the_first_start_only_gives_the_app_a_new_secret(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = LocalService(data, demo=True, simulate=False)
    await first.start()  # writes the demo's tenant and the app's client application
    await first.stop()
    assert first.demo_credentials is not None and first.rotated_credentials is None
    service = LocalService(
        data, demo=True, simulate=False, max_backoff=0.5, rotate_client="FreightDesk desktop"
    )
    url = await service.start()
    try:
        rotated = service.rotated_credentials
        assert rotated is not None
        assert rotated.client_id == first.demo_credentials.client_id
        assert rotated.client_secret != first.demo_credentials.client_secret
        first_pid = service.pid
        assert first_pid is not None
        os.kill(first_pid, signal.SIGKILL)
        await wait_until(
            lambda: service.state is ServiceState.RUNNING and service.pid != first_pid,
            seconds=120,
        )
        # A restart keeps the secret the app signed in with: no new one was given.
        pid = service.pid
        assert pid is not None
        command = await asyncio.to_thread(Path(f"/proc/{pid}/cmdline").read_bytes)
        assert b"--rotate-client" not in command
        async with httpx.AsyncClient(base_url=url) as http:
            answer = await http.post(
                "/api/v4/oauth2/token",
                data={"grant_type": "client_credentials"},
                auth=(rotated.client_id, rotated.client_secret),
            )
        assert answer.status_code == 200, answer.text
    finally:
        await service.stop()


async def test_a_first_start_that_cannot_run_the_program_says_why(tmp_path: Path) -> None:
    missing = tmp_path / "no-python"
    service = LocalService(tmp_path / "data", demo=False, simulate=False, python=str(missing))
    with pytest.raises(LocalServiceError) as failed:
        await service.start()
    # What the user reads after "The local sandbox could not start: ", not a bare OSError.
    assert str(failed.value) == f"cannot run {missing}: No such file or directory"
    assert service.state is ServiceState.FAILED
    await service.stop()


async def test_a_start_that_fails_says_the_last_words_of_either_stream(tmp_path: Path) -> None:
    # A program that ends its output before saying why on stderr, as `serve` may: its stdout
    # reaches its end first, and the reason is still to come.
    program = tmp_path / "says-why-late"
    program.write_text("#!/bin/sh\nexec 1>&-\nsleep 0.3\necho 'cannot listen: busy' >&2\nexit 2\n")
    program.chmod(0o755)
    service = LocalService(tmp_path / "data", demo=False, simulate=False, python=str(program))
    with pytest.raises(LocalServiceError) as failed:
        await service.start()
    assert str(failed.value) == "the local service stopped: cannot listen: busy"
    await service.stop()


async def test_restarts_that_cannot_run_the_program_fail_and_the_supervisor_goes_on(
    tmp_path: Path,
) -> None:
    service = LocalService(tmp_path / "data", demo=False, simulate=False, max_backoff=0.2)
    heard: list[tuple[ServiceState, str]] = []
    service.listen(lambda state, message: heard.append((state, message)))
    await service.start()
    try:
        first_pid = service.pid
        assert first_pid is not None
        service.python = str(tmp_path / "no-python")  # the interpreter gone (an update)
        os.kill(first_pid, signal.SIGKILL)
        # Each launch that cannot run the program is a failed restart, said as such, and the
        # next one is planned: the supervisor does not die with the first OSError.
        await wait_until(
            lambda: (
                sum(state is ServiceState.FAILED for state, _ in heard) >= 2
                and heard[-1][0] is ServiceState.RESTARTING
            ),
            seconds=60,
        )
        failed = [m for state, m in heard if state is ServiceState.FAILED]
        assert failed[0] == f"cannot run {tmp_path / 'no-python'}: No such file or directory"
        assert heard[-1][1].startswith("The local service stopped; restarting in")
        service.python = sys.executable  # back: the next restart runs
        await wait_until(lambda: service.state is ServiceState.RUNNING, seconds=120)
        assert service.pid not in (None, first_pid)
        assert service.url is not None
        async with httpx.AsyncClient(base_url=service.url) as http:
            assert (await http.get("/health")).status_code == 200
    finally:
        await service.stop()


async def test_a_service_whose_port_is_taken_moves_to_another_saying_why(tmp_path: Path) -> None:
    service = LocalService(tmp_path / "data", demo=False, simulate=False, max_backoff=0.2)
    failed: list[str] = []
    service.listen(lambda state, message: state is ServiceState.FAILED and failed.append(message))
    url = await service.start()
    port = int(url.rsplit(":", 1)[1])
    try:
        assert service.pid is not None
        os.kill(service.pid, signal.SIGKILL)
        with port_taken(port):
            await wait_until(
                lambda: service.state is ServiceState.RUNNING and service.url != url,
                seconds=180,
            )
        # Three tries on its own port, each said with the service's reason (its stderr's
        # last line, though its stdout ends first), then any free one.
        assert (
            failed
            == [
                f"the local service stopped: freightdesk: cannot listen on 127.0.0.1:{port}: "
                "Address already in use"
            ]
            * 3
        )
        assert service.url is not None
        async with httpx.AsyncClient(base_url=service.url) as http:
            assert (await http.get("/health")).status_code == 200
    finally:
        await service.stop()


async def test_the_service_asks_for_its_last_port_again_unless_it_is_taken(
    tmp_path: Path,
) -> None:
    """A shipment's public link names the service's address: the next start of the app
    listens on the same port, so a link copied earlier still opens. When another program
    listens there now, the service starts on a free one all the same."""
    data = tmp_path / "data"

    async def start_and_stop() -> int:
        service = LocalService(data, demo=False, simulate=False)
        url = await service.start()
        await service.stop()
        return int(url.rsplit(":", 1)[1])

    first = await start_and_stop()
    assert await start_and_stop() == first
    with port_taken(first):
        moved = await start_and_stop()
    assert moved != first
    assert await start_and_stop() == moved  # the port it had last, kept in turn


async def test_the_last_port_is_asked_for_once_another_windows_ending_service_lets_it_go(
    tmp_path: Path,
) -> None:
    """Another window's service still listens on the port but no longer answers (it is
    shutting down): this window waits for it to end, then starts its own on that port, not
    on a random one that would replace the port kept for the next start."""
    data = tmp_path / "data"
    data.mkdir()
    ending = socket.socket()
    ending.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ending.bind(("127.0.0.1", 0))
    ending.listen(1)  # accepts no connection: answers nothing
    port = ending.getsockname()[1]
    first_run.remember_port(data, port)
    lock = lifetime.ServiceLock.take(data)  # that service's, as `serve` holds it
    lock.announce(f"http://127.0.0.1:{port}")

    def end() -> None:
        ending.close()  # the port let go before the directory, as a service ends
        lock.release()

    service = LocalService(data, demo=False, simulate=False)
    try:
        starting = asyncio.get_running_loop().create_task(service.start())
        # Its question to the ending service is asked and left unanswered.
        await wait_until(lambda: service.state is ServiceState.STARTING)
        await asyncio.sleep(0.5)
        assert not starting.done()
        end()
        url = await starting
        assert url == f"http://127.0.0.1:{port}" and service.attached_to is None
        assert first_run.port_to_ask(data) == 0  # its own service listens there now
    finally:
        end()
        await service.stop()
    assert (data / first_run.PORT_FILE).read_text(encoding="utf-8").strip() == str(port)
