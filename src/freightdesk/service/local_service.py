"""The "Local sandbox": the local service as a supervised child process of the app.

The service runs as `freightdesk serve` in its own process (its work must never stall the
window, and a crash of one must not take down the other), on a loopback port, with the
user's data directory: the port it had last, kept across starts (`first_run.port_to_ask`: a
shipment's public link copied earlier still opens), or a free one. It is restarted with
backoff if it dies and stopped cleanly on quit.

It never outlives the app: it is handed a pipe whose end the app holds, and stops when the OS
closes that end, however the app ended (`freightdesk.lifetime`). One data directory has one
service: when another FreightDesk window's service already serves it, that one is used (and
this window starts its own on the same port once that one ends). One that upgrades its
database is waited for as long as the upgrade goes on, said in the words its own window says.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import re
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO

import httpx

from freightdesk import lifetime
from freightdesk.service import first_run

# `freightdesk` run as a child process: shared with the session (`client rotate`).
from freightdesk.service.first_run import cli_command as cli_command

log = logging.getLogger(__name__)

_LISTENING = re.compile(r"listening on (http://\S+)")
_DEMO = re.compile(r"client id (\S+), client secret (\S+)")
# `serve --rotate-client`'s line (cli.ROTATED_LINE): the app's new secret, not the demo's.
_ROTATED = re.compile(r"desktop client rotated: client id (\S+), client secret (\S+)")
# `serve`'s lines while it upgrades its database's schema (cli.UPGRADING_LINE): the whole line,
# so that no other line that happens to hold the words counts.
_UPGRADING = re.compile(
    r"FreightDesk local service upgrading its database: version \d+, (?:(\d{1,3})%|[^%]+)"
)
UPGRADING = "Upgrading the local database… {}(this happens once after an update)"
LOG_TAIL_LINES = 40  # the service's last lines kept to say why it stopped
ATTACH_POLL_SECONDS = 0.5  # how often another window's service is checked


class ServiceState(StrEnum):
    STOPPED = "stopped"
    STARTING = "starting"
    RUNNING = "running"
    RESTARTING = "restarting"
    FAILED = "failed"


@dataclass(frozen=True)
class DemoCredentials:
    client_id: str
    client_secret: str


class LocalServiceError(Exception):
    """The local service could not be started; the message says why in plain words."""


class LocalService:
    def __init__(
        self,
        data_dir: Path,
        *,
        demo: bool = True,
        simulate: bool = True,
        extra_args: Sequence[str] = (),
        python: str = sys.executable,
        start_timeout: float = 60.0,
        upgrade_silence: float = 600.0,
        max_backoff: float = 30.0,
        rotate_client: str | None = None,
    ) -> None:
        """`rotate_client`: the demo tenant's client application given a new secret by the
        first process started (`rotated_credentials` then has it); never by a restart, whose new
        secret would refuse the one the session signed in with.

        `start_timeout`: how long a launch may take to answer. One that says it upgrades its
        database (after an update) is waited for past it while it says how that goes, each line
        within `upgrade_silence`: stopped, the upgrade would be rolled back and begun again at
        every start, never done."""
        self.data_dir = data_dir
        self.demo = demo
        self.simulate = simulate
        self.extra_args = list(extra_args)
        self.python = python
        self.start_timeout = start_timeout
        self.upgrade_silence = upgrade_silence
        self.max_backoff = max_backoff
        self.url: str | None = None
        self.state = ServiceState.STOPPED
        self.demo_credentials: DemoCredentials | None = None
        self.rotated_credentials: DemoCredentials | None = None
        # How long the last launch took from its start to the service's first answer.
        self.started_in: float | None = None
        # Whether the last launch upgraded its database's schema first.
        self.upgraded = False
        self._rotate_client = rotate_client
        self.restarts = 0
        self._process: asyncio.subprocess.Process | _Adopted | None = None
        # The port asked for: None until worked out as the service is started or adopted
        # (`first_run.port_to_ask`); 0 for any free one.
        self._port: int | None = None
        self._stopping = False
        self._supervisor: asyncio.Task[None] | None = None
        self._readers: list[asyncio.Task[None]] = []
        self._listeners: list[Callable[[ServiceState, str], None]] = []
        self._log_tail: deque[str] = deque(maxlen=LOG_TAIL_LINES)
        # The service of another window that this one uses, when it uses one.
        self.attached_to: lifetime.Holder | None = None
        self._parent_pipe: int | None = None  # the write end; the child stops when it closes

    def listen(self, listener: Callable[[ServiceState, str], None]) -> None:
        self._listeners.append(listener)

    def _set_state(self, state: ServiceState, message: str = "") -> None:
        self.state = state
        for listener in list(self._listeners):
            try:
                listener(state, message)
            except Exception:
                log.exception("a local service listener failed")

    def command(
        self, parent_pipe: int | None = None, rotate_client: str | None = None
    ) -> list[str]:
        rotate = [] if rotate_client is None else ["--rotate-client", rotate_client]
        return first_run.service_command(
            self.data_dir,
            port=self._port or 0,
            demo=self.demo,
            simulate=self.simulate,
            extra_args=[*self.extra_args, *rotate],
            python=self.python,
            parent_pipe=parent_pipe,
        )

    async def start(self) -> str:
        """Start the service and wait until it answers; returns its URL."""
        self._stopping = False
        self._set_state(ServiceState.STARTING, "Starting the local service")
        url = await self._launch()
        self._supervisor = asyncio.get_running_loop().create_task(
            self._supervise(), name="local-service-supervisor"
        )
        return url

    async def _launch(self) -> str:
        # The first launch only, even when it uses another window's service instead.
        rotate, self._rotate_client = self._rotate_client, None
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self._failed(f"cannot make {self.data_dir}: {exc.strerror or exc}") from exc
        adopted = await self._adopt_begun(rotate)
        if adopted is None and (attached := await self._attach()) is not None:
            return attached
        loop = asyncio.get_running_loop()
        began = loop.time()
        ready: asyncio.Future[str] = loop.create_future()
        # Whatever happens to this launch later is seen here, never left unretrieved.
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        if adopted is not None:
            self._process = adopted
        else:
            self._process = None  # the last one's end is not this launch's
            if self._port is None:
                # Asked now, not before `_attach`: another window's service that was still
                # listening there while it ended has let the port go.
                self._port = first_run.port_to_ask(self.data_dir)
            try:
                self._process = await self._spawn(rotate)
            except OSError as exc:  # no such program, not executable, no more processes
                program = exc.filename or self.command()[0]
                raise self._failed(f"cannot run {program}: {exc.strerror or exc}") from exc
        process = self._process
        assert process.stdout is not None and process.stderr is not None
        # Each launch's readers answer that launch's future, never a later one's.
        said: deque[str] = deque(maxlen=20)  # this launch's last lines, of both streams
        upgrading = asyncio.Event()  # set at each line of its database's upgrade
        self.upgraded = False
        self._readers = [
            loop.create_task(self._read(process.stdout, "stdout", ready, said, upgrading)),
            loop.create_task(self._read(process.stderr, "stderr", ready, said, upgrading)),
        ]
        # Why it stopped is its last words once both streams have ended: often on stderr,
        # whose end may be read after stdout's.
        ended = asyncio.gather(*self._readers, return_exceptions=True)
        ended.add_done_callback(lambda _: _stopped(ready, said))
        try:
            url = await self._until_listening(ready, upgrading)
            await self._wait_healthy(url)
        except (TimeoutError, LocalServiceError) as exc:
            await self._terminate()
            if adopted is not None and lifetime.holder(self.data_dir, wait=0) is not None:
                # Another window's service took the directory while the one begun at the
                # start was loading (both apps started at once): that one is used.
                return await self._launch()
            raise self._failed(str(exc) or "the local service did not start in time") from exc
        self.url = url
        self._port = int(url.rsplit(":", 1)[1])
        first_run.remember_port(self.data_dir, self._port)
        self.started_in = loop.time() - began
        log.info(
            "the local service answers at %s, %.1f s after its start%s",
            url,
            self.started_in,
            ", its database upgraded" if self.upgraded else "",
        )
        self._set_state(ServiceState.RUNNING, f"Local service running at {url}")
        return url

    async def _until_listening(self, ready: asyncio.Future[str], upgrading: asyncio.Event) -> str:
        """The launch's URL once it listens: within the start limit, or, while it upgrades
        its database, within `upgrade_silence` of each line saying how that goes."""
        limit, why = self.start_timeout, ""
        while True:
            upgrading.clear()
            heard = asyncio.ensure_future(upgrading.wait())
            try:
                await asyncio.wait(
                    (ready, heard), timeout=limit, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                heard.cancel()
            if ready.done():
                return ready.result()
            if not upgrading.is_set():
                raise TimeoutError(why)
            limit = self.upgrade_silence
            why = f"the local service's database upgrade said nothing for {limit:.0f} s"

    def _failed(self, message: str) -> LocalServiceError:
        """A launch's failure, said (FAILED) and returned to raise."""
        self._set_state(ServiceState.FAILED, message)
        return LocalServiceError(message)

    async def _spawn(self, rotate: str | None) -> asyncio.subprocess.Process:
        with lifetime.ChildPipe() as pipe:
            process = await asyncio.create_subprocess_exec(
                *self.command(pipe.read, rotate),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                stdin=asyncio.subprocess.DEVNULL,
                pass_fds=pipe.fds,
            )
        self._parent_pipe = pipe.write
        return process

    async def _adopt_begun(self, rotate: str | None) -> _Adopted | None:
        """The service the app began before loading the rest of it (`first_run.begin`, or
        `begin_later`), when it is the one this supervisor would start (`rotate`: giving
        the app's client that new secret); None otherwise (one begun with another command
        is stopped: it would hold the data directory)."""
        begun = first_run.take(self.data_dir)
        if begun is None:
            return None
        if self._port is None:
            self._port = begun.port  # the one this launch would ask for (`port_to_ask`)
        if begun.command != self.command(rotate_client=rotate):
            log.info("the local service begun at the start is not the one wanted: stopping it")
            await asyncio.to_thread(begun.stop)
            return None
        self._parent_pipe, begun.parent_pipe = begun.parent_pipe, None
        return await _Adopted.adopt(begun)

    async def _attach(self) -> str | None:
        """Use the service another window started on this data directory, if one runs; None
        when none does (or once it has ended). One still starting (seeding the demo) is
        waited for, as one restarted by its window is; one upgrading its database as long
        as it notes how that goes (each step within `upgrade_silence`, as its own window
        waits), said as its own window says it."""
        if lifetime.holder(self.data_dir, wait=0) is None:
            return None  # the usual case: no client made (see _loopback_client)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.start_timeout
        upgrade: lifetime.Upgrade | None = None  # the last step of its upgrade heard
        pid = 0  # its process (0: not read whole yet)
        async with _loopback_client() as http:
            while (holder := lifetime.holder(self.data_dir, wait=0)) is not None:
                pid = holder.pid or pid
                if holder.url is not None:
                    with contextlib.suppress(httpx.TransportError):
                        if (await http.get(f"{holder.url}/health")).status_code == 200:
                            return self._attached(holder, holder.url)
                if holder.upgrading is not None and holder.upgrading != upgrade:
                    upgrade = holder.upgrading
                    deadline = loop.time() + self.upgrade_silence
                    self._set_state(ServiceState.STARTING, _upgrading_words(upgrade.done))
                if loop.time() > deadline:
                    raise self._failed(_not_answering(holder, upgrade, self.upgrade_silence))
                await asyncio.sleep(ATTACH_POLL_SECONDS)
        why = lifetime.failure(self.data_dir, pid) if pid else None
        if upgrade is not None or why is not None:
            # Said before this window starts its own service (a few seconds of loading).
            ended = _ended_words(upgrade is not None, why)
            log.warning("%s", ended)
            self._set_state(ServiceState.STARTING, ended)
        return None

    def _attached(self, holder: lifetime.Holder, url: str) -> str:
        log.info("using %s, started by another FreightDesk window", holder.describe())
        self.attached_to = holder
        self.url = url
        self._port = int(url.rsplit(":", 1)[1])
        self._set_state(
            ServiceState.RUNNING,
            f"Local service running at {url} (started by another FreightDesk window)",
        )
        return url

    async def _until_released(self, holder: lifetime.Holder) -> None:
        """Return once the service of another window that this one uses has ended."""
        # Another process's lock: nothing to await but its state, read a few times a second.
        while lifetime.holder(self.data_dir, wait=0) == holder:  # noqa: ASYNC110
            await asyncio.sleep(ATTACH_POLL_SECONDS)

    async def _read(
        self,
        stream: asyncio.StreamReader,
        name: str,
        ready: asyncio.Future[str],
        said: deque[str],
        upgrading: asyncio.Event,
    ) -> None:
        while True:
            raw = await stream.readline()
            if not raw:
                break
            line = raw.decode("utf-8", "replace").rstrip()
            if (match := _LISTENING.search(line)) and not ready.done():
                ready.set_result(match.group(1))
            elif (match := _UPGRADING.fullmatch(line)) and not ready.done():
                self.upgraded = True
                upgrading.set()
                done = None if match.group(1) is None else int(match.group(1))
                self._set_state(ServiceState.STARTING, _upgrading_words(done))
            elif match := _ROTATED.search(line):
                self.rotated_credentials = DemoCredentials(match.group(1), match.group(2))
                continue  # never log the secret
            elif match := _DEMO.search(line):
                self.demo_credentials = DemoCredentials(match.group(1), match.group(2))
                continue  # never log the secret (nor give it as a reason)
            said.append(line)
            self._log_tail.append(line)
            log.debug("local service %s: %s", name, line)

    async def _wait_healthy(self, url: str) -> None:
        async with _loopback_client(url) as http:
            for _ in range(100):
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/health")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise LocalServiceError("the local service does not answer")

    async def _supervise(self) -> None:
        rng = random.Random()
        failures = 0
        while not self._stopping:
            if (holder := self.attached_to) is not None:
                await self._until_released(holder)
                self.attached_to = None
                ended = f"{holder.describe()} (another window's) has ended"
            elif (process := self._process) is not None:
                ended = f"local service exited with {await process.wait()}"
                self._close_parent_pipe()
            else:  # the last launch failed before it started a process
                ended = "the local service did not start"
            if self._stopping:
                return
            failures += 1
            self.restarts += 1
            delay = min(self.max_backoff, 2 ** min(failures - 1, 5)) * rng.uniform(0.5, 1.0)
            log.warning("%s; restarting in %.1f s", ended, delay)
            self._set_state(
                ServiceState.RESTARTING, f"The local service stopped; restarting in {delay:.0f} s"
            )
            await asyncio.sleep(delay)
            if self._stopping:
                return
            # Not "restarting in 1 s" for the launch's 10 to 30 s (a loaded machine).
            self._set_state(ServiceState.STARTING, "Restarting the local service")
            try:
                await self._launch()
                failures = 0
            except Exception as exc:
                # Whatever ended this launch is one failed restart: the supervisor goes on
                # (ended, it would leave the app saying "restarting" for ever).
                if isinstance(exc, LocalServiceError):
                    log.warning("restart failed: %s", exc)
                else:  # a fault of ours: what it started is stopped, not left unwatched
                    log.exception("restart failed")
                    await self._terminate()
                    self._failed(f"the local service did not start: {exc}")
                if failures >= 3:
                    # The old port may be taken for good: take any free one next time. Not
                    # at once: the session's client (and another window's) knows this address.
                    self._port = 0

    async def stop(self) -> None:
        """Stop the service cleanly (SIGTERM, then kill after a grace period)."""
        self._stopping = True
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None:
            supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await supervisor
        await self._terminate()
        self._set_state(ServiceState.STOPPED, "Local service stopped")

    async def _terminate(self) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            _signal(process, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), timeout=10)
            except TimeoutError:
                _signal(process, signal.SIGKILL)
                await process.wait()
        if isinstance(process, _Adopted):
            process.close()
        self._close_parent_pipe()
        self.attached_to = None
        for reader in self._readers:
            reader.cancel()
        for reader in self._readers:
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        self._readers = []

    def _close_parent_pipe(self) -> None:
        pipe, self._parent_pipe = self._parent_pipe, None
        if pipe is not None:
            os.close(pipe)

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        if self._process is None or self._process.returncode is not None:
            return None
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """The last child's exit code once it has ended; None while it runs or before a start."""
        return None if self._process is None else self._process.returncode

    @property
    def log_tail(self) -> list[str]:
        """The last lines the service wrote (both streams, oldest first; never the demo's
        client secret)."""
        return list(self._log_tail)


class _Adopted:
    """A service process begun before the event loop ran (`first_run.begin`), seen as the
    supervisor sees the processes it starts itself: its output as streams, its end awaited.
    A thread waits for its end (asyncio watches only the children it starts)."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        streams: list[tuple[asyncio.StreamReader, asyncio.ReadTransport]],
        ended: asyncio.Future[int],
    ) -> None:
        self._popen = process
        (self.stdout, self._stdout), (self.stderr, self._stderr) = streams
        self._ended = ended

    @classmethod
    async def adopt(cls, begun: first_run.Begun) -> _Adopted:
        loop = asyncio.get_running_loop()
        streams = [await _stream(begun.process.stdout), await _stream(begun.process.stderr)]
        ended: asyncio.Future[int] = loop.create_future()

        def settle(code: int) -> None:
            if not ended.done():
                ended.set_result(code)

        def wait() -> None:
            code = begun.process.wait()
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
                loop.call_soon_threadsafe(settle, code)

        threading.Thread(target=wait, name="local-service-wait", daemon=True).start()
        return cls(begun.process, streams, ended)

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        # Set by the waiting thread as it reaps the process, before the loop hears of it: a
        # reaped process's pid is never signalled (see _signal).
        return self._popen.returncode

    async def wait(self) -> int:
        return await asyncio.shield(self._ended)

    def close(self) -> None:
        """Close the output's pipes (the process has ended)."""
        self._stdout.close()
        self._stderr.close()


async def _stream(pipe: IO[bytes] | None) -> tuple[asyncio.StreamReader, asyncio.ReadTransport]:
    """A pipe from a child process as asyncio's own subprocesses give it."""
    assert pipe is not None
    reader = asyncio.StreamReader()
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), pipe
    )
    return reader, transport


def _upgrading_words(done: int | None) -> str:
    """What a window says while the local service upgrades its database (`done`: its share
    done, in percent, where it can tell), its own or another window's."""
    return UPGRADING.format("" if done is None else f"{done}% ")


def _not_answering(
    holder: lifetime.Holder, upgrade: lifetime.Upgrade | None, silence: float
) -> str:
    """Why another window's service is not waited for any longer."""
    if upgrade is None:
        what = "serves this data directory but does not answer"
    else:
        what = f"upgrades the database but has said nothing for {silence:.0f} s"
    said = f"{holder.describe()} {what}; end it, or close the FreightDesk window that started it"
    return said[0].upper() + said[1:]


def _ended_words(upgrading: bool, why: str | None) -> str:
    """What a window says when another window's service it waited for has ended before it
    answered (`why`: what that service said as it ended): this window starts its own."""
    if not upgrading:
        return (
            f"Another FreightDesk window's local service could not start ({why}); starting one here"
        )
    if why is None:
        return (
            "The local service upgrading the database for another FreightDesk window has "
            "stopped; upgrading it here"
        )
    return (
        f"Another FreightDesk window's upgrade of the local database failed ({why}); "
        "trying again here"
    )


def _stopped(ready: asyncio.Future[str], said: deque[str]) -> None:
    """A launch's output has ended: unless it was ready, it failed, for its last words."""
    if not ready.done():
        reason = next((line for line in reversed(said) if line.strip()), "no output")
        ready.set_exception(LocalServiceError(f"the local service stopped: {reason}"))


def _loopback_client(base_url: str = "") -> httpx.AsyncClient:
    """A client for the service's plain-HTTP loopback address. It never speaks TLS, so it
    loads no certificates: httpx's default loads the system's bundle for every client (30
    to 130 ms, on the GUI thread while the app starts)."""
    return httpx.AsyncClient(base_url=base_url, timeout=2.0, verify=False)


def _signal(process: asyncio.subprocess.Process | _Adopted, signum: signal.Signals) -> None:
    """Signal the child without reaping it. `Process.send_signal` polls first (Popen's
    guard against signalling a reused pid), and that poll can reap a child that has just
    ended, before asyncio's child watcher does: the watcher then reports the exit as 255
    ("Unknown child process") instead of the child's own code. Until the watcher reaps it,
    an ended child stays a zombie, so its pid cannot be reused meanwhile."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signum)
